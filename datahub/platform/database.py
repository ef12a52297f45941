"""Database helpers shared by every feature: UTC timestamps, ids and name filters, SQLite
tuning, and the per-request user lookup's connections.

:class:`LookupConnections` is every use of SQLAlchemy below its ORM and pool (one module, so
that an upgrade shows here; ``tests/test_library_shapes.py`` fails when one changes):
``engine.raw_connection()``, the pooled connection's ``driver_connection`` and ``detach()``,
``dialect.loaded_dbapi``, ``DBAPIError.instance`` to raise a DB-API error as SQLAlchemy
would, psycopg's ``autocommit``; and :func:`driver_sql`, the driver's SQL of a statement
(``compiled.positional``, ``compiled.positiontup``). Off (``AUTH_LOOKUP_DIRECT_CONNECTIONS``
false): each lookup checks a connection out of the pool (``engine.connect()``) and runs the
same SQL with ``exec_driver_sql``.
"""

import contextlib
import os
import threading
import weakref
from datetime import datetime, timezone

import sqlalchemy as sa
from sqlalchemy import event

# An execution option: this connection only reads, so SQLite's BEGIN need not take the
# write lock whatever the request's method.
READS_ONLY = "datahub_reads_only"


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
    """ISO 8601 with a ``Z``: the timestamps in events and in the logs (a resource's
    timestamp fields are its schema's, with ``+00:00``)."""
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


MAX_ID = 2**31 - 1  # integer primary keys; a bigger id cannot exist


def valid_id(value):
    """Whether ``value`` can be an integer primary key."""
    return isinstance(value, int) and 1 <= value <= MAX_ID


def contains_pattern(text):
    """A LIKE pattern matching ``text`` anywhere, with LIKE's wildcards escaped (``\\``)."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def tune_sqlite(engine, busy_timeout_ms, reads_only=lambda: False):
    """WAL and a busy timeout, so several gunicorn workers can write at once.

    Transactions that may write start with BEGIN IMMEDIATE, taking the write lock up
    front: a deferred transaction that reads and then writes cannot wait out another
    writer, and SQLite answers "database is locked" at once instead of honouring the busy
    timeout. Reads stay deferred so they run in parallel: those of a connection with the
    :data:`READS_ONLY` option, and whenever ``reads_only()`` says so (the app: a request
    whose method is GET, HEAD or OPTIONS).
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
        options = connection.get_execution_options()
        if options.get("isolation_level") == "AUTOCOMMIT":
            return
        reading = options.get(READS_ONLY) or reads_only()
        connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")


WROTE = "datahub_wrote"  # Connection.info: this transaction ran more than SELECTs


def end_reads_with_commit(engine):
    """On PostgreSQL, note in each transaction whether it ran anything but a SELECT, for
    :func:`end_transaction`. True when it did (the engine is PostgreSQL's). A SELECT is
    taken to change nothing that a COMMIT would keep and a ROLLBACK undo: the service's
    SELECTs that take locks (``FOR UPDATE``, advisory locks) release them either way."""
    if engine.dialect.name != "postgresql":
        return False

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        connection.info[WROTE] = False

    @event.listens_for(engine, "before_cursor_execute")
    def _on_execute(connection, _cursor, statement, *_args):
        if not statement.startswith("SELECT"):
            connection.info[WROTE] = True

    return True


def end_transaction(session):
    """End the session's transaction with COMMIT when it only read (no statement but
    SELECTs, nothing pending): the same outcome as the ROLLBACK that closing the session
    would send, but psycopg drops every statement it prepared on a rollback, and with a
    rollback at the end of each request it never prepares one (PostgreSQL then parses
    and plans every statement each time: bench/README.rst, "Events"). A transaction that
    wrote is left to that rollback."""
    if not session.in_transaction() or session.new or session.dirty or session.deleted:
        return
    connection = session.connection()
    if connection.info.get(WROTE, True):
        return
    # Nothing expires, as nothing does when the session closes: objects loaded here stay
    # readable after the context, as they were.
    expire, session.expire_on_commit = session.expire_on_commit, False
    try:
        session.commit()
    finally:
        session.expire_on_commit = expire


def driver_sql(statement, dialect):
    """``(sql, names)``: the statement's SQL as the DB-API driver takes it, and for a
    positional paramstyle the order of its parameters by name (else None)."""
    compiled = statement.compile(dialect=dialect)
    return str(compiled), (tuple(compiled.positiontup) if compiled.positional else None)


def _close_connections(opened):
    pid = os.getpid()
    for owner, connection in opened:
        if owner == pid:  # never one inherited through fork(): it is the parent's
            _close(connection)
    opened.clear()


def _close(connection):
    with contextlib.suppress(Exception):  # closing a dead connection may fail: it is gone
        connection.close()


class LookupConnections:
    """Connections for one small, frequent read (the per-request user lookup), in
    autocommit: each lookup reads what is committed at that moment.

    With ``direct`` (``AUTH_LOOKUP_DIRECT_CONNECTIONS``), DB-API connections of this
    process's own: an idle one, else a new one. They are kept (at most ``max_idle`` idle,
    shared by the threads) rather than checked out of the pool each time: a pool checkout
    and return, with PostgreSQL's pre-ping round trip, cost more than the query itself
    (bench/README.rst). Each is made by the pool (the same connect setup), then detached
    from it, so it takes no slot from the ORM's sessions. Without ``direct``, each lookup
    checks a connection out of the pool."""

    def __init__(self, engine, *, max_idle, direct=True):
        self.engine = engine
        self.max_idle = max_idle
        self.direct = direct
        self.postgres = engine.dialect.name == "postgresql"
        self.idle = []  # (pid, connection) free for a lookup, the most recently used last
        self.lock = threading.Lock()
        self.opened = []  # (pid, connection): closed when this object goes
        weakref.finalize(self, _close_connections, self.opened)

    def fetch_one(self, sql, params):
        """The first row of ``sql`` (the driver's SQL, see :func:`driver_sql`) or None.
        DB-API errors come out as SQLAlchemy's, as from any other query. A kept connection
        that fails (the database restarted, say) is replaced and the lookup tried again."""
        if not self.direct:
            return self._fetch_one_pooled(sql, params)
        dbapi_error = self.engine.dialect.loaded_dbapi.Error
        while True:
            try:
                connection, fresh = self._acquire()
            except dbapi_error as exc:
                raise sa.exc.DBAPIError.instance(sql, params, exc, dbapi_error) from exc
            try:
                cursor = connection.cursor()
                cursor.execute(sql, params)
                row = cursor.fetchone()
                cursor.close()
            except dbapi_error as exc:
                self._discard(connection)
                if fresh:
                    raise sa.exc.DBAPIError.instance(sql, params, exc, dbapi_error) from exc
                continue
            except BaseException:
                self._discard(connection)
                raise
            self._release(connection)
            return row

    def close(self):
        """Close every connection this process opened here (also done when this object is
        collected: an app made and dropped, as the tests do, closes them at once)."""
        with self.lock:
            self.idle.clear()
        _close_connections(self.opened)

    def _fetch_one_pooled(self, sql, params):
        with self.engine.connect() as connection:
            if self.postgres:
                connection = connection.execution_options(isolation_level="AUTOCOMMIT")
            else:  # SQLite: the pool's connections keep the isolation tune_sqlite gave them
                connection = connection.execution_options(**{READS_ONLY: True})
            return connection.exec_driver_sql(sql, params).fetchone()

    def _acquire(self):
        pid = os.getpid()
        with self.lock:
            while self.idle:
                owner, connection = self.idle.pop()
                if owner == pid:  # one inherited through fork() is the parent's: dropped
                    return connection, False
        pooled = self.engine.raw_connection()  # made by the pool: the same connect setup
        connection = pooled.driver_connection
        pooled.detach()
        if self.postgres:
            connection.autocommit = True
        with self.lock:
            self.opened.append((pid, connection))
        return connection, True

    def _release(self, connection):
        with self.lock:
            if len(self.idle) < self.max_idle:
                self.idle.append((os.getpid(), connection))
                return
        self._discard(connection)

    def _discard(self, connection):
        with self.lock:
            self.opened.remove((os.getpid(), connection))
        _close(connection)  # it may be dead: never use it again
