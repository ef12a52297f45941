"""Runs that start themselves (docs/guides/events.rst, "Triggers"): a pipeline's
``trigger`` is ``{"on": "new_version"}`` (a new version of its source or of a dataset it
joins) or ``{"cron": "0 3 * * *", "timezone": "Europe/Oslo"}`` (croniter reads it).

A trigger sets ``pipelines.pending_trigger``: in the new version's own transaction, or, for
a schedule, by the one worker whose conditional UPDATE moves ``next_run_at`` on (so each due
time is taken once, whatever the number of workers and hosts; a time missed while no worker
ran is taken once, then the next is counted from now). :func:`sweep`, which every worker
process runs, then queues one run per pending pipeline that has none queued or running:
versions arriving while a run is active make exactly one more run after it, never a 409.

A new version triggers only pipelines whose owner may still read it and their other inputs
(checked again as the run is queued), and none already in its triggered lineage
(datahub.pipelines.cycles). Each pipeline is swept in its own transaction: one that fails
has its trigger turned off, with the reason in ``trigger_disabled_reason``, and the others
go on.
"""

import logging

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.models import Dataset
from datahub.events import outbox
from datahub.identity.models import User
from datahub.pipelines import schedules
from datahub.pipelines.cycles import inputs_of, triggered_lineage
from datahub.pipelines.models import ACTIVE_STATUSES, Pipeline, Run
from datahub.pipelines.schedules import NEW_VERSION, SCHEDULE, next_due, on_new_version
from datahub.pipelines.services import start_run
from datahub.platform.database import utcnow
from datahub.platform.errors import DomainError
from datahub.resources import access

log = logging.getLogger("datahub.pipelines.triggers")
FAILED = "the trigger failed (an internal error, logged); change the trigger to turn it on again"


def owner_may_read(owner_id, dataset_ids, known=None):
    """Whether the pipeline's owner is active and may read each of ``dataset_ids``;
    ``known``: a dict of the answers so far, by (owner, dataset), for many pipelines."""
    known = {} if known is None else known
    for dataset_id in dataset_ids:
        if (owner_id, dataset_id) not in known:
            known[owner_id, dataset_id] = _may_read(db.session.get(User, owner_id), dataset_id)
        if not known[owner_id, dataset_id]:
            return False
    return True


def _may_read(owner, dataset_id):
    if owner is None or not owner.is_active or dataset_id is None:
        return False
    dataset = db.session.get(Dataset, dataset_id)
    return dataset is not None and access.may_read(owner, dataset)


@outbox.subscribe("datahub.dataset.version.created")
def _new_version(version):
    """In the version's transaction: every pipeline triggered by new versions of this
    dataset wants a run, if its owner may read its inputs and it is not in the version's
    triggered lineage (a pipeline's own output, a loop of pipelines: it would run forever)."""
    rows = db.session.execute(
        sa.select(
            Pipeline.id,
            Pipeline.owner_id,
            Pipeline.source_dataset_id,
            Pipeline.steps,
            Pipeline.trigger,
        ).where(
            Pipeline.trigger.is_not(None),
            Pipeline.trigger_disabled_reason.is_(None),
            Pipeline.pending_trigger.is_(None),  # the others want a run already
        )
    ).all()
    candidates = [
        row
        for row in rows
        if on_new_version(row.trigger)
        and version.dataset_id in inputs_of(row.source_dataset_id, row.steps)
    ]
    if not candidates:
        return
    lineage = triggered_lineage(version.run_id) if version.run_id else set()
    if lineage is None:
        log.warning("dataset %s: its version's lineage is too long to trigger", version.dataset_id)
        return
    known = {}
    wanted = [
        row.id
        for row in candidates
        if row.id not in lineage
        and owner_may_read(row.owner_id, inputs_of(row.source_dataset_id, row.steps), known)
    ]
    if wanted:
        db.session.execute(
            sa.update(Pipeline)
            .where(Pipeline.id.in_(wanted))
            .values(pending_trigger=sa.func.coalesce(Pipeline.pending_trigger, NEW_VERSION))
            .execution_options(synchronize_session=False)
        )


def _disable(pipeline_id, reason, *conditions):
    """Turn the pipeline's trigger off, saying why (its own transaction)."""
    db.session.rollback()
    db.session.execute(
        sa.update(Pipeline)
        .where(Pipeline.id == pipeline_id, *conditions)
        .values(next_run_at=None, pending_trigger=None, trigger_disabled_reason=reason[:255])
        .execution_options(synchronize_session=False)
    )
    db.session.commit()


def _isolated(pipeline_id, work, *args):
    """``work(*args)`` for one pipeline; if it fails, its trigger is turned off (logged
    once: it is not swept again) and the sweep goes on with the others. A database that
    does not answer is not the pipeline's fault: logged, the trigger stays."""
    try:
        return work(*args)
    except sa.exc.OperationalError:
        db.session.rollback()
        log.warning("pipeline %s: the sweep could not reach the database", pipeline_id)
    except Exception:
        log.exception("pipeline %s: its trigger failed and is turned off", pipeline_id)
        _disable(pipeline_id, FAILED)
    return None


def _take_schedule(row, now):
    """Move the schedule's due time on and want a run, unless another worker did."""
    reason = schedules.invalid_trigger(row.trigger or {})
    if reason is None:
        try:
            following = next_due(row.trigger, now)
        except schedules.NeverDue:
            reason = schedules.NEVER_DUE
    if reason is not None:  # stored before today's checks, or no longer computable
        log.warning("pipeline %s: its schedule is turned off: %s", row.id, reason)
        _disable(row.id, f"trigger {reason}", Pipeline.next_run_at == row.next_run_at)
        return
    taken = db.session.execute(
        sa.update(Pipeline)
        .where(Pipeline.id == row.id, Pipeline.next_run_at == row.next_run_at)
        .values(
            next_run_at=following,
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
    if triggered_by == NEW_VERSION and not owner_may_read(
        pipeline.owner_id, inputs_of(pipeline.source_dataset_id, pipeline.steps)
    ):  # access withdrawn since the version came: no run, no event
        db.session.commit()
        return None
    try:
        return start_run(pipeline, triggered_by=triggered_by)
    except DomainError as refused:  # one active already, or the owner's queue is full
        db.session.rollback()
        log.debug("pipeline %s: triggered run waits: %s", pipeline_id, refused.message)
        return None


def sweep():
    """Take the due schedules, then queue a run for each pipeline that wants one and has
    none active; the runs queued. Each pipeline in its own transaction (:func:`_isolated`)."""
    now = utcnow()
    due = db.session.execute(
        sa.select(Pipeline.id, Pipeline.next_run_at, Pipeline.trigger).where(
            Pipeline.next_run_at <= now
        )
    ).all()
    db.session.commit()
    for row in due:
        _isolated(row.id, _take_schedule, row, now)
    active = sa.select(Run.pipeline_id).where(Run.status.in_(ACTIVE_STATUSES))
    waiting = db.session.scalars(
        sa.select(Pipeline.id).where(
            Pipeline.pending_trigger.is_not(None), Pipeline.id.not_in(active)
        )
    ).all()
    db.session.commit()
    runs = (_isolated(pipeline_id, _queue_pending, pipeline_id) for pipeline_id in waiting)
    return [run for run in runs if run is not None]
