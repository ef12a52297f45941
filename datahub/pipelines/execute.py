"""One run, start to finish: compile the steps into one DuckDB query over the source
file, write its result with ``COPY`` to a file of the run's own temporary folder, store
that file atomically as the output dataset's, and record the outcome.

The run's DuckDB connection (``datahub.datasets.tabular.connect``) can read only the
run's input files, write only its output file and spill only into its temporary folder,
within ``PIPELINE_MEMORY_LIMIT`` and ``PIPELINE_THREADS``. A :class:`Watch` thread
interrupts the query when the run is cancelled or taken away, the worker shuts down, or
``PIPELINE_TIMEOUT_SECONDS`` pass.
"""
import contextlib
import logging
import os
import shutil
import tempfile
import threading
import time

import duckdb
import sqlalchemy as sa

from datahub.database import utcnow
from datahub.datasets import tabular
from datahub.datasets.models import Dataset
from datahub.datasets.services import discard, drop_replaced, set_file
from datahub.datasets.storage import get_storage
from datahub.errors import InsufficientStorage, StorageUnavailable
from datahub.extensions import db
from datahub.identity import permissions
from datahub.identity.models import User
from datahub.pipelines import engine
from datahub.pipelines.engine import PipelineError
from datahub.pipelines.models import Pipeline, Run
from datahub.resources import name_key

log = logging.getLogger("datahub.pipelines.execute")

CHUNK_BYTES = 1024 * 1024
INTERNAL_ERROR = "internal error while executing the run (see the worker's log)"
WATCH_SECONDS = 0.05
NO_ROOM_FOR_INPUTS = ("the worker's temporary folder (PIPELINE_TEMP_DIR) has no room for "
                      "a copy of the inputs")


class RunStopped(Exception):
    """The run is no longer ours to finish. ``reason`` set: fail it with that error;
    None: someone else already decided its status (cancel, stale, deleted)."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def timeout_error(seconds):
    return (f"the run took longer than {seconds:g} seconds (PIPELINE_TIMEOUT_SECONDS) "
            "and was stopped")


class Watch:
    """Calls ``check`` (which raises :class:`RunStopped`) every ``WATCH_SECONDS`` and
    watches the deadline; when either says stop, interrupts the connection's query.
    ``raise_if_stopped()`` then raises the reason, also between two queries."""

    def __init__(self, check, seconds):
        self.check, self.seconds = check, seconds
        self.deadline = time.monotonic() + seconds
        self.stopped = None
        self.con = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True, name="run-watch")

    def __enter__(self):
        self.check()  # a run that is already stopped does not start
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()

    def _watch(self):
        while not self.done.wait(WATCH_SECONDS):
            if self.stopped is None:
                try:
                    self.check()
                    if time.monotonic() > self.deadline:
                        raise RunStopped(timeout_error(self.seconds))
                    continue
                except RunStopped as stop:
                    self.stopped = stop
            # Again at every tick until the run returns: DuckDB forgets an interrupt
            # that arrives between two queries, and the next one would run to its end.
            con = self.con
            if con is not None:
                try:
                    con.interrupt()
                except duckdb.ConnectionException:
                    pass  # closed meanwhile: the query it ran is over

    def raise_if_stopped(self):
        if self.stopped is not None:
            raise self.stopped


def _mark(run_id, name, **values):
    """Set the outcome of a run this worker still holds; False if it no longer does."""
    result = db.session.execute(
        sa.update(Run)
        .where(Run.id == run_id, Run.status == "running", Run.worker == name)
        .values(finished_at=utcnow(), **values)
        .execution_options(synchronize_session=False)
    )
    db.session.commit()
    return bool(result.rowcount)


def _plan(pipeline):
    """What the run needs from the database, read in one short transaction: the steps,
    the source's and each joined dataset's stored file. A missing one → PipelineError."""
    steps = list(pipeline.steps or [])
    plan = {
        "steps": steps,
        "owner_id": pipeline.owner_id,
        "pipeline_name": pipeline.name,
        "output_name": pipeline.output_dataset_name,
        "output_format": pipeline.output_format or "csv",
        "joins": {},
        "names": {},
    }
    source = db.session.get(Dataset, pipeline.source_dataset_id) \
        if pipeline.source_dataset_id else None
    if source is None:
        raise PipelineError("the source dataset no longer exists")
    if source.file_key is None:
        raise PipelineError("the source dataset has no file")
    plan["source_key"], plan["names"][source.file_key] = source.file_key, "the source file"
    owner = db.session.get(User, pipeline.owner_id)
    for position, step in enumerate(steps):
        if step.get("op") != "join":
            continue
        other = db.session.get(Dataset, step["dataset_id"])
        where = f"step {position} (join)"
        if other is None:
            raise PipelineError(f"{where}: dataset {step['dataset_id']} does not exist")
        if owner is None or not permissions.READ_ROLES & set(owner.roles or []):
            raise PipelineError(f"{where}: the pipeline's owner may not read dataset "
                                f"{step['dataset_id']}")
        if other.file_key is None:
            raise PipelineError(f"{where}: dataset {step['dataset_id']} has no file")
        plan["joins"][other.id] = other.file_key
        plan["names"][other.file_key] = f"dataset {other.id}'s file"
    return plan


def execute_run(app, run_id, name, check):
    run = db.session.get(Run, run_id)
    pipeline = db.session.get(Pipeline, run.pipeline_id) if run else None
    if pipeline is None:
        db.session.rollback()
        return
    try:
        plan = _plan(pipeline)
    except PipelineError as exc:
        db.session.rollback()
        _mark(run_id, name, status="failed", error=str(exc))
        return
    finally:
        db.session.commit()  # no transaction stays open while the run works
    config = app.config
    rows = {"in": None, "out": None}
    try:
        with Watch(check, float(config["PIPELINE_TIMEOUT_SECONDS"])) as watch:
            stored = _execute(config, plan, watch, rows)
    except RunStopped as stop:
        if stop.reason:
            _mark(run_id, name, status="failed", error=stop.reason, rows_in=rows["in"])
        log.info("run %s stopped: %s", run_id, stop.reason or "cancelled or taken away")
        return
    except PipelineError as exc:
        _mark(run_id, name, status="failed", error=str(exc), rows_in=rows["in"])
        return
    except Exception:
        log.exception("run %s failed unexpectedly", run_id)
        db.session.rollback()
        _mark(run_id, name, status="failed", error=INTERNAL_ERROR)
        return
    try:
        _publish(run_id, name, plan, stored, rows["in"], rows["out"])
    finally:
        stored.release()  # storage keeps new files locked until a row refers to them


def _execute(config, plan, watch, rows):
    """Run the query into a staged file and store it; the :class:`StoredFile`."""
    max_steps = int(config["PIPELINE_MAX_STEPS"])
    if len(plan["steps"]) > max_steps:
        raise PipelineError(f"the pipeline has {len(plan['steps'])} steps; at most "
                            f"{max_steps} are allowed (PIPELINE_MAX_STEPS)")
    storage = get_storage()
    fmt = plan["output_format"]
    # Staged in the run's own folder first: the long part leaves nothing in storage if
    # the worker dies; storage then gets a quick atomic copy.
    work = tempfile.mkdtemp(prefix="datahub-run-", dir=config.get("PIPELINE_TEMP_DIR"))
    try:
        inputs = contextlib.ExitStack()
        try:
            # The stored files themselves, or (S3) copies in the run's folder.
            local = {key: inputs.enter_context(storage.local_copy(key, work))
                     for key in dict.fromkeys([plan["source_key"], *plan["joins"].values()])}
        except FileNotFoundError:
            inputs.close()
            raise PipelineError("an input dataset's file is missing from storage") from None
        except StorageUnavailable:
            inputs.close()
            raise PipelineError("the storage is unavailable (see the worker's log)") from None
        except InsufficientStorage:
            inputs.close()
            raise PipelineError(NO_ROOM_FOR_INPUTS) from None
        source = local[plan["source_key"]]
        joined = {dataset_id: local[key] for dataset_id, key in plan["joins"].items()}
        paths = {local[key]: label for key, label in plan["names"].items()}
        spill = os.path.join(work, "spill")
        os.mkdir(spill)
        output = os.path.join(work, "output" + tabular.SUFFIXES[fmt])
        paths[output] = "the output file"
        with inputs:
            con = tabular.connect([source, *joined.values()], [output],
                                  memory_limit=config["PIPELINE_MEMORY_LIMIT"],
                                  threads=config.get("PIPELINE_THREADS"), temp_dir=spill)
            watch.con = con
            try:
                rows["out"] = _query(con, config, plan, source, joined, output, paths, watch)
                rows["in"] = engine.rows_scanned(con, source, plan["source_format"])
            except duckdb.InterruptException:  # a stop during the count that follows
                watch.raise_if_stopped()
                raise
            finally:
                watch.con = None
                con.close()
        watch.raise_if_stopped()
        try:
            with open(output, "rb") as staged:
                stored = storage.save(iter(lambda: staged.read(CHUNK_BYTES), b""))
        except StorageUnavailable:
            raise PipelineError("the storage is unavailable (see the worker's log)") from None
        except InsufficientStorage:
            raise PipelineError("the storage has no room for the output") from None
        try:
            watch.raise_if_stopped()
        except RunStopped:
            discard(stored)
            stored.release()
            raise
        return stored
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _query(con, config, plan, source, joined, output, paths, watch):
    max_line = int(config["PIPELINE_MAX_LINE_SIZE"])

    def read(path):
        """``(format, sql, params)`` of an input file."""
        try:
            fmt = tabular.detect_format(path)
            return (fmt, *tabular.source_sql(path, fmt, max_line,
                                             int(config["PIPELINE_MAX_COLUMNS"])))
        except tabular.NotTabular as exc:
            raise PipelineError(f"{paths[path]} cannot be read as a table: {exc}") from None

    plan["source_format"], source_sql, params = read(source)
    joins = {dataset_id: read(path)[1:] for dataset_id, path in joined.items()}
    try:
        query = engine.compile_steps(con, source_sql, params, plan["steps"], joins,
                                     int(config["PIPELINE_MAX_COLUMNS"]), paths)
        watch.raise_if_stopped()
        return engine.write(query, output, plan["output_format"])
    except duckdb.InterruptException:
        watch.raise_if_stopped()
        raise
    except PipelineError:
        watch.raise_if_stopped()
        raise
    except duckdb.OutOfMemoryException as exc:
        raise PipelineError(
            f"the run needs more memory than PIPELINE_MEMORY_LIMIT "
            f"({config['PIPELINE_MEMORY_LIMIT']}) allows, even spilling to disk: "
            f"{tabular.clean_error(exc, paths)}") from None
    except duckdb.IOException as exc:
        raise PipelineError(f"the run could not read or write a file: "
                            f"{tabular.clean_error(exc, paths)}") from None
    except tabular.DATA_ERRORS as exc:
        watch.raise_if_stopped()
        raise PipelineError(f"the run failed: {tabular.clean_error(exc, paths)}") from None


def _publish(run_id, name, plan, stored, rows_in, rows_out):
    """In one transaction: point the output dataset at the new file and mark the run
    succeeded. If the run is no longer ours, or the name belongs to someone else's
    dataset, the new file is removed and the previous output stays."""
    try:
        run = db.session.scalar(sa.select(Run).where(Run.id == run_id).with_for_update())
        if run is None or run.status != "running" or run.worker != name:
            discard(stored)
            return
        output_name = plan["output_name"]
        dataset = db.session.scalar(
            sa.select(Dataset).where(Dataset.name_key == name_key(output_name)).with_for_update()
        )
        now = utcnow()
        if dataset is None:
            dataset = Dataset(name=output_name, name_key=name_key(output_name),
                              description=f"Output of pipeline {plan['pipeline_name']}",
                              owner_id=plan["owner_id"], created_at=now)
            dataset.tags = []
            db.session.add(dataset)
        elif dataset.owner_id != plan["owner_id"]:
            raise PipelineError(f"the output dataset name {output_name!r} belongs to another "
                                "user's dataset; choose another output_dataset_name")
        fmt = plan["output_format"]
        suffix = tabular.SUFFIXES[fmt]
        previous = set_file(dataset, stored, output_name[:255 - len(suffix)] + suffix,
                            tabular.CONTENT_TYPES[fmt], now)
        db.session.flush()
        run.status = "succeeded"
        run.finished_at = now
        run.rows_in, run.rows_out = rows_in, rows_out
        run.output_dataset_id = dataset.id
        run.error = None
        db.session.commit()
    except PipelineError as exc:
        discard(stored)
        _mark(run_id, name, status="failed", error=str(exc), rows_in=rows_in)
        return
    except sa.exc.IntegrityError:
        discard(stored)
        _mark(run_id, name, status="failed", rows_in=rows_in,
              error=f"the output dataset name {plan['output_name']!r} was taken meanwhile")
        return
    except BaseException:
        discard(stored)
        raise
    drop_replaced(previous, stored)
