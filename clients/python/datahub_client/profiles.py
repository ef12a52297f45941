"""What a worker read of each version: its schema, its profile (statistics per column) and
its Frictionless Data Package; and the checks a version must pass to be published (write,
audit, publish). Mixed into ``Client``. A version not read yet answers 202
``{"status": "pending"}``; ``wait`` (seconds) asks again, as ``Retry-After`` says, until
it is read or the time is up."""

import json
import time

from datahub_client.errors import DatahubError, NotReadyError

API = "/api/v1"


class ProfilesMixin:
    """Needs ``self._json``, ``self.request`` and ``self.dataset_get``."""

    def dataset_schema(self, dataset_id, version=None, *, wait=30):
        """``{"columns": [{"name", "type", "nullable"}], "rows"}`` of a version (None: the
        current one). A file that is not a table: ``NotFoundError`` (``Version has no
        schema``); not read within ``wait`` seconds: :class:`NotReadyError`."""
        return self._read_when_ready(dataset_id, version, "schema", wait)

    def dataset_profile(self, dataset_id, version=None, *, wait=30):
        """``{"status": "ready", "rows", "partial", "computed_at", "columns": [...]}`` of a
        version, or ``{"status": "failed", "error"}`` for a file that cannot be profiled;
        not read within ``wait`` seconds: :class:`NotReadyError`."""
        return self._read_when_ready(dataset_id, version, "profile", wait)

    def dataset_data_package(self, dataset_id, version=None, *, wait=30):
        """The version as a Frictionless Data Package (a dict; its resource's ``path`` is
        the version's download URL)."""
        return self._read_when_ready(dataset_id, version, "datapackage.json", wait)

    def dataset_checks(self, dataset_id):
        """``{"checks": [...]}``: what every new version must pass to be published."""
        return self._json("GET", f"{API}/datasets/{int(dataset_id)}/checks")

    def dataset_checks_set(self, dataset_id, checks):
        """Replace the dataset's checks (a list of ``{"name", "type", ..., "severity"}``;
        empty removes them); an invalid one is ``ValidationError`` (422) at its field."""
        return self._json(
            "PUT", f"{API}/datasets/{int(dataset_id)}/checks", json_body={"checks": list(checks)}
        )

    def dataset_version_checks(self, dataset_id, version):
        """``{"state", "checked_at", "published_by", "results": [...]}`` of a version."""
        return self._json("GET", f"{API}/datasets/{int(dataset_id)}/versions/{int(version)}/checks")

    def dataset_version_publish(self, dataset_id, version):
        """Publish a quarantined version anyway (managers; audited): the version."""
        return self._json(
            "POST", f"{API}/datasets/{int(dataset_id)}/versions/{int(version)}/publish"
        )

    def _read_when_ready(self, dataset_id, version, part, wait):
        if version is None:
            version = self.dataset_get(dataset_id)["current_version"]
            if version is None:
                raise DatahubError(404, "Dataset has no file")
        path = f"{API}/datasets/{int(dataset_id)}/versions/{int(version)}/{part}"
        deadline = time.monotonic() + max(0.0, float(wait or 0))
        while True:
            response = self.request("GET", path)
            if response.status != 202:
                return json.loads(response.data)
            pause = _retry_after(response)
            if time.monotonic() + pause > deadline:
                raise NotReadyError(202, f"version {version} is not read yet")
            time.sleep(pause)


def _retry_after(response):
    try:
        return max(0.1, min(float(response.headers.get("Retry-After", 1)), 10.0))
    except ValueError:
        return 1.0
