"""Writing events (docs/guides/events.rst, "Never lost, never for a rolled-back change").

A change calls :func:`record` before its commit; the commit writes the events in its own
transaction, so an event exists exactly when its change does. Event ids are the order
readers page by (``after=<id>``), so they must become visible in id order: on PostgreSQL a
transaction that writes events takes a transaction-scoped advisory lock just before its
events get their ids and holds it until it commits (everything else it changes is flushed
first, so the lock covers the events' insert and the commit only); SQLite has one writer
at a time, whose ids are committed in the order they are given.
"""

from sqlalchemy import event

from datahub.app.extensions import db
from datahub.events.models import Event
from datahub.platform.database import utcnow

_PENDING = "datahub_events"
# pg_advisory_xact_lock's key: any constant no other lock of ours uses ("datahub" + 1).
OUTBOX_LOCK = 0x6461746168756201

TYPES = (
    "datahub.dataset.created",
    "datahub.dataset.updated",
    "datahub.dataset.deleted",
    "datahub.dataset.version.created",
    "datahub.dataset.version.quarantined",
    "datahub.pipeline.created",
    "datahub.pipeline.updated",
    "datahub.pipeline.deleted",
    "datahub.run.queued",
    "datahub.run.started",
    "datahub.run.succeeded",
    "datahub.run.failed",
    "datahub.run.cancelled",
)


def about(source, data, resource, dataset_id=None, pipeline_id=None):
    """What an event says and who may read it (datahub.events.services): ``resource`` is
    the dataset or pipeline it is about (None once deleted), whose owner and visibility
    now are kept with it."""
    return {
        "source": source,
        "data": data,
        "dataset_id": dataset_id,
        "pipeline_id": pipeline_id,
        "owner_id": resource.owner_id if resource is not None else None,
        "private": resource is not None and resource.visibility == "private",
    }


_SUBSCRIBERS = {}


def subscribe(type_):
    """A decorator: ``callback(row)`` runs for each event of ``type_``, in the transaction
    of its change, at its commit (what must happen with the change or not at all, such as
    a pipeline's trigger)."""
    assert type_ in TYPES, type_

    def decorator(callback):
        _SUBSCRIBERS.setdefault(type_, []).append(callback)
        return callback

    return decorator


def record(type_, row, describe):
    """Write event ``type_`` about ``row`` with the session's next commit, nothing if it
    rolls back. ``describe(row)`` is :func:`about` the row, called at the commit (a new row
    has its id then), or now for a row being deleted."""
    assert type_ in TYPES, type_
    described = describe(row) if type_.endswith(".deleted") else None
    db.session.info.setdefault(_PENDING, []).append((type_, row, describe, described))


def has_pending(session):
    """Whether the session holds events for its next commit."""
    return bool(session.info.get(_PENDING))


@event.listens_for(db.session, "before_commit")
def _write_events(session):
    pending = session.info.pop(_PENDING, None)
    if not pending:
        return
    session.flush()  # new rows get their ids; the lock below then covers the insert only
    for type_, row, _describe, _described in pending:
        for callback in _SUBSCRIBERS.get(type_, ()):
            callback(row)
    now = utcnow()
    connection = session.connection()
    insert, processors = _insert_for(connection.dialect)
    rows = []
    for type_, row, describe, described in pending:
        values = {"type": type_, "time": now, **(described or describe(row))}
        for name, process in processors:
            values[name] = process(values[name])
        rows.append(values)
    connection.exec_driver_sql(insert, rows if len(rows) > 1 else rows[0])


_COLUMNS = ("type", "source", "time", "data", "dataset_id", "pipeline_id", "owner_id", "private")
_INSERTS = {}


def _insert_for(dialect):
    """The events' INSERT as the driver runs it, and the columns' bind processors (the
    types' own, from SQLAlchemy). Run with ``exec_driver_sql``: the statement is built once,
    not compiled and looked up in the statement cache at every commit, about a quarter
    of the outbox's cost (bench/README.rst, "Events").

    On PostgreSQL the statement takes the outbox lock (again held, after the first event)
    before the insert: an event's id comes from the sequence only once the lock is held,
    in the same round trip."""
    key = (dialect.name, dialect.driver)
    if key not in _INSERTS:
        table = Event.__table__
        columns = ", ".join(_COLUMNS)
        if dialect.name == "postgresql":  # psycopg's %(name)s parameters, each cast to its column
            values = ", ".join(
                f"%({name})s::{table.c[name].type.compile(dialect=dialect)}" for name in _COLUMNS
            )
            sql = (
                f"INSERT INTO {table.name} ({columns}) SELECT {values} "
                f"FROM (SELECT pg_advisory_xact_lock({OUTBOX_LOCK})) AS lock"
            )
        else:  # sqlite3's :name parameters
            values = ", ".join(f":{name}" for name in _COLUMNS)
            sql = f"INSERT INTO {table.name} ({columns}) VALUES ({values})"
        processors = []
        for name in _COLUMNS:
            process = table.c[name].type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                processors.append((name, process))
        _INSERTS[key] = (sql, processors)
    return _INSERTS[key]


@event.listens_for(db.session, "after_transaction_end")
def _forget_events(session, transaction):
    if transaction.parent is None:  # rolled back: its events go with it
        session.info.pop(_PENDING, None)
