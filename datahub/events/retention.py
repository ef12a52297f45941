"""Retention: events older than ``EVENTS_RETENTION_DAYS`` are removed by a pipeline
worker's periodic sweep (docs/guides/events.rst, "Retention")."""

from datetime import timedelta

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.events.models import Event
from datahub.platform.database import utcnow

BATCH = 1000


def prune_events(days, batch=BATCH):
    """Delete the events older than ``days`` days (``EVENTS_RETENTION_DAYS``), oldest
    first; how many.

    Events are walked in id order, which is the order of their times to within a
    commit's wait (an event's time is read as its change commits, and ids are given in
    commit order), and the walk stops at the first event that is not old enough. So no
    index on ``time`` is kept up to date at every event's write; an event whose host's
    clock ran ahead only holds back the removal of those after it, never removes one
    early. Each batch is its own transaction."""
    cutoff = utcnow() - timedelta(days=float(days))
    removed = 0
    while True:
        oldest = db.session.execute(sa.select(Event.id, Event.time).order_by(Event.id).limit(batch))
        rows = oldest.all()
        old = 0
        while old < len(rows) and rows[old].time < cutoff:
            old += 1
        if old:
            removed += db.session.execute(
                sa.delete(Event)
                .where(Event.id <= rows[old - 1].id)
                .execution_options(synchronize_session=False)
            ).rowcount
        db.session.commit()
        if old < batch:
            return removed
