"""One run, start to finish: read the source CSV, apply the steps, write the output file
atomically through the dataset storage, and record the outcome."""
import csv
import io
import logging
import tempfile
import time

import sqlalchemy as sa

from datahub.database import utcnow
from datahub.datasets.models import Dataset
from datahub.datasets.services import discard, drop_replaced, set_file
from datahub.datasets.storage import get_storage
from datahub.extensions import db
from datahub.pipelines.engine import PipelineError, apply_steps, check_every, read_csv
from datahub.pipelines.models import Pipeline, Run
from datahub.resources import name_key

log = logging.getLogger("datahub.pipelines.execute")

CHUNK_BYTES = 64 * 1024
INTERNAL_ERROR = "internal error while executing the run (see the worker's log)"


class RunStopped(Exception):
    """The run is no longer ours to finish. ``reason`` set: fail it with that error;
    None: someone else already decided its status (cancel, stale, deleted)."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class Counter:
    """Counts the rows passing through and calls ``check`` every few rows (fewer the
    wider the rows: about every ``engine.CHECK_CELLS`` cells)."""

    def __init__(self, rows, check, width):
        self.rows, self.check, self.count = rows, check, 0
        self.every = check_every(width)

    def __iter__(self):
        check, every = self.check, self.every
        for row in self.rows:
            self.count += 1
            if self.count % every == 0:
                check()
            yield row


def with_deadline(check, seconds):
    """``check`` that also stops the run once it has worked for ``seconds``."""
    deadline = time.monotonic() + seconds

    def checked():
        check()
        if time.monotonic() > deadline:
            raise RunStopped(f"the run took longer than {seconds:g} seconds "
                             "(PIPELINE_MAX_RUN_SECONDS) and was stopped")

    return checked


def csv_chunks(header, rows):
    """The output CSV as UTF-8 byte chunks of about ``CHUNK_BYTES``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(row)
        if buffer.tell() >= CHUNK_BYTES:
            yield buffer.getvalue().encode("utf-8")
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode("utf-8")


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


def execute_run(app, run_id, name, check):
    run = db.session.get(Run, run_id)
    pipeline = db.session.get(Pipeline, run.pipeline_id) if run else None
    if pipeline is None:
        db.session.rollback()
        return
    plan = {
        "steps": list(pipeline.steps or []),
        "owner_id": pipeline.owner_id,
        "pipeline_name": pipeline.name,
        "output_name": pipeline.output_dataset_name,
    }
    source = db.session.get(Dataset, pipeline.source_dataset_id) \
        if pipeline.source_dataset_id else None
    source_key = source.file_key if source else None
    db.session.commit()  # no transaction stays open while the run works
    if source is None:
        _mark(run_id, name, status="failed", error="the source dataset no longer exists")
        return
    if source_key is None:
        _mark(run_id, name, status="failed", error="the source dataset has no file")
        return

    config = app.config
    check = with_deadline(check, float(config["PIPELINE_MAX_RUN_SECONDS"]))
    counter = None
    try:
        max_steps = int(config["PIPELINE_MAX_STEPS"])
        if len(plan["steps"]) > max_steps:
            raise PipelineError(f"the pipeline has {len(plan['steps'])} steps; at most "
                                f"{max_steps} are allowed (PIPELINE_MAX_STEPS)")
        storage = get_storage()
        try:
            handle = storage.open(source_key)
        except FileNotFoundError:
            raise PipelineError("the source dataset's file is missing from storage") from None
        with handle:
            header, rows = read_csv(
                handle, max_columns=int(config["PIPELINE_MAX_COLUMNS"]),
                max_field_size=int(config["PIPELINE_MAX_FIELD_SIZE"]),
                max_line_size=int(config["PIPELINE_MAX_LINE_SIZE"]))
            counter = Counter(rows, check, len(header))
            header, out = apply_steps(
                header, counter, plan["steps"], int(config["PIPELINE_SORT_MEMORY_ROWS"]),
                temp_dir=config.get("PIPELINE_TEMP_DIR"), check=check,
                memory_cells=int(config["PIPELINE_SORT_MEMORY_CELLS"]),
            )
            written = Counter(out, check, len(header))
            # Staged in an anonymous temporary file first: the long part leaves nothing
            # behind if the worker dies; storage then gets a quick atomic copy.
            with tempfile.TemporaryFile(dir=app.config.get("PIPELINE_TEMP_DIR")) as staged:
                for chunk in csv_chunks(header, written):
                    staged.write(chunk)
                check()
                staged.seek(0)
                stored = storage.save(iter(lambda: staged.read(CHUNK_BYTES), b""))
    except RunStopped as stop:
        if stop.reason:
            _mark(run_id, name, status="failed", error=stop.reason,
                  rows_in=counter.count if counter else None)
        log.info("run %s stopped: %s", run_id, stop.reason or "cancelled or taken away")
        return
    except PipelineError as exc:
        _mark(run_id, name, status="failed", error=str(exc),
              rows_in=counter.count if counter else None)
        return
    except Exception:
        log.exception("run %s failed unexpectedly", run_id)
        db.session.rollback()
        _mark(run_id, name, status="failed", error=INTERNAL_ERROR)
        return
    try:
        _publish(run_id, name, plan, stored, counter.count, written.count)
    finally:
        stored.release()  # storage keeps new files locked until a row refers to them


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
        previous = set_file(dataset, stored, output_name[:251] + ".csv", "text/csv", now)
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
