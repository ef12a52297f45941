"""The diff of two versions of a dataset (docs/guides/versions.rst, "Diffs"), computed by
the ``diff`` job (datahub.datasets.diff_query) in an isolated process of the web
process's pool, as previews are: within ``DIFF_TIMEOUT_SECONDS`` and the pipelines'
memory limit."""

import contextlib

from datahub.app.extensions import db
from datahub.datasets.errors import (
    DatasetNotTabular,
    DiffKeyInvalid,
    DiffTimedOut,
    DiffTooLarge,
    VersionNotFound,
)
from datahub.datasets.previews import run_isolated
from datahub.datasets.profiles.drift import profile_drift
from datahub.platform import isolation
from datahub.platform.storage import get_storage


def diff_versions(dataset, old, new, key, config):
    """The diff of versions ``old`` and ``new`` of ``dataset``, rows matched by the
    columns ``key`` (a list; empty: compared as multisets)."""
    db.session.commit()  # nothing is held while DuckDB works
    temp_dir = config.get("PIPELINE_TEMP_DIR")
    with contextlib.ExitStack() as stack:
        paths = []
        for version in (old, new):
            try:
                paths.append(
                    stack.enter_context(get_storage().local_copy(version.file_key, temp_dir))
                )
            except FileNotFoundError:
                raise VersionNotFound() from None
        args = {
            "from_path": paths[0],
            "to_path": paths[1],
            "from_name": f"version {old.version} of {dataset.name}",
            "to_name": f"version {new.version} of {dataset.name}",
            "from_version": old.version,
            "to_version": new.version,
            "key": list(key),
            "memory_limit": str(config["PIPELINE_MEMORY_LIMIT"]),
            "threads": config.get("PIPELINE_THREADS"),
            "temp_dir": temp_dir,
            "max_line_size": int(config["PIPELINE_MAX_LINE_SIZE"]),
            "max_bytes": int(config["PREVIEW_MAX_BYTES"]),
        }
        seconds = float(config["DIFF_TIMEOUT_SECONDS"])
        try:
            diff = run_isolated("diff", args, config, seconds, DiffTimedOut)
        except isolation.JobError as exc:
            if exc.kind == "not_tabular":
                raise DatasetNotTabular() from None
            if exc.kind == "missing":
                raise VersionNotFound() from None
            if exc.kind in ("bad_key", "duplicate_keys"):
                raise DiffKeyInvalid(exc.message) from None
            if exc.kind == "too_large":
                raise DiffTooLarge() from None
            raise
        except isolation.JobKilled as exc:
            if exc.reason == "timeout":
                raise DiffTimedOut() from None
            if exc.reason in ("memory", "output"):
                raise DiffTooLarge() from None
            raise
    diff["profile"] = profile_drift(old, new)
    return diff
