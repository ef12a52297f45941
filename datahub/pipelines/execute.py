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
import time

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets import tabular, versions
from datahub.datasets.checks.auditor import audit_claimed
from datahub.datasets.checks.services import failed_checks, results_of
from datahub.datasets.models import DatasetVersion
from datahub.datasets.services import discard
from datahub.pipelines import csv_types, staging
from datahub.pipelines.engine import PipelineError
from datahub.pipelines.event_data import record_run_by_id
from datahub.pipelines.lineage import openlineage as lineage_events
from datahub.pipelines.models import Pipeline, Run
from datahub.pipelines.plans import fingerprint, plan_run, reusable
from datahub.pipelines.publish import publish
from datahub.pipelines.timings import Timings
from datahub.platform import isolation
from datahub.platform.database import utcnow
from datahub.platform.errors import InsufficientStorage, StorageUnavailable
from datahub.platform.storage import get_storage

log = logging.getLogger("datahub.pipelines.execute")

CHUNK_BYTES = 1024 * 1024
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


def execute_run(app, run_id, name, check, pool=None, timings=None):
    """Execute run ``run_id``, which worker ``name`` has claimed. ``check()`` raises
    :class:`RunStopped` once the run is no longer ours; ``pool`` is the
    :class:`~datahub.platform.isolation.ProcessPool` to take the query's process from;
    ``timings`` (datahub.pipelines.timings) has the claim's, and is kept on the run."""
    timings = timings if timings is not None else Timings()
    pool = pool or isolation.ProcessPool(0)

    def mark(**values):
        return _mark(run_id, name, timings=timings.as_json(), **values)

    with timings.phase("plan"):
        planned = _plan(run_id, mark)
    if planned is None:
        return
    plan, reused, pipeline_id = planned
    with timings.phase("events"):
        lineage_events.run_started(run_id, pipeline_id, plan.reads)
    if reused:
        mark(status="succeeded", error=None, **reused)
        log.info("run %s reused run %s", run_id, reused["reused_run_id"])
        return
    rows = {}
    try:
        check()  # a run that is already stopped does not start
        stored = _execute(app.config, plan, check, rows, pool, timings)
    except RunStopped as stop:
        if stop.reason:
            mark(status="failed", error=stop.reason)
        log.info("run %s stopped: %s", run_id, stop.reason or "cancelled or taken away")
        return
    except PipelineError as exc:
        mark(status="failed", error=str(exc))
        return
    except Exception:
        log.exception("run %s failed unexpectedly", run_id)
        db.session.rollback()
        mark(status="failed", error=INTERNAL_ERROR)
        return
    try:
        pending = publish(run_id, name, plan, stored, rows, timings, mark)
    finally:
        stored.release()  # storage keeps new files locked until a row refers to them
    if pending:
        _check_output(app, run_id, name, pending, pool)


def _plan(run_id, mark):
    """``(plan, reused, pipeline id)``: the run's :class:`~datahub.pipelines.plans.RunPlan` (its reads
    recorded, its fingerprint set) and what an earlier run it reuses made (or None);
    None when the run is gone or failed (``mark``)."""
    run = db.session.get(Run, run_id)
    pipeline = db.session.get(Pipeline, run.pipeline_id) if run else None
    if pipeline is None:
        db.session.rollback()
        return None
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
        mark(status="failed", error=str(exc))
        return None
    finally:
        db.session.commit()  # no transaction stays open while the run works
    return plan, reused, pipeline_id


def _execute(config, plan, check, rows, pool, timings):
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
        digest = None
        with contextlib.ExitStack() as stack:
            local = _local_inputs(storage, plan, work, stack)
            output = os.path.join(work, "output" + tabular.SUFFIXES[plan.output_format])
            spill = os.path.join(work, "spill")
            os.mkdir(spill)
            # Hashed while the job writes it, where storage then moves it (staging.py).
            tail = (
                stack.enter_context(staging.Tail(output))
                if staging.adopts(storage, output)
                else None
            )
            rows.update(_run_query(config, plan, local, output, spill, check, pool, timings))
            if tail is not None:
                with timings.phase("hash"):
                    _, digest = tail.finish()
        check()
        try:
            stored = _store(storage, output, digest, timings)
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


def _store(storage, output, digest, timings):
    """The staged output as a new stored file: moved (its ``digest`` taken as it was
    written), or copied where storage cannot move it (``digest`` None)."""
    if digest is None:
        with timings.phase("store"), open(output, "rb") as staged:
            return storage.save(iter(lambda: staged.read(CHUNK_BYTES), b""))
    with timings.phase("write"):
        staging.durable(output)
    with timings.phase("store"):
        return storage.adopt(output, digest)


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


def _run_query(config, plan, local, output, spill, check, pool, timings):
    names = {local[key]: label for key, label in plan.names.items()}
    names[output] = "the output file"
    max_line_size = int(config["PIPELINE_MAX_LINE_SIZE"])
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
        "max_line_size": max_line_size,
        "max_columns": int(config["PIPELINE_MAX_COLUMNS"]),
        "csv_types": csv_types.known(local, max_line_size),
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
    asked = time.monotonic()
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
    csv_types.remember(local, max_line_size, result["csv_types"])
    timings.add("job_start", result["started"] - asked)
    timings.update(result["timings"])
    timings.add("job_end", time.monotonic() - result["ended"])
    if os.path.getsize(output) > most:  # grown past it between two looks
        raise PipelineError(output_too_large_error(most))
    return {"rows_in": result["rows_in"], "rows_out": result["rows_out"]}


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
