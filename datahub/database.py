"""Database helpers shared by every feature: UTC timestamps and SQLite tuning."""
from datetime import datetime, timezone

import sqlalchemy as sa
from flask import has_request_context, request
from sqlalchemy import event

_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def utcnow():
    return datetime.now(timezone.utc)


class UTCDateTime(sa.types.TypeDecorator):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


def isoformat(value):
    """ISO 8601 with a ``Z``: what every timestamp field in the API looks like."""
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def tune_sqlite(engine, busy_timeout_ms):
    """WAL and a busy timeout, so several gunicorn workers can write at once.

    Requests that may write (any method but GET/HEAD/OPTIONS) start with BEGIN IMMEDIATE,
    taking the write lock up front: a deferred transaction that reads and then writes
    cannot wait out another writer, and SQLite answers "database is locked" at once
    instead of honouring the busy timeout. Reads stay deferred so they run in parallel.
    """
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # let us issue BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        if connection.get_execution_options().get("isolation_level") == "AUTOCOMMIT":
            return
        reading = has_request_context() and request.method in _READ_METHODS
        connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")
