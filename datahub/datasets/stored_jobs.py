"""Running a job (datahub.app.jobs) in an isolated process over stored files, as the
workers do for profiles and checks: each file fetched to a local path (the stored file
itself, or a temporary copy from S3 in ``PIPELINE_TEMP_DIR``, removed afterwards), the
pipelines' memory bound, and a deadline."""

import contextlib

from datahub.platform import isolation
from datahub.platform.storage import get_storage


class FileMissing(Exception):
    """A stored file is gone."""


def run_stored_job(config, job, files, args, seconds, pool, check=None):
    """``job``'s answer, with ``args`` and, for each ``{arg: stored key}`` of ``files``, the
    local path of that file; :class:`FileMissing`, and whatever
    :func:`datahub.platform.isolation.run_job` raises."""
    temp_dir = config.get("PIPELINE_TEMP_DIR")
    with contextlib.ExitStack() as stack:
        paths = {}
        for arg, key in files.items():
            try:
                paths[arg] = stack.enter_context(get_storage().local_copy(key, temp_dir))
            except FileNotFoundError:
                raise FileMissing() from None
        bounded = {
            **args,
            **paths,
            "memory_limit": str(config["PIPELINE_MEMORY_LIMIT"]),
            "threads": config.get("PIPELINE_THREADS"),
            "temp_dir": temp_dir,
            "max_line_size": int(config["PIPELINE_MAX_LINE_SIZE"]),
            "max_columns": int(config["PIPELINE_MAX_COLUMNS"]),
        }
        limits = isolation.Limits(
            memory=isolation.parse_size(config["PIPELINE_MEMORY_LIMIT"]),
            margin=isolation.parse_size(config["PIPELINE_MEMORY_MARGIN"]),
            seconds=float(seconds),
        )
        return isolation.run_job(pool, job, bounded, limits, check)
