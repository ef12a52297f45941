"""A pipeline's preview (``POST /api/v1/pipelines/preview``): the first rows of what some
steps make of a dataset, without a pipeline or a run. The caller must read every input;
the steps are executed by datahub.pipelines.preview_job in a process of the previews'
pool (datahub.datasets.previews: ``PREVIEW_CONCURRENCY`` turns, ``PREVIEW_TIMEOUT_SECONDS``,
the pipelines' memory limit, ``PREVIEW_MAX_BYTES``), never in the web process."""

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field

from datahub.app.extensions import db
from datahub.datasets import previews, services, versions
from datahub.datasets.errors import DatasetHasNoFile, DatasetNotFound
from datahub.pipelines import csv_types
from datahub.pipelines.errors import PipelinePreviewFailed
from datahub.platform import isolation
from datahub.platform.storage import get_storage
from datahub.resources import access


@dataclass
class PreviewInputs:
    """The files a preview reads: storage keys, and what a user calls each file."""

    source_key: str
    joins: dict = field(default_factory=dict)  # dataset id → its file's storage key
    names: dict = field(default_factory=dict)  # storage key → what a user calls the file


def preview_pipeline(values, user, config):
    """The preview of ``values``' steps over their source (``source_dataset_id``,
    ``source_version``), at most ``limit`` rows, for ``user``: as a dataset's preview
    answers it."""
    inputs = _inputs(values, user)
    db.session.commit()  # nothing is held while DuckDB works
    work = tempfile.mkdtemp(prefix="datahub-preview-", dir=config.get("PIPELINE_TEMP_DIR"))
    try:
        with contextlib.ExitStack() as stack:
            local = _local_copies(inputs, work, stack)
            spill = os.path.join(work, "spill")
            os.mkdir(spill)
            return _run(values, inputs, local, spill, config)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _inputs(values, user):
    """Every input the caller may read (else 404 ``Dataset not found``, as for a dataset
    it may not read), then each one's file: the version asked for (else 404 ``Version
    not found``), or the current one (else 404 ``Dataset has no file``)."""
    joined = [step for step in values["steps"] if step["op"] == "join"]
    source = _readable(values["source_dataset_id"], user)
    others = [_readable(step["dataset_id"], user) for step in joined]
    source_key = _file_key(source, values.get("source_version"))
    inputs = PreviewInputs(source_key, names={source_key: "the source file"})
    for step, other in zip(joined, others, strict=True):
        key = _file_key(other, step.get("version"))
        inputs.joins[other.id] = key
        inputs.names.setdefault(key, f"dataset {other.id}'s file")
    return inputs


def _readable(dataset_id, user):
    dataset = services.get_dataset(dataset_id)
    if not access.may_read(user, dataset):
        raise DatasetNotFound()
    return dataset


def _file_key(dataset, number):
    if number is not None:
        return versions.get_version(dataset.id, number).file_key
    if dataset.file_key is None:
        raise DatasetHasNoFile()
    return dataset.file_key


def _local_copies(inputs, work, stack):
    """Storage key → a path the preview's process can read: the stored file itself, or
    (S3) a copy in the preview's folder. A file gone meanwhile: ``Dataset has no file``."""
    storage = get_storage()
    try:
        return {
            key: stack.enter_context(storage.local_copy(key, work))
            for key in dict.fromkeys([inputs.source_key, *inputs.joins.values()])
        }
    except FileNotFoundError:
        raise DatasetHasNoFile() from None


def _run(values, inputs, local, spill, config):
    max_line_size = int(config["PIPELINE_MAX_LINE_SIZE"])
    args = {
        "source": local[inputs.source_key],
        "joins": {str(dataset_id): local[key] for dataset_id, key in inputs.joins.items()},
        "names": {local[key]: name for key, name in inputs.names.items()},
        "steps": values["steps"],
        "limit": int(values["limit"]),
        "spill": spill,
        "memory_limit": str(config["PIPELINE_MEMORY_LIMIT"]),
        "threads": config.get("PIPELINE_THREADS"),
        "max_line_size": max_line_size,
        "max_columns": int(config["PIPELINE_MAX_COLUMNS"]),
        "max_bytes": int(config["PREVIEW_MAX_BYTES"]),
        "csv_types": csv_types.known(local, max_line_size),
    }
    try:
        answer = previews.run_preview("pipeline_preview", args, config)
    except isolation.JobError as exc:
        if exc.kind == "pipeline":
            raise PipelinePreviewFailed(exc.message) from None
        raise
    csv_types.remember(local, max_line_size, answer["csv_types"])
    return answer["table"]
