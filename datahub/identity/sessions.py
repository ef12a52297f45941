"""Sessions: a login is an ``AuthSession`` with a family of rotating refresh tokens.

- ``start_session`` (login) records the session with its absolute end and issues the
  first refresh token.
- ``rotate`` (refresh) retires the presented token and issues its successor; a retired
  token presented again within ``REFRESH_REUSE_GRACE_SECONDS`` (two tabs refreshing at
  once) gets an access token and no new branch; later, it is a replay of a stolen token:
  the whole session is revoked.
- Access tokens carry the session id and die with their session; every access token of
  a user dies when ``User.token_version`` is bumped.

The tokens themselves are the codec's (datahub.identity.tokens).

Refreshes of one session are serialised: ``SELECT ... FOR UPDATE`` on the session row on
PostgreSQL, the write lock that ``BEGIN IMMEDIATE`` takes for every writing request on
SQLite (datahub.platform.database).
"""

import secrets
import uuid
from datetime import datetime, timedelta, timezone

import sqlalchemy as sa
from flask import current_app, has_request_context, request

from datahub.app.config_checks import as_timedelta
from datahub.app.extensions import db
from datahub.identity import tokens
from datahub.identity.errors import InvalidToken, TokenExpired, TokenRevoked
from datahub.identity.models import AuthSession, RefreshToken, RevokedAccessToken
from datahub.platform.audit import audit
from datahub.platform.database import utcnow
from datahub.web.validation import without_control_characters


def _client():
    """The User-Agent and address to record, as shown in the sessions list: both come
    from request headers (the address through X-Forwarded-For behind a proxy), so control
    characters are removed and the lengths cut to their columns."""
    if not has_request_context():
        return None, None
    return _printable(request.user_agent.string, 512), _printable(request.remote_addr, 64)


def _printable(value, length):
    return (without_control_characters(value)[:length] or None) if value else None


def epoch(moment):
    """Whole seconds since 1970, as JWT claims count them."""
    return int(moment.timestamp())


def issue_access_token(user, session=None):
    """An access token for ``user``; bound to ``session`` when given, and then never valid
    beyond the session's absolute end."""
    now = epoch(utcnow())
    lifetime = int(as_timedelta(current_app.config["JWT_ACCESS_TOKEN_EXPIRES"]).total_seconds())
    exp = now + lifetime
    if session is not None:
        exp = min(exp, epoch(session.expires_at))
    return tokens.codec().encode_access(
        user.id,
        user.token_version,
        now,
        exp,
        session_id=session.id if session is not None else None,
    )


def _issue_refresh_token(user, session, now):
    """The next refresh token of ``session``: ``exp`` = min(now + lifetime, session end)."""
    lifetime = as_timedelta(current_app.config["JWT_REFRESH_TOKEN_EXPIRES"])
    exp = min(epoch(now + lifetime), epoch(session.expires_at))
    agent, address = _client()
    record = RefreshToken(
        jti=str(uuid.uuid4()),
        user_id=user.id,
        family_id=session.id,
        issued_at=now,
        expires_at=datetime.fromtimestamp(exp, timezone.utc),
        user_agent=agent,
        client_address=address,
    )
    db.session.add(record)
    csrf = None
    if current_app.config["JWT_COOKIE_CSRF_PROTECT"]:
        if not session.csrf_token:
            session.csrf_token = secrets.token_urlsafe(32)
        csrf = session.csrf_token  # the session's, not a new one per token
    token = tokens.codec().encode_refresh(
        user.id, record.jti, session.id, epoch(now), exp, csrf=csrf
    )
    return token, record


def start_session(user):
    """A new session for ``user`` (not yet committed): (refresh token, its record, session)."""
    now = utcnow()
    agent, address = _client()
    session = AuthSession(
        id=str(uuid.uuid4()),
        user_id=user.id,
        created_at=now,
        last_used_at=now,
        expires_at=now + as_timedelta(current_app.config["REFRESH_ABSOLUTE_LIFETIME"]),
        user_agent=agent,
        client_address=address,
        csrf_token=secrets.token_urlsafe(32),
    )
    db.session.add(session)
    token, record = _issue_refresh_token(user, session, now)
    return token, record, session


def _revoke_sessions(where, reason, now):
    """Revoke the sessions matching ``where`` and every refresh token in them.

    The session rows are locked first, in id order, as a refresh locks its session before
    touching its tokens: the same order everywhere, so a logout racing a refresh (or
    another logout) waits instead of deadlocking.
    """
    ids = db.session.scalars(
        sa.select(AuthSession.id)
        .where(where, AuthSession.revoked_at.is_(None))
        .order_by(AuthSession.id)
        .with_for_update()
    ).all()
    if not ids:
        return 0
    db.session.execute(
        sa.update(AuthSession)
        .where(AuthSession.id.in_(ids), AuthSession.revoked_at.is_(None))
        .values(revoked_at=now, revoked_reason=reason)
        .execution_options(synchronize_session=False)
    )
    db.session.execute(
        sa.update(RefreshToken)
        .where(RefreshToken.family_id.in_(ids), RefreshToken.revoked_at.is_(None))
        .values(revoked_at=now)
        .execution_options(synchronize_session=False)
    )
    return len(ids)


def revoke_session(session_id, reason):
    """End one session (idempotent). Returns True if it was active until now."""
    return bool(_revoke_sessions(AuthSession.id == session_id, reason, utcnow()))


def end_all_sessions(user, reason="ended", keep=None):
    """Revoke every session of ``user`` (but ``keep``, a session id) and void every access
    token already out, by bumping ``token_version``. Returns how many sessions ended."""
    where = AuthSession.user_id == user.id
    if keep is not None:
        where = sa.and_(where, AuthSession.id != keep)
    ended = _revoke_sessions(where, reason, utcnow())
    user.token_version = (user.token_version or 0) + 1
    return ended


def rotate(claims, user):
    """Exchange the verified refresh token ``claims`` (``RefreshClaims``) of ``user``.

    Returns ``(new refresh token or None, its record or None, session)``; None means a concurrent refresh
    already rotated this token within the grace window, so the caller answers with an
    access token and leaves the cookie that the other request set. Raises TokenRevoked
    (after committing the revocation) when a retired token is replayed too late.
    """
    session = db.session.execute(
        sa.select(AuthSession)
        .where(AuthSession.id == claims.session_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).scalar_one_or_none()
    # The time once the lock is held: a request that waited for a concurrent rotation must
    # not be within the grace window only because it looked at the clock before waiting.
    now = utcnow()
    record = db.session.execute(
        sa.select(RefreshToken)
        .where(RefreshToken.jti == claims.token_id)
        .execution_options(populate_existing=True)
    ).scalar_one_or_none()
    if (
        session is None
        or record is None
        or record.family_id != session.id
        or session.user_id != user.id
    ):
        raise InvalidToken()
    if session.revoked_at is not None or record.revoked_at is not None:
        raise TokenRevoked()
    if session.expires_at <= now:
        raise TokenExpired()

    agent, address = _client()
    record.last_used_at = now
    if record.retired_at is None:
        token, successor = _issue_refresh_token(user, session, now)
        record.retired_at = now
        record.replaced_by = successor.jti
        session.last_used_at = now
        session.user_agent = agent
        session.client_address = address
        return token, successor, session

    grace = timedelta(seconds=float(current_app.config["REFRESH_REUSE_GRACE_SECONDS"]))
    if now - record.retired_at < grace:
        session.last_used_at = now
        return None, None, session

    _revoke_sessions(AuthSession.id == session.id, "reuse", now)
    db.session.commit()
    audit(
        "refresh_reuse_detected",
        user_id=user.id,
        session_id=session.id,
        retired_seconds_ago=round((now - record.retired_at).total_seconds(), 3),
    )
    raise TokenRevoked()


def revoke_access_token(claims):
    """Block one access token (its ``AccessClaims``) until it would have expired anyway,
    and forget the blocked tokens that have expired since."""
    now = utcnow()
    db.session.execute(sa.delete(RevokedAccessToken).where(RevokedAccessToken.expires_at <= now))
    expires_at = datetime.fromtimestamp(claims.expires_at, timezone.utc)
    if expires_at > now and db.session.get(RevokedAccessToken, claims.token_id) is None:
        db.session.add(RevokedAccessToken(jti=claims.token_id, expires_at=expires_at))


def active_sessions(user_id):
    now = utcnow()
    return sa.select(AuthSession).where(
        AuthSession.user_id == user_id,
        AuthSession.revoked_at.is_(None),
        AuthSession.expires_at > now,
    )


_PURGE_LOCK = 0x64617461_6875  # "datahu": an arbitrary, fixed advisory lock key


def purge_expired():
    """Delete what has expired: refresh tokens (a replay would fail on ``exp`` anyway),
    sessions past their absolute end, and blocklist entries. Each is one idempotent
    DELETE, so overlapping runs only divide the work."""
    if db.session.get_bind().dialect.name == "postgresql":
        # One purge at a time (the transaction-scoped lock is released by the commit);
        # SQLite's write lock, taken by BEGIN IMMEDIATE, does the same there.
        db.session.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PURGE_LOCK})
    now = utcnow()
    counts = {}
    counts["refresh_tokens"] = db.session.execute(
        sa.delete(RefreshToken).where(RefreshToken.expires_at <= now)
    ).rowcount
    counts["sessions"] = db.session.execute(
        sa.delete(AuthSession).where(AuthSession.expires_at <= now)
    ).rowcount
    counts["revoked_access_tokens"] = db.session.execute(
        sa.delete(RevokedAccessToken).where(RevokedAccessToken.expires_at <= now)
    ).rowcount
    db.session.commit()
    return counts
