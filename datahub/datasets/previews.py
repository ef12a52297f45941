"""Previews, executed in isolated processes (datahub.platform.isolation; the job itself is
datahub.datasets.previews_job), never in the web process: at most
``PREVIEW_CONCURRENCY`` at once per web process, each within ``PREVIEW_TIMEOUT_SECONDS``
(waiting for a turn included) and ``PIPELINE_MEMORY_LIMIT`` + ``PIPELINE_MEMORY_MARGIN``;
the answer at most ``PREVIEW_MAX_BYTES`` of JSON, long cells cut."""

import contextlib
import os

from datahub.app.extensions import db
from datahub.datasets.errors import (
    DatasetHasNoFile,
    DatasetNotTabular,
    PreviewTimedOut,
    PreviewTooLarge,
)
from datahub.platform import isolation
from datahub.platform.isolation.turns import Turns
from datahub.platform.storage import get_storage

_previews = Turns("PREVIEW_CONCURRENCY")


def preview_dataset(dataset, limit, config):
    """The first ``limit`` rows of the dataset's file as a table: 404 ``Dataset has no
    file`` (also when it is replaced or deleted meanwhile), else as :func:`preview_file`."""
    if dataset.file_key is None:
        raise DatasetHasNoFile()
    return preview_stored(dataset.file_key, dataset.name, limit, config)


def preview_stored(key, name, limit, config):
    """The first ``limit`` rows of the stored file ``key`` (of the dataset called
    ``name``) as a table, as :func:`preview_file`; 404 ``Dataset has no file`` when it is
    gone."""
    # End the transaction before reading the file: nothing is held while DuckDB works.
    db.session.commit()
    with contextlib.ExitStack() as stack:
        try:
            # The stored file itself, or (S3) a temporary copy in PIPELINE_TEMP_DIR.
            path = stack.enter_context(
                get_storage().local_copy(key, config.get("PIPELINE_TEMP_DIR"))
            )
        except FileNotFoundError:
            raise DatasetHasNoFile() from None
        try:
            return preview_file(path, limit, name, config)
        except DatasetNotTabular:
            # Replaced or deleted by another request since it was looked up (DuckDB
            # then says the path cannot be accessed).
            if not os.path.isfile(path):
                raise DatasetHasNoFile() from None
            raise


def preview_file(path, limit, name, config):
    """The preview of the file at ``path``; 422 ``Dataset file is not tabular``,
    ``Preview is too large`` or ``Preview timed out``."""
    args = {
        "path": path,
        "limit": int(limit),
        "name": name,
        "memory_limit": str(config["PIPELINE_MEMORY_LIMIT"]),
        "threads": config.get("PIPELINE_THREADS"),
        "temp_dir": config.get("PIPELINE_TEMP_DIR"),
        "max_line_size": int(config["PIPELINE_MAX_LINE_SIZE"]),
        "max_bytes": int(config["PREVIEW_MAX_BYTES"]),
    }
    return run_preview("preview", args, config)


def run_preview(job, args, config):
    """Run the preview job ``job`` (datahub.app.jobs) with ``args`` as :func:`run_isolated`
    does, within ``PREVIEW_TIMEOUT_SECONDS``; its failures as the previews' errors. A
    :class:`~datahub.platform.isolation.JobError` of another kind is raised as it is."""
    try:
        return run_isolated(
            job, args, config, float(config["PREVIEW_TIMEOUT_SECONDS"]), PreviewTimedOut
        )
    except isolation.JobError as exc:
        if exc.kind == "not_tabular":
            raise DatasetNotTabular() from None
        if exc.kind == "missing":
            raise DatasetHasNoFile() from None
        if exc.kind == "too_large":
            raise PreviewTooLarge() from None
        raise
    except isolation.JobKilled as exc:
        if exc.reason == "timeout":
            raise PreviewTimedOut() from None
        if exc.reason in ("memory", "output"):
            raise PreviewTooLarge() from None
        raise


def run_isolated(job, args, config, seconds, timed_out):
    """Run ``job`` in a process of the previews' (``PREVIEW_CONCURRENCY`` turns per web
    process), as :meth:`datahub.platform.isolation.turns.Turns.run` does."""
    return _previews.run(job, args, config, seconds, timed_out)
