"""Rate-limit counts in a small SQLite file, shared by every worker process of one host.

A ``limits`` storage (registered for ``sqlite:///<path>`` through the library's documented
custom-storage mechanism: a ``Storage`` subclass naming its ``STORAGE_SCHEME``) with the
moving window, the fixed window and the sliding window counter. Every hit is one short
write transaction (``BEGIN IMMEDIATE``), so processes and threads hitting one key at once
are serialised by SQLite's write lock and a limit of N lets exactly N through.

The counts are disposable: WAL with ``synchronous=NORMAL`` (no fsync per hit, yet a power
loss cannot corrupt the file), and entries are deleted once their window has passed.
"""

import math
import os
import sqlite3
import threading
import time
from contextlib import contextmanager

from limits.storage import MovingWindowSupport, SlidingWindowCounterSupport, Storage

SCHEME = "sqlite"

# Connections inherited across fork(). SQLite forbids using them in the child, and closing
# one there could run a checkpoint on a file other processes are writing: the child keeps
# them referenced (so they are never closed) and opens its own.
_INHERITED = []

_SCHEMA = (
    # One row per accepted hit of a moving window (n: the hit's cost).
    """CREATE TABLE IF NOT EXISTS moving_window (
        key TEXT NOT NULL, at REAL NOT NULL, expires REAL NOT NULL, n INTEGER NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS moving_window_key_at ON moving_window (key, at)",
    "CREATE INDEX IF NOT EXISTS moving_window_expires ON moving_window (expires)",
    # Fixed windows, and the two windows of a sliding window counter.
    """CREATE TABLE IF NOT EXISTS counters (
        key TEXT PRIMARY KEY, count INTEGER NOT NULL, expires REAL NOT NULL) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS counters_expires ON counters (expires)",
)


def storage_uri(path):
    """The ``RATELIMIT_STORAGE_URI`` of a file (``sqlite:////abs/path`` for an absolute one)."""
    return f"{SCHEME}:///{path}"


class SQLiteStorage(Storage, MovingWindowSupport, SlidingWindowCounterSupport):
    """``sqlite:///relative/path`` or ``sqlite:////absolute/path``.

    Options: ``timeout`` (seconds a hit waits for the write lock; past it the hit raises,
    and Flask-Limiter counts in memory until the file answers again) and
    ``prune_interval`` (seconds between sweeps of expired entries, per process).
    """

    STORAGE_SCHEME = [SCHEME]

    def __init__(self, uri, wrap_exceptions=False, timeout=5.0, prune_interval=60.0, **options):
        prefix = f"{SCHEME}:///"
        if not uri.startswith(prefix) or uri == prefix:
            raise ValueError(f"expected {prefix}<path to a file>, not {uri!r}")
        self.path = uri[len(prefix) :]
        self.timeout = float(timeout)
        self.prune_interval = float(prune_interval)
        self._next_prune = 0.0
        self._local = threading.local()
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self):
        return sqlite3.Error, OSError

    # -- connections -----------------------------------------------------------------

    def _connection(self):
        """This thread's connection, opened on first use in this process."""
        local = self._local
        db = getattr(local, "db", None)
        if db is not None and local.pid == os.getpid():
            return db
        if db is not None:
            _INHERITED.append(db)
        db = self._open()
        local.db, local.pid = db, os.getpid()
        return db

    def _open(self):
        directory = os.path.dirname(self.path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        # The keys name accounts and client addresses: owner-only, like the secret key.
        # SQLite gives its -wal and -shm files the mode of the database file.
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        db = sqlite3.connect(
            self.path, timeout=self.timeout, isolation_level=None, check_same_thread=True
        )
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute("COMMIT")
        except BaseException:
            db.close()
            raise
        return db

    @contextmanager
    def _write(self):
        """One write transaction, taking the write lock up front (no upgrade deadlock)."""
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            now = time.time()
            if now >= self._next_prune:
                self._next_prune = now + self.prune_interval
                db.execute("DELETE FROM moving_window WHERE expires <= ?", (now,))
                db.execute("DELETE FROM counters WHERE expires <= ?", (now,))
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- fixed window ----------------------------------------------------------------

    def _incr(self, db, key, expiry, amount, now):
        (count,) = db.execute(
            """INSERT INTO counters (key, count, expires) VALUES (:key, :amount, :expires)
               ON CONFLICT (key) DO UPDATE SET
                 count = CASE WHEN expires <= :now THEN excluded.count
                              ELSE count + excluded.count END,
                 expires = CASE WHEN expires <= :now THEN excluded.expires ELSE expires END
               RETURNING count""",
            {"key": key, "amount": amount, "expires": now + expiry, "now": now},
        ).fetchone()
        return count

    def _get(self, db, key, now):
        row = db.execute(
            "SELECT count FROM counters WHERE key = ? AND expires > ?", (key, now)
        ).fetchone()
        return row[0] if row else 0

    def incr(self, key, expiry, amount=1):
        """Add ``amount``; a key's window starts with its first hit and lasts ``expiry``."""
        with self._write() as db:
            return self._incr(db, key, expiry, amount, time.time())

    def get(self, key):
        return self._get(self._connection(), key, time.time())

    def get_expiry(self, key):
        now = time.time()
        row = (
            self._connection()
            .execute("SELECT expires FROM counters WHERE key = ? AND expires > ?", (key, now))
            .fetchone()
        )
        return row[0] if row else now

    # -- moving window ---------------------------------------------------------------

    def acquire_entry(self, key, limit, expiry, amount=1):
        if amount > limit:
            return False
        now = time.time()
        with self._write() as db:
            db.execute("DELETE FROM moving_window WHERE key = ? AND at <= ?", (key, now - expiry))
            (used,) = db.execute(
                "SELECT coalesce(sum(n), 0) FROM moving_window WHERE key = ?", (key,)
            ).fetchone()
            if used + amount > limit:
                return False
            db.execute(
                "INSERT INTO moving_window (key, at, expires, n) VALUES (?, ?, ?, ?)",
                (key, now, now + expiry, amount),
            )
            return True

    def get_moving_window(self, key, limit, expiry):
        """(time of the oldest hit still in the window, hits in the window). The window
        frees a slot at that time + ``expiry``: the reset time, hence ``Retry-After``."""
        now = time.time()
        oldest, used = (
            self._connection()
            .execute(
                "SELECT min(at), coalesce(sum(n), 0) FROM moving_window WHERE key = ? AND at > ?",
                (key, now - expiry),
            )
            .fetchone()
        )
        return (oldest, used) if used else (now, 0)

    # -- sliding window counter ------------------------------------------------------

    @staticmethod
    def _window_keys(key, expiry, now):
        return f"{key}/{int((now - expiry) / expiry)}", f"{key}/{int(now / expiry)}"

    def _sliding_window(self, db, key, expiry, now):
        previous_key, current_key = self._window_keys(key, expiry, now)
        previous = self._get(db, previous_key, now)
        current = self._get(db, current_key, now)
        previous_ttl = (1 - (((now - expiry) / expiry) % 1)) * expiry if previous else 0.0
        current_ttl = (1 - ((now / expiry) % 1)) * expiry + expiry
        return previous, previous_ttl, current, current_ttl

    def acquire_sliding_window_entry(self, key, limit, expiry, amount=1):
        if amount > limit:
            return False
        now = time.time()
        with self._write() as db:
            previous, previous_ttl, current, _ = self._sliding_window(db, key, expiry, now)
            if math.floor(previous * previous_ttl / expiry + current) + amount > limit:
                return False
            # The current window's counter is still the previous one during the next window.
            self._incr(db, self._window_keys(key, expiry, now)[1], 2 * expiry, amount, now)
            return True

    def get_sliding_window(self, key, expiry):
        return self._sliding_window(self._connection(), key, expiry, time.time())

    def clear_sliding_window(self, key, expiry):
        with self._write() as db:
            db.execute(
                "DELETE FROM counters WHERE key IN (?, ?)",
                self._window_keys(key, expiry, time.time()),
            )

    # -- maintenance -----------------------------------------------------------------

    def clear(self, key):
        with self._write() as db:
            db.execute("DELETE FROM moving_window WHERE key = ?", (key,))
            db.execute("DELETE FROM counters WHERE key = ?", (key,))

    def reset(self):
        """Forget every count; returns how many keys there were."""
        with self._write() as db:
            (keys,) = db.execute(
                "SELECT (SELECT count(DISTINCT key) FROM moving_window)"
                " + (SELECT count(*) FROM counters)"
            ).fetchone()
            db.execute("DELETE FROM moving_window")
            db.execute("DELETE FROM counters")
        return keys

    def check(self):
        try:
            self._connection().execute("SELECT 1").fetchone()
        except (sqlite3.Error, OSError):
            return False
        return True
