"""What the events about a pipeline and its runs say (docs/guides/events.rst)."""

from datahub.app.extensions import db
from datahub.events import outbox
from datahub.pipelines.models import Pipeline, Run
from datahub.platform.database import isoformat


def _time(value):
    return isoformat(value) if value is not None else None


def describe_pipeline(pipeline):
    data = {
        "id": pipeline.id,
        "name": pipeline.name,
        "owner_id": pipeline.owner_id,
        "visibility": pipeline.visibility,
        "output_dataset_name": pipeline.output_dataset_name,
    }
    source = f"/api/v1/pipelines/{pipeline.id}"
    return outbox.about(source, data, pipeline, pipeline_id=pipeline.id)


def describe_run(run):
    data = {
        "id": run.id,
        "pipeline_id": run.pipeline_id,
        "status": run.status,
        "triggered_by": run.triggered_by,
        "created_at": _time(run.created_at),
        "started_at": _time(run.started_at),
        "finished_at": _time(run.finished_at),
        "rows_in": run.rows_in,
        "rows_out": run.rows_out,
        "output_dataset_id": run.output_dataset_id,
        "output_version": run.output_version,
        "error": run.error,
    }
    source = f"/api/v1/pipelines/{run.pipeline_id}/runs/{run.id}"
    pipeline = db.session.get(Pipeline, run.pipeline_id)
    return outbox.about(source, data, pipeline, pipeline_id=run.pipeline_id)


def record_pipeline(type_, pipeline):
    outbox.record(type_, pipeline, describe_pipeline)


def record_run(type_, run):
    outbox.record(type_, run, describe_run)


def record_run_by_id(type_, run_id):
    """:func:`record_run` for a run an UPDATE statement changed (read back in this
    transaction); nothing if it is gone."""
    run = db.session.get(Run, run_id, populate_existing=True)
    if run is not None:
        record_run(type_, run)
