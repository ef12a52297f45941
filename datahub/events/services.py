"""Reading events: who may read which, and pages in id order."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.models import Dataset
from datahub.events.models import Event
from datahub.pipelines.models import Pipeline
from datahub.platform.database import isoformat
from datahub.resources.access import is_admin, readable_clause


def _about_readable(model, column, user):
    """The event is about a ``model`` row ``user`` may read now; or about one deleted
    since, which was not private when the event happened."""
    exists = sa.exists().where(model.id == column)
    return sa.and_(
        column.is_not(None),
        sa.or_(
            exists.where(readable_clause(model, user)),
            sa.and_(~exists, Event.private.is_(False)),
        ),
    )


def readable_events(query, user):
    """Only the events ``user`` may read (docs: Events, "Who sees which events")."""
    if is_admin(user):
        return query
    return query.where(
        sa.or_(
            Event.owner_id == user.id,
            _about_readable(Dataset, Event.dataset_id, user),
            _about_readable(Pipeline, Event.pipeline_id, user),
        )
    )


def events_query(args, user):
    query = sa.select(Event).where(Event.id > args["after"])
    if args.get("before") is not None:
        query = query.where(Event.id < args["before"]).order_by(Event.id.desc())
    else:
        query = query.order_by(Event.id)
    if args.get("event_type"):
        query = query.where(Event.type == args["event_type"])
    if args.get("dataset_id"):
        query = query.where(Event.dataset_id == args["dataset_id"])
    return readable_events(query, user)


def events_page(args, user):
    items = db.session.scalars(events_query(args, user).limit(args["limit"])).all()
    page = {"items": [cloud_event(event) for event in items]}
    if args.get("before") is None:
        page["next_after"] = items[-1].id if items else args["after"]
        return page
    page["next_after"] = max((event.id for event in items), default=args["after"])
    page["next_before"] = items[-1].id if len(items) == args["limit"] else None
    return page


def cloud_event(event):
    """``event`` as a CloudEvent 1.0 in structured JSON."""
    return {
        "specversion": "1.0",
        "id": str(event.id),
        "source": event.source,
        "type": event.type,
        "time": isoformat(event.time),
        "datacontenttype": "application/json",
        "data": event.data,
    }
