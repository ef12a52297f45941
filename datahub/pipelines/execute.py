"""One run, start to finish, in the worker: read what the run needs from the database,
re-authorise its owner, copy its inputs where the run's process can read them, execute
the query in an isolated process (datahub.pipelines.query_job through datahub.platform.isolation),
store the output file atomically as the output dataset's, and record the outcome.

The query's process can read only the run's input files, write only its output file and
spill only into its temporary folder (``datahub.datasets.tabular.connect``). It is killed
when its resident memory passes ``PIPELINE_MEMORY_LIMIT`` + ``PIPELINE_MEMORY_MARGIN``, its
output passes ``PIPELINE_MAX_OUTPUT_BYTES``, ``PIPELINE_TIMEOUT_SECONDS`` pass, or the run
is cancelled, taken away or the worker shuts down: its memory is back at once.
"""

import contextlib
import logging
import os
import shutil
import tempfile

import sqlalchemy as sa
from flask import current_app

from datahub import quotas
from datahub.app.extensions import db
from datahub.datasets import tabular, versions
from datahub.datasets.checks.auditor import audit_claimed, hold_audit
from datahub.datasets.checks.services import failed_checks, results_of
from datahub.datasets.event_data import record_dataset
from datahub.datasets.models import Dataset, DatasetVersion, VersionRead
from datahub.datasets.services import NewFile, add_stored_version, discard, drop_duplicate
from datahub.identity.models import User
from datahub.pipelines.engine import PipelineError
from datahub.pipelines.event_data import record_run, record_run_by_id
from datahub.pipelines.lineage import openlineage as lineage_events
from datahub.pipelines.models import Pipeline, Run
from datahub.pipelines.plans import fingerprint, plan_run, reusable
from datahub.platform import isolation
from datahub.platform.database import utcnow
from datahub.platform.errors import InsufficientStorage, StorageUnavailable
from datahub.platform.storage import get_storage
from datahub.resources import access
from datahub.resources.services import add_named, name_key

log = logging.getLogger("datahub.pipelines.execute")

CHUNK_BYTES = 1024 * 1024
OWNER_MAY_NOT_WRITE = "Owner may no longer write the output dataset"
INTERNAL_ERROR = "internal error while executing the run (see the worker's log)"
NO_ROOM_FOR_INPUTS = (
    "the worker's temporary folder (PIPELINE_TEMP_DIR) has no room for a copy of the inputs"
)


class RunStopped(Exception):
    """The run is no longer ours to finish. ``reason`` set: fail it with that error;
    None: someone else already decided its status (cancel, stale, deleted)."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def timeout_error(seconds):
    return (
        f"the run took longer than {seconds:g} seconds (PIPELINE_TIMEOUT_SECONDS) and was stopped"
    )


def out_of_memory_error(config):
    return f"Out of memory (PIPELINE_MEMORY_LIMIT is {config['PIPELINE_MEMORY_LIMIT']})"


def output_too_large_error(limit):
    return f"Output too large (PIPELINE_MAX_OUTPUT_BYTES is {limit} bytes)"


def max_output_bytes(config):
    limit = config.get("PIPELINE_MAX_OUTPUT_BYTES")
    return int(limit if limit is not None else config["MAX_CONTENT_LENGTH"])


def _mark(run_id, name, **values):
    """Set the outcome of a run this worker still holds; False if it no longer does."""
    result = db.session.execute(
        sa.update(Run)
        .where(Run.id == run_id, Run.status == "running", Run.worker == name)
        .values(finished_at=utcnow(), **values)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount:
        record_run_by_id(f"datahub.run.{values['status']}", run_id)
    db.session.commit()
    return bool(result.rowcount)


def execute_run(app, run_id, name, check, pool=None):
    """Execute run ``run_id``, which worker ``name`` has claimed. ``check()`` raises
    :class:`RunStopped` once the run is no longer ours; ``pool`` is the
    :class:`~datahub.platform.isolation.ProcessPool` to take the query's process from."""
    run = db.session.get(Run, run_id)
    pipeline = db.session.get(Pipeline, run.pipeline_id) if run else None
    if pipeline is None:
        db.session.rollback()
        return
    pipeline_id = pipeline.id
    try:
        plan = plan_run(pipeline)
        versions.record_reads(run_id, plan.reads)
        digest = fingerprint(plan)
        run.fingerprint = digest
        earlier = reusable(plan, run_id, digest)
        reused = earlier and {
            "reused_run_id": earlier.reused_run_id or earlier.id,
            "rows_in": earlier.rows_in,
            "rows_out": earlier.rows_out,
            "output_dataset_id": earlier.output_dataset_id,
            "output_version": earlier.output_version,
        }
    except PipelineError as exc:
        db.session.rollback()
        _mark(run_id, name, status="failed", error=str(exc))
        return
    finally:
        db.session.commit()  # no transaction stays open while the run works
    lineage_events.run_started(run_id, pipeline_id, plan.reads)
    if reused:
        _mark(run_id, name, status="succeeded", error=None, **reused)
        log.info("run %s reused run %s", run_id, reused["reused_run_id"])
        return
    rows = {}
    try:
        check()  # a run that is already stopped does not start
        stored = _execute(app.config, plan, check, rows, pool or isolation.ProcessPool(0))
    except RunStopped as stop:
        if stop.reason:
            _mark(run_id, name, status="failed", error=stop.reason)
        log.info("run %s stopped: %s", run_id, stop.reason or "cancelled or taken away")
        return
    except PipelineError as exc:
        _mark(run_id, name, status="failed", error=str(exc))
        return
    except Exception:
        log.exception("run %s failed unexpectedly", run_id)
        db.session.rollback()
        _mark(run_id, name, status="failed", error=INTERNAL_ERROR)
        return
    try:
        pending = _publish(run_id, name, plan, stored, rows.get("rows_in"), rows.get("rows_out"))
    finally:
        stored.release()  # storage keeps new files locked until a row refers to them
    if pending:
        _check_output(app, run_id, name, pending, pool or isolation.ProcessPool(0))


def _execute(config, plan, check, rows, pool):
    """Run the query into a staged file and store it; the :class:`StoredFile`."""
    max_steps = int(config["PIPELINE_MAX_STEPS"])
    if len(plan.steps) > max_steps:
        raise PipelineError(
            f"the pipeline has {len(plan.steps)} steps; at most "
            f"{max_steps} are allowed (PIPELINE_MAX_STEPS)"
        )
    storage = get_storage()
    # Staged in the run's own folder first: the long part leaves nothing in storage if
    # the worker dies; storage then gets a quick atomic copy.
    work = tempfile.mkdtemp(prefix="datahub-run-", dir=config.get("PIPELINE_TEMP_DIR"))
    try:
        with contextlib.ExitStack() as inputs:
            local = _local_inputs(storage, plan, work, inputs)
            output = os.path.join(work, "output" + tabular.SUFFIXES[plan.output_format])
            spill = os.path.join(work, "spill")
            os.mkdir(spill)
            rows.update(_run_query(config, plan, local, output, spill, check, pool))
        check()
        try:
            with open(output, "rb") as staged:
                stored = storage.save(iter(lambda: staged.read(CHUNK_BYTES), b""))
        except StorageUnavailable:
            raise PipelineError("the storage is unavailable (see the worker's log)") from None
        except InsufficientStorage:
            raise PipelineError("the storage has no room for the output") from None
        try:
            check()
        except RunStopped:
            discard(stored)
            stored.release()
            raise
        return stored
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _local_inputs(storage, plan, work, inputs):
    """Storage key → a path the run's process can read: the stored file itself, or (S3)
    a copy in the run's folder."""
    try:
        return {
            key: inputs.enter_context(storage.local_copy(key, work))
            for key in dict.fromkeys([plan.source_key, *plan.joins.values()])
        }
    except FileNotFoundError:
        raise PipelineError("an input dataset's file is missing from storage") from None
    except StorageUnavailable:
        raise PipelineError("the storage is unavailable (see the worker's log)") from None
    except InsufficientStorage:
        raise PipelineError(NO_ROOM_FOR_INPUTS) from None


def _run_query(config, plan, local, output, spill, check, pool):
    names = {local[key]: label for key, label in plan.names.items()}
    names[output] = "the output file"
    args = {
        "source": local[plan.source_key],
        "joins": {str(dataset_id): local[key] for dataset_id, key in plan.joins.items()},
        "names": names,
        "steps": plan.steps,
        "output": output,
        "spill": spill,
        "output_format": plan.output_format,
        "memory_limit": str(config["PIPELINE_MEMORY_LIMIT"]),
        "threads": config.get("PIPELINE_THREADS"),
        "max_line_size": int(config["PIPELINE_MAX_LINE_SIZE"]),
        "max_columns": int(config["PIPELINE_MAX_COLUMNS"]),
    }
    seconds = float(config["PIPELINE_TIMEOUT_SECONDS"])
    most = max_output_bytes(config)
    limits = isolation.Limits(
        memory=isolation.parse_size(config["PIPELINE_MEMORY_LIMIT"]),
        margin=isolation.parse_size(config["PIPELINE_MEMORY_MARGIN"]),
        seconds=seconds,
        output_path=output,
        output_bytes=most,
    )
    try:
        result = isolation.run_job(pool, "pipeline_run", args, limits, check)
    except isolation.JobError as exc:
        raise PipelineError(exc.message) from None
    except isolation.JobKilled as exc:
        if exc.reason == "memory":
            raise PipelineError(out_of_memory_error(config)) from None
        if exc.reason == "timeout":
            raise RunStopped(timeout_error(seconds)) from None
        if exc.reason == "output":
            raise PipelineError(output_too_large_error(most)) from None
        raise
    if os.path.getsize(output) > most:  # grown past it between two looks
        raise PipelineError(output_too_large_error(most))
    return result


@contextlib.contextmanager
def _quota_errors():
    """A quota's error as the run's PipelineError."""
    config = current_app.config
    try:
        yield
    except quotas.DatasetQuotaExceeded:
        raise PipelineError(
            f"Dataset quota exceeded (QUOTA_DATASETS is {config['QUOTA_DATASETS']})"
        ) from None
    except quotas.StorageQuotaExceeded:
        raise PipelineError(
            f"Storage quota exceeded (QUOTA_STORAGE_BYTES is {config['QUOTA_STORAGE_BYTES']} bytes)"
        ) from None


def _widened_for(dataset, run, plan):
    """Whether the internal output ``dataset`` may take this run's result. Derived data is
    never wider than its sources unless its owner widens it (docs/guides/access.rst): over
    private inputs, only when its current version came from a run of the same pipeline
    that read each of them, so that the widening was of data made from them."""
    if not plan.private_inputs:
        return True
    made_by = db.session.scalar(
        sa.select(Run.id)
        .join(DatasetVersion, DatasetVersion.run_id == Run.id)
        .where(
            DatasetVersion.dataset_id == dataset.id,
            DatasetVersion.version == dataset.current_version,
            Run.pipeline_id == run.pipeline_id,
        )
    )
    if made_by is None:
        return False
    read = db.session.scalars(
        sa.select(VersionRead.dataset_id).where(VersionRead.run_id == made_by)
    )
    return plan.private_inputs <= set(read)


def _publish(run_id, name, plan, stored, rows_in, rows_out):
    """Add the new file as the output's new version (:func:`_add_output`); on a failure
    (the owner may not write the output, or has no room), the run fails, the new file is
    removed and the previous output stays. ``(dataset id, version)`` when it is pending."""
    try:
        added = _add_output(run_id, name, plan, stored, rows_in, rows_out)
    except (PipelineError, sa.exc.IntegrityError) as exc:
        discard(stored)
        taken = f"the output dataset name {plan.output_name!r} was taken meanwhile"
        error = str(exc) if isinstance(exc, PipelineError) else taken
        _mark(run_id, name, status="failed", error=error, rows_in=rows_in)
        return None
    except BaseException:
        discard(stored)
        raise
    if added is None:
        return None
    key, version, pending = added
    drop_duplicate(key, stored)
    return (version.dataset_id, version.version) if pending else None


def _add_output(run_id, name, plan, stored, rows_in, rows_out):
    """In one transaction: the new file as the output dataset's new version, and the run
    succeeded, or (checks) left running, its output pending and held for this worker to
    check: (key, version, pending). None, the new file removed, if the run is not ours."""
    quotas.lock_user(plan.owner_id)  # first: the quotas' lock order
    run = db.session.scalar(sa.select(Run).where(Run.id == run_id).with_for_update())
    if run is None or run.status != "running" or run.worker != name:
        discard(stored)
        return None
    dataset = _output_dataset(run, plan)
    fmt = plan.output_format
    suffix = tabular.SUFFIXES[fmt]
    output = NewFile(
        plan.output_name[: 255 - len(suffix)] + suffix, tabular.CONTENT_TYPES[fmt], fmt
    )
    with _quota_errors():
        key, version = add_stored_version(
            dataset, stored, output, created_by=plan.owner_id, run_id=run_id
        )
    db.session.flush()
    run.rows_in, run.rows_out = rows_in, rows_out
    run.output_dataset_id, run.output_version = dataset.id, version.version
    pending = version.state == "pending"
    if pending:
        hold_audit(current_app.config, version)
    else:
        run.status, run.finished_at, run.error = "succeeded", utcnow(), None
        record_run("datahub.run.succeeded", run)
    db.session.commit()
    return key, version, pending


def _output_dataset(run, plan):
    """The output dataset (locked), made now if there is none, that the run may write;
    else :class:`PipelineError`."""
    output_name = plan.output_name
    dataset = db.session.scalar(
        sa.select(Dataset).where(Dataset.name_key == name_key(output_name)).with_for_update()
    )
    if dataset is None:
        with _quota_errors():
            quotas.check_datasets(plan.owner_id)
        values = {
            "name": output_name,
            "description": f"Output of pipeline {plan.pipeline_name}",
            # Derived data is never wider than its sources (docs/guides/access.rst).
            "visibility": "private" if plan.private_inputs else None,
            "tags": [],
        }
        dataset = add_named(Dataset, plan.owner_id, values, ("description", "tags"))
        db.session.flush()
        record_dataset("datahub.dataset.created", dataset)
    elif dataset.owner_id != plan.owner_id:
        raise PipelineError(
            f"the output dataset name {output_name!r} belongs to another "
            "user's dataset; choose another output_dataset_name"
        )
    elif not access.may_write(db.session.get(User, plan.owner_id), dataset):
        raise PipelineError(OWNER_MAY_NOT_WRITE)
    elif dataset.visibility != "private" and not _widened_for(dataset, run, plan):
        raise PipelineError(
            f"the output dataset {output_name!r} is internal and this run reads private "
            "data it was not made from; make the output dataset private, or choose "
            "another output_dataset_name"
        )
    return dataset


def _check_output(app, run_id, name, pending, pool):
    """The run's output version is pending: run its checks now. The run succeeds when it
    is published, and fails with ``Output failed checks: <names>`` when quarantined (the
    version stays, for its owner to inspect)."""
    audit_claimed(app, *pending, 1, pool=pool)
    version = db.session.get(DatasetVersion, pending, populate_existing=True)
    state = version.state if version is not None else None
    db.session.commit()
    if state == "published":
        _mark(run_id, name, status="succeeded", error=None)
    elif state == "quarantined":
        failed = ", ".join(failed_checks(results_of(version)["results"]))
        _mark(run_id, name, status="failed", error=f"Output failed checks: {failed}")
    elif state is None:
        _mark(run_id, name, status="failed", error="the output version was deleted")
