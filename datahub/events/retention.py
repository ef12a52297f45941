"""Retention: events older than ``EVENTS_RETENTION_DAYS`` are removed by a pipeline
worker's periodic sweep (docs/guides/events.rst, "Retention")."""

from datetime import timedelta

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.events.models import Event
from datahub.platform.database import utcnow


def prune_events(days):
    """Delete the events older than ``days`` days (``EVENTS_RETENTION_DAYS``); how many."""
    result = db.session.execute(
        sa.delete(Event)
        .where(Event.time < utcnow() - timedelta(days=float(days)))
        .execution_options(synchronize_session=False)
    )
    db.session.commit()
    return result.rowcount
