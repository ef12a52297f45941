"""Runs that start themselves (docs/guides/events.rst, "Triggers"): a pipeline's
``trigger`` is ``{"on": "new_version"}`` (a new version of its source or of a dataset it
joins) or ``{"cron": "0 3 * * *", "timezone": "Europe/Oslo"}`` (croniter reads it).

A trigger sets ``pipelines.pending_trigger``: in the new version's own transaction, or, for
a schedule, by the one worker whose conditional UPDATE moves ``next_run_at`` on (so each due
time is taken once, whatever the number of workers and hosts; a time missed while no worker
ran is taken once, then the next is counted from now). :func:`sweep`, which every worker
process runs, then queues one run per pending pipeline that has none queued or running:
versions arriving while a run is active make exactly one more run after it, never a 409.
"""

import logging

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.events import outbox
from datahub.pipelines.models import ACTIVE_STATUSES, Pipeline, Run
from datahub.pipelines.schedules import NEW_VERSION, SCHEDULE, next_due
from datahub.pipelines.services import start_run
from datahub.platform.database import utcnow
from datahub.platform.errors import DomainError

log = logging.getLogger("datahub.pipelines.triggers")


def inputs_of(source_dataset_id, steps):
    return {source_dataset_id} | {
        step.get("dataset_id") for step in steps or () if step.get("op") == "join"
    }


@outbox.subscribe("datahub.dataset.version.created")
def _new_version(version):
    """In the version's transaction: every pipeline triggered by new versions of this
    dataset wants a run (not the pipeline whose run made it: it would run forever)."""
    made_by = db.session.get(Run, version.run_id).pipeline_id if version.run_id else None
    rows = db.session.execute(
        sa.select(Pipeline.id, Pipeline.source_dataset_id, Pipeline.steps, Pipeline.trigger).where(
            Pipeline.trigger.is_not(None)
        )
    ).all()
    wanted = [
        row.id
        for row in rows
        if (row.trigger or {}).get("on") == NEW_VERSION
        and row.id != made_by
        and version.dataset_id in inputs_of(row.source_dataset_id, row.steps)
    ]
    if wanted:
        db.session.execute(
            sa.update(Pipeline)
            .where(Pipeline.id.in_(wanted))
            .values(pending_trigger=sa.func.coalesce(Pipeline.pending_trigger, NEW_VERSION))
            .execution_options(synchronize_session=False)
        )


def _take_due_schedules(now):
    due = db.session.execute(
        sa.select(Pipeline.id, Pipeline.next_run_at, Pipeline.trigger).where(
            Pipeline.next_run_at <= now
        )
    ).all()
    db.session.commit()
    for row in due:
        taken = db.session.execute(
            sa.update(Pipeline)
            .where(Pipeline.id == row.id, Pipeline.next_run_at == row.next_run_at)
            .values(
                next_run_at=next_due(row.trigger, now),
                pending_trigger=sa.func.coalesce(Pipeline.pending_trigger, SCHEDULE),
            )
            .execution_options(synchronize_session=False)
        )
        db.session.commit()
        if taken.rowcount:
            log.info("pipeline %s: its schedule is due", row.id)


def _queue_pending(pipeline_id):
    query = sa.select(Pipeline).where(Pipeline.id == pipeline_id).with_for_update()
    pipeline = db.session.scalar(query.execution_options(populate_existing=True))
    if pipeline is None or pipeline.pending_trigger is None:
        db.session.rollback()
        return None
    triggered_by, pipeline.pending_trigger = pipeline.pending_trigger, None
    try:
        return start_run(pipeline, triggered_by=triggered_by)
    except DomainError as refused:  # one active already, or the owner's queue is full
        db.session.rollback()
        log.debug("pipeline %s: triggered run waits: %s", pipeline_id, refused.message)
        return None


def sweep():
    """Take the due schedules, then queue a run for each pipeline that wants one and has
    none active; the runs queued."""
    _take_due_schedules(utcnow())
    active = sa.select(Run.pipeline_id).where(Run.status.in_(ACTIVE_STATUSES))
    waiting = db.session.scalars(
        sa.select(Pipeline.id).where(
            Pipeline.pending_trigger.is_not(None), Pipeline.id.not_in(active)
        )
    ).all()
    db.session.commit()
    return [run for run in map(_queue_pending, waiting) if run is not None]
