"""The versions of a dataset: every upload, run output and restore is a new, numbered,
immutable version; only ``pinned`` and ``message`` change. Mixed into ``Client``; every
method returns the decoded JSON answer. A version's file is downloaded with
``dataset_download(..., version=N)``, a version made with ``dataset_upload(...,
message=...)``. Two versions are compared with ``dataset_diff``; ``dataset_lineage`` says
which runs made a version from which versions, and what was made from it."""

API = "/api/v1"


def _version_path(dataset_id, version):
    return f"{API}/datasets/{int(dataset_id)}/versions/{int(version)}"


class VersionsMixin:
    """Needs ``self._json(method, path, **kwargs)`` and ``self.request(...)``."""

    def dataset_versions_list(self, dataset_id, *, limit=20, offset=0):
        """One page of the dataset's versions, newest first (the current one)."""
        return self._json(
            "GET",
            f"{API}/datasets/{int(dataset_id)}/versions",
            params={"limit": limit, "offset": offset},
        )

    def dataset_versions_iter(self, dataset_id):
        """Every version of the dataset, newest first, page after page."""
        offset = 0
        while True:
            page = self.dataset_versions_list(dataset_id, limit=100, offset=offset)
            yield from page["items"]
            offset += len(page["items"])
            if not page["items"] or offset >= page["total"]:
                return

    def dataset_version_get(self, dataset_id, version):
        return self._json("GET", _version_path(dataset_id, version))

    def dataset_version_update(self, dataset_id, version, **changes):
        """Change ``pinned`` (retention keeps a pinned version) and/or ``message`` (None
        removes it)."""
        return self._json("PATCH", _version_path(dataset_id, version), json_body=changes)

    def dataset_version_restore(self, dataset_id, version, *, message=None):
        """Make a new, current version with this version's content (POST, so never
        retried); its message is ``message``, else ``Restored from version N``."""
        return self._json(
            "POST",
            _version_path(dataset_id, version) + "/restore",
            params={"message": message} if message is not None else None,
        )

    def dataset_version_delete(self, dataset_id, version, *, force=False):
        """Delete a version: 409 ``Version is current``, or ``Version is used by a run``
        unless ``force`` (admins only)."""
        self.request(
            "DELETE",
            _version_path(dataset_id, version),
            params={"force": "true"} if force else None,
        )

    def dataset_diff(self, dataset_id, from_version, to_version, key=None):
        """What changed from version ``from_version`` to ``to_version`` of a tabular
        dataset: ``{"from", "to", "schema", "rows", "sample", "columns"}``. ``key`` (a list
        of columns, or a comma-separated string) matches rows by those columns; without
        it (None, or empty) the versions are compared as multisets of rows. A key that is
        not a column of both versions or not unique in one, a version that is not a table,
        and a diff too large or too slow are ``ValidationError`` (422)."""
        params = {"from": int(from_version), "to": int(to_version)}
        if key is not None and not isinstance(key, str):
            key = ",".join(str(column) for column in key)
        if key:
            params["key"] = key
        return self._json("GET", f"{API}/datasets/{int(dataset_id)}/diff", params=params)

    def dataset_lineage(self, dataset_id, direction="both", depth=3, version=None):
        """The graph around a version of the dataset (``version``, else the current one):
        ``{"nodes", "edges"}``, a node a version (``dataset:7@3``) or a run (``run:12``),
        an edge from a version to a run that read it or from a run to a version it made.
        ``direction``: ``upstream``, ``downstream`` or ``both``; ``depth``: at most that
        many runs away (1 to 10)."""
        params = {"direction": direction, "depth": int(depth)}
        if version is not None:
            params["version"] = int(version)
        return self._json("GET", f"{API}/datasets/{int(dataset_id)}/lineage", params=params)
