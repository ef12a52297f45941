"""A per-process cache of the per-request user lookup (datahub.identity.guard), used only
while its invalidation channel (datahub.identity.invalidation_channel) is live.

On when ``AUTH_CACHE_REDIS_URL`` is set; otherwise every request queries, as without it.

What is kept: the ``Principal`` a token's lookup answered, keyed by the token's
``(user id, session id, token id)``, for at most ``AUTH_CACHE_TTL_SECONDS``; for a personal
access token, its claims and ``Principal``, keyed by ``("pat", sha256 of the token)`` (the
user is not known before the lookup). Refusals are never kept (they query every time, as
before). What ends an entry, on every host: a message naming its user (``u:<id>``), its
session (``s:<id>``), its token (``t:<id>``), its personal access token (``p:<id>``), or
``*`` (everything).

Who sends them: SQLAlchemy session events, for every commit of any code (views, CLI
commands, future code) through the ORM session, after the commit and before the caller
goes on (so before a response is sent):

* a changed or deleted ``User`` → ``u:``; an ``AuthSession`` deleted, or changed in
  anything but its bookkeeping columns → ``s:``; a new ``RevokedAccessToken`` (logout)
  → ``t:``; a ``PersonalAccessToken`` deleted, or changed in anything but
  ``last_used_at``/``last_used_address`` → ``p:`` (a CLI command publishes too: it must
  run with the same setting);
* a bulk ``UPDATE``/``DELETE``/``INSERT`` of those tables (``session.execute(update(...))``)
  → the ids its WHERE names (``id = x`` or ``id IN (...)``), else ``*``; deleting
  blocklist entries, inserting personal access tokens or setting only their bookkeeping
  columns changes no kept answer (only successes are kept);
* SQL text that writes one of those tables → ``*``.

Writes that bypass the ORM session (``engine.begin()``, a ``psql`` shell) are not seen:
they are seen within the TTL.

A race: host B reads a user's row, host A commits a change and publishes, then B keeps
what it read. B's cache therefore counts every invalidation and message it applies
(``generation``); what a lookup read is kept only if none arrived while it ran.
"""

import re
import time

import sqlalchemy as sa
from flask import current_app, has_app_context
from sqlalchemy import event
from sqlalchemy.sql import operators

from datahub.app.extensions import db
from datahub.app.registry import per_app
from datahub.identity.invalidation_channel import RedisChannel
from datahub.identity.models import AuthSession, PersonalAccessToken, RevokedAccessToken, User

EXTENSION = "datahub.auth_cache"
_PENDING = "datahub.auth_cache.pending"  # in Session.info: names to publish at commit
# An AuthSession's columns that the lookup never reads and that change on every refresh.
_SESSION_BOOKKEEPING = frozenset({"last_used_at", "user_agent", "client_address", "csrf_token"})
# A PersonalAccessToken's columns that the guard writes on use (a plain UPDATE).
_TOKEN_BOOKKEEPING = frozenset({"last_used_at", "last_used_address"})
_TABLES = {
    User.__table__: "u",
    AuthSession.__table__: "s",
    RevokedAccessToken.__table__: "t",
    PersonalAccessToken.__table__: "p",
}
_TABLE_NAMES = re.compile(
    r"\b(users|auth_sessions|revoked_access_tokens|personal_access_tokens)\b", re.IGNORECASE
)
_WRITES = re.compile(r"\b(insert|update|delete|merge|truncate|alter|drop)\b")


class AuthCache:
    """The kept lookups of one app in this process. Every method takes ``channel.lock``:
    the channel drains its messages into ``invalidate`` under that same lock."""

    def __init__(self, config):
        self.ttl = float(config["AUTH_CACHE_TTL_SECONDS"])
        self.max_entries = int(config["AUTH_CACHE_MAX_ENTRIES"])
        self.entries = {}  # key -> (what is kept, expires at, the names that end it)
        self.index = {}  # "u:<id>", "s:<id>", "t:<id>", "p:<id>" -> the keys it names
        self.generation = 0
        self.channel = RedisChannel(
            config["AUTH_CACHE_REDIS_URL"],
            config["AUTH_CACHE_CHANNEL"],
            on_message=self._on_message,
            on_reset=self.reset,
            ping_seconds=float(config["AUTH_CACHE_PING_SECONDS"]),
            live_seconds=float(config["AUTH_CACHE_LIVE_SECONDS"]),
            timeout=float(config["AUTH_CACHE_REDIS_TIMEOUT"]),
        )

    # -- the request path --------------------------------------------------------------

    def get(self, key):
        """``(what is kept, None)`` when kept; else ``(None, ticket)``: give the ticket to
        ``put`` (None: the channel is not live, keep nothing)."""
        with self.channel.lock:
            if not self.channel.live():
                if self.entries:
                    self.reset()
                return None, None
            entry = self.entries.get(key)
            if entry is not None:
                if entry[1] > time.monotonic():
                    return entry[0], None
                self._drop(key)
            return None, self.generation

    def put(self, key, principal, ticket, names=None):
        """Keep what the lookup answered, unless anything was invalidated since ``get``.
        ``names`` end it (by default those of a JWT's key, see ``_names_of``)."""
        with self.channel.lock:
            # Drain first: a message read here must void the answer being kept.
            if not self.channel.live() or ticket != self.generation:
                return
            if len(self.entries) >= self.max_entries:
                self._drop(next(iter(self.entries)))  # the oldest
            names = tuple(_names_of(key) if names is None else names)
            self.entries[key] = (principal, time.monotonic() + self.ttl, names)
            for name in names:
                self.index.setdefault(name, set()).add(key)

    # -- invalidation (caller holds the lock) ------------------------------------------

    def _on_message(self, text):
        self.invalidate(text.split())

    def invalidate(self, names):
        self.generation += 1
        if "*" in names:
            self.entries.clear()
            self.index.clear()
            return
        for name in names:
            for key in self.index.pop(name, ()):
                self._drop(key)

    def reset(self):
        self.invalidate(("*",))

    def _drop(self, key):
        entry = self.entries.pop(key, None)
        if entry is None:
            return
        for name in entry[2]:
            keys = self.index.get(name)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self.index[name]

    def close(self):
        self.channel.stop()


def _names_of(key):
    user_id, session_id, token_id = key
    names = ["u:" + user_id, "t:" + token_id]
    if session_id is not None:
        names.append("s:" + session_id)
    return names


def for_app(app):
    """The app's cache, made once; None when ``AUTH_CACHE_REDIS_URL`` is unset."""
    if not app.config.get("AUTH_CACHE_REDIS_URL"):
        return None
    return per_app(app, EXTENSION, lambda: AuthCache(app.config))


# -- what a commit changed ---------------------------------------------------------------


def _note(session, names):
    if names:
        session.info.setdefault(_PENDING, set()).update(names)


def _changed_columns(instance):
    state = sa.inspect(instance)
    return {attr.key for attr in state.attrs if attr.history.has_changes()}


def _identity(instance):
    """The primary key as the session knows it (no load: the row may be gone)."""
    return str(sa.inspect(instance).identity[0])


# Each kept model: its names' prefix, and the columns whose change alters no kept answer.
_KEPT_MODELS = (
    (User, "u", frozenset()),
    (AuthSession, "s", _SESSION_BOOKKEEPING),
    (PersonalAccessToken, "p", _TOKEN_BOOKKEEPING),
)


def _kept_model(instance):
    """(prefix, bookkeeping columns) of ``instance``'s model, or (None, None)."""
    for model, prefix, bookkeeping in _KEPT_MODELS:
        if isinstance(instance, model):
            return prefix, bookkeeping
    return None, None


@event.listens_for(db.session, "after_flush")
def _after_flush(session, _flush_context):
    if not _publishes():
        return
    names = {
        "t:" + instance.jti for instance in session.new if isinstance(instance, RevokedAccessToken)
    }
    for instance in session.deleted:
        prefix, _ = _kept_model(instance)
        if prefix is not None:
            names.add(f"{prefix}:{_identity(instance)}")
    for instance in session.dirty:
        prefix, bookkeeping = _kept_model(instance)
        if prefix is not None and _changed_columns(instance) - bookkeeping:
            names.add(f"{prefix}:{_identity(instance)}")
    _note(session, names)


def _publishes():
    return has_app_context() and bool(current_app.config.get("AUTH_CACHE_REDIS_URL"))


@event.listens_for(db.session, "do_orm_execute")
def _bulk_statement(state):
    if not _publishes():
        return
    statement = state.statement
    if isinstance(statement, sa.TextClause):
        text = statement.text.lower()
        if _WRITES.search(text) and _TABLE_NAMES.search(text):
            _note(state.session, {"*"})
        return
    if not (state.is_update or state.is_delete or state.is_insert):
        return
    prefix = _TABLES.get(getattr(statement, "table", None))
    if prefix is None or (prefix == "t" and state.is_delete):
        return  # unblocking a token changes no kept answer (only successes are kept)
    if prefix == "p" and (state.is_insert or (state.is_update and _bookkeeping_only(statement))):
        return  # a new token, or its last use: no kept answer changes
    ids = None if state.is_insert else _ids_named(statement)
    _note(state.session, {"*"} if ids is None else {f"{prefix}:{value}" for value in ids})


def _bookkeeping_only(statement):
    """Whether an UPDATE sets only a personal access token's last use."""
    values = getattr(statement, "_values", None) or {}
    columns = {getattr(column, "key", column) for column in values}
    return bool(columns) and columns <= _TOKEN_BOOKKEEPING


def _ids_named(statement):
    """The ids that ``WHERE ... id = x`` / ``id IN (...)`` (a conjunct) allow, else None."""
    where = statement.whereclause
    if where is None:
        return None
    clauses = (
        list(where.clauses)
        if (
            isinstance(where, sa.sql.elements.BooleanClauseList)
            and where.operator is operators.and_
        )
        else [where]
    )
    id_column = statement.table.primary_key.columns.values()[0]
    for clause in clauses:
        if not isinstance(clause, sa.sql.elements.BinaryExpression):
            continue
        left, right = clause.left, clause.right
        if not (
            isinstance(left, sa.Column)
            and left.name == id_column.name
            and getattr(left.table, "name", None) == statement.table.name
        ):
            continue
        if (
            not isinstance(right, sa.sql.elements.BindParameter)
            or right.value is None
            or right.callable is not None
        ):
            continue
        if clause.operator is operators.eq:
            return [right.value]
        if clause.operator is operators.in_op and isinstance(right.value, (list, tuple)):
            return list(right.value)
    return None


@event.listens_for(db.session, "after_commit")
def _after_commit(session):
    if session.in_nested_transaction():
        return  # a savepoint released: the names wait for the outer commit
    names = session.info.pop(_PENDING, None)
    if not names:
        return
    cache = for_app(current_app)
    if cache is None:
        return
    with cache.channel.lock:
        cache.invalidate(names)  # this process's own entries, at once
    cache.channel.publish(names)


@event.listens_for(db.session, "after_transaction_end")
def _after_transaction_end(session, transaction):
    if transaction.parent is None:  # the outermost: rolled back, or committed (published)
        session.info.pop(_PENDING, None)
