"""Personal access tokens (``dhp_...``): creating, listing and revoking them, and what the
guard (datahub.identity.guard) needs to accept one as a bearer token. Deactivating a
user deletes their tokens (:func:`revoke_all_tokens`): reactivating brings none back.

A token's text is shown once, at creation; only its SHA-256 is stored. Its scopes are
``["read"]`` (GET and HEAD, and the POSTs that only read: ``READ_ONLY_POSTS``) or
``["read", "write"]``. No token creates
tokens, changes a password or manages sessions (``require_session``). ``last_used_at`` is
kept to the minute, with ``last_used_address``, by a plain UPDATE (no cache invalidation).
"""

import hashlib
import json
import logging
import secrets
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.models import PersonalAccessToken, User
from datahub.identity.personal_tokens.errors import TokenNotFound
from datahub.platform.audit import audit
from datahub.platform.database import utcnow
from datahub.platform.errors import Refused

PREFIX = "dhp_"
READ, WRITE = "read", "write"
READ_METHODS = frozenset({"GET", "HEAD"})  # a read token: GET and HEAD only...
# ...and these POSTs, by endpoint, each because it only reads (docs/security.rst): a
# pipeline's preview and a console query compute from datasets the caller may read and
# store nothing.
READ_ONLY_POSTS = frozenset({"pipelines.PipelinePreview", "query.Query"})
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PersonalTokenClaims:
    """What an accepted personal access token says (``current_claims`` for its request)."""

    user_id: str
    token_id: str
    scopes: tuple
    expires_at: float  # seconds since 1970
    session_id: None = None  # never bound to a session
    is_personal_token: bool = True


def hash_token(text):
    """The stored form of a token's text: its SHA-256, in hex."""
    return hashlib.sha256(text.encode()).hexdigest()


def require_session(claims):
    """403 unless the request came with a login's access token (not a personal one)."""
    if claims.is_personal_token:
        raise Refused()


def check_scope(claims, method, endpoint=None):
    """A token with only ``read`` may only read: GET and HEAD, and a POST to one of
    ``READ_ONLY_POSTS`` (``endpoint``: the request's)."""
    if method in READ_METHODS or allows_changes(claims):
        return
    if method == "POST" and endpoint in READ_ONLY_POSTS:
        return
    raise Refused()


def allows_changes(claims):
    """Whether a request with ``claims`` (a personal token's or a login's) may change
    anything: not with a token of ``read`` alone."""
    return not claims.is_personal_token or WRITE in claims.scopes


# -- the services ------------------------------------------------------------------------


def create_token(user_id, name, scopes, expires_in_days):
    """A new token of ``user_id``: ``(record, text)``; the text is not kept."""
    text = PREFIX + secrets.token_urlsafe(32)
    now = utcnow()
    record = PersonalAccessToken(
        id=str(uuid.uuid4()),
        user_id=user_id,
        name=name,
        token_hash=hash_token(text),
        scopes=[READ, WRITE] if WRITE in scopes else [READ],  # write implies read
        created_at=now,
        expires_at=now + timedelta(days=expires_in_days),
    )
    db.session.add(record)
    db.session.commit()
    audit("token_created", user_id=user_id, token_id=record.id, name=name, scopes=record.scopes)
    return record, text


def tokens_query(user_id):
    """The tokens of ``user_id``, newest first."""
    return (
        sa.select(PersonalAccessToken)
        .where(PersonalAccessToken.user_id == user_id)
        .order_by(PersonalAccessToken.created_at.desc(), PersonalAccessToken.id)
    )


def get_token(user_id, token_id):
    """The token ``token_id`` of ``user_id``; TokenNotFound for any other."""
    record = None
    if isinstance(token_id, str) and len(token_id) <= 36:
        record = db.session.get(PersonalAccessToken, token_id)
    if record is None or record.user_id != user_id:
        raise TokenNotFound()
    return record


def revoke_token(record, by):
    """Delete the token: it stops at once, on every host (datahub.identity.auth_cache)."""
    db.session.delete(record)
    db.session.commit()
    audit("token_revoked", user_id=record.user_id, token_id=record.id, by=by)


def revoke_all_tokens(user_id):
    """Delete every token of ``user_id`` (uncommitted; one ``p:`` message each, at the
    commit): deactivating a user ends them for good, so reactivating brings none back.
    How many there were."""
    records = db.session.scalars(tokens_query(user_id)).all()
    for record in records:
        db.session.delete(record)
    return len(records)


# -- what the guard asks -----------------------------------------------------------------

PRINCIPAL_COLUMNS = ("id", "email", "name", "is_active", "provider", "roles", "created_at")


def lookup_statement(principal_columns):
    """The one query of a token by its hash: the owner's columns (``principal_columns``),
    then the token's id, scopes and expiry. No row: unknown, revoked or owner inactive."""
    users, pats = User.__table__, PersonalAccessToken.__table__
    return (
        sa.select(
            *(users.c[name] for name in principal_columns),
            pats.c.id,
            sa.cast(pats.c.scopes, sa.Text),  # as text: parsed only once per value
            pats.c.expires_at,
        )
        .select_from(pats.join(users, users.c.id == pats.c.user_id))
        .where(pats.c.token_hash == sa.bindparam("token_hash"), users.c.is_active.is_(True))
    )


def _timestamp(value):
    if isinstance(value, str):  # SQLite hands timestamps back as text
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


def claims_of(user_id, token_id, scopes, expires_at):
    """``PersonalTokenClaims`` of the lookup's token columns."""
    if isinstance(scopes, str):
        scopes = json.loads(scopes)
    return PersonalTokenClaims(user_id, token_id, tuple(scopes or ()), _timestamp(expires_at))


class LastUse:
    """Keeps ``last_used_at`` (to the minute) and ``last_used_address``: at most one write
    per token, minute and address in this process, by plain UPDATEs on the engine (so no
    ORM event, no cache invalidation). A new address is audited."""

    KEPT = 4096

    def __init__(self, engine):
        self.engine = engine
        self.written = {}  # token id -> (minute, address) last written by this process
        self.lock = threading.Lock()
        table = PersonalAccessToken.__table__
        minute = sa.bindparam("minute", type_=table.c.last_used_at.type)
        self.new_address = (
            table.update()
            .where(
                table.c.id == sa.bindparam("token_id"),
                sa.or_(
                    table.c.last_used_address.is_(None),
                    table.c.last_used_address != sa.bindparam("address"),
                ),
            )
            .values(last_used_at=minute, last_used_address=sa.bindparam("address"))
        )
        self.same_address = (
            table.update()
            .where(
                table.c.id == sa.bindparam("token_id"),
                sa.or_(table.c.last_used_at.is_(None), table.c.last_used_at < minute),
            )
            .values(last_used_at=minute)
        )

    def record(self, claims, address):
        minute = int(time.time() // 60)
        seen = (minute, address)
        if self.written.get(claims.token_id) == seen:
            return
        with self.lock:
            if len(self.written) >= self.KEPT:
                self.written.clear()
            self.written[claims.token_id] = seen
        params = {
            "token_id": claims.token_id,
            "address": address,
            "minute": datetime.fromtimestamp(minute * 60, timezone.utc),
        }
        try:
            with self.engine.begin() as connection:
                moved = connection.execute(self.new_address, params).rowcount
                if not moved:
                    connection.execute(self.same_address, params)
        except sa.exc.DBAPIError:  # bookkeeping: the request goes on
            log.warning("could not record the use of a personal access token", exc_info=True)
            return
        if moved:
            audit("token_used_from_new_address", user_id=claims.user_id, token_id=claims.token_id)
