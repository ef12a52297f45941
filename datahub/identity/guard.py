"""The bearer-token check on every authenticated request: the hot path.

This runs on every API call and its budget is small (see bench/README.rst for the
profile behind this). The codec (datahub.identity.tokens) decodes the token; the SQL of
the ONE query that loads the user and tells whether the token was ended by logout is
prepared once per app. A deactivated user, a password change (``token_version``) or a
logout is seen at once. With ``AUTH_CACHE_REDIS_URL`` the lookup's answers are kept per
process while the invalidation channel is live (datahub.identity.auth_cache).

A personal access token (``dhp_...``, datahub.identity.personal_tokens) is looked up the
same way, by its SHA-256, in one prepared query joined to its active owner; its expiry and
scopes are checked on every request, its last use recorded at most once a minute.
"""

import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import wraps

import sqlalchemy as sa
from flask import current_app, g, request
from werkzeug.local import LocalProxy

from datahub.app.extensions import db
from datahub.app.registry import per_app
from datahub.identity import auth_cache, tokens
from datahub.identity.errors import InvalidToken, NotAuthenticated, TokenExpired, TokenRevoked
from datahub.identity.fifo_cache import FifoCache
from datahub.identity.models import AuthSession, RevokedAccessToken, User
from datahub.identity.personal_tokens import services as personal_tokens
from datahub.identity.personal_tokens.services import PREFIX as PAT_PREFIX
from datahub.platform.database import LookupConnections, driver_sql

KEPT = 4096  # Principals kept per worker


@dataclass(frozen=True, slots=True)
class Principal:
    """The authenticated user, as loaded for this request (read-only)."""

    id: str
    email: str
    name: str
    is_active: bool
    provider: str
    roles: tuple
    created_at: object
    token_version: int

    def has_role(self, role):
        return role in self.roles

    @property
    def is_admin(self):
        return "admin" in self.roles

    def as_json(self):
        """Seed 2.1, in its field order (tests hold this equal to UserSchema's dump)."""
        return {
            "id": self.id,
            "email": self.email,
            "name": self.name,
            "is_active": self.is_active,
            "provider": self.provider,
            "roles": list(self.roles),
            "created_at": self.created_at.isoformat(),
        }


_COLUMNS = ("id", "email", "name", "is_active", "provider", "roles", "created_at", "token_version")


def _principal(user_id, email, name, provider, roles, created_at, version):
    if isinstance(roles, str):  # SQLite hands JSON and timestamps back as text
        roles = json.loads(roles)
    if isinstance(created_at, str):
        created_at = datetime.fromisoformat(created_at)
    created_at = (
        created_at.replace(tzinfo=timezone.utc)
        if created_at.tzinfo is None
        else created_at.astimezone(timezone.utc)
    )
    return Principal(user_id, email, name, True, provider, tuple(roles or ()), created_at, version)


# Lookup connections kept open per process when idle. Lookups take ~0.1 ms, so few run at
# once; keeping one per thread instead would hold a database connection for each of a
# worker's many threads (64 × 5 workers is more than PostgreSQL's default 100).
MAX_IDLE_LOOKUP_CONNECTIONS = 4


class AccessGuard:
    """Everything the check needs, computed once per app."""

    def __init__(self, app, engine):
        self.decode = tokens.codec(app).decode_access
        self.principals = FifoCache(KEPT)  # a user's columns as read -> Principal

        users, revoked = User.__table__, RevokedAccessToken.__table__
        sessions = AuthSession.__table__
        # An access token is revoked when it is on the logout blocklist, carries an old
        # token version (password change, deactivation), or names a session that has
        # ended or is gone.
        statement = (
            sa.select(
                *(users.c[name] for name in _COLUMNS),
                revoked.c.jti,
                sessions.c.id,
                sessions.c.revoked_at,
            )
            .select_from(
                users.outerjoin(revoked, revoked.c.jti == sa.bindparam("token_id")).outerjoin(
                    sessions,
                    sa.and_(
                        sessions.c.id == sa.bindparam("session_id"),
                        sessions.c.user_id == users.c.id,
                    ),
                )
            )
            .where(users.c.id == sa.bindparam("user_id"))
        )
        self.sql, self.positional = driver_sql(statement, engine.dialect)
        # A personal access token's: by its hash, joined to its (active) owner.
        self.pat_sql, self.pat_positional = driver_sql(
            personal_tokens.lookup_statement(_COLUMNS), engine.dialect
        )
        self.last_use = personal_tokens.LastUse(engine)
        self.pat_claims = FifoCache(KEPT)  # a token's columns as read -> its claims
        self.engine = engine
        self.connections = LookupConnections(
            engine,
            max_idle=MAX_IDLE_LOOKUP_CONNECTIONS,
            direct=app.config["AUTH_LOOKUP_DIRECT_CONNECTIONS"],
        )
        self.cache = auth_cache.for_app(app)  # None: every request queries

    # -- the user ----------------------------------------------------------------------

    def _fetch_one(self, params):
        """One row of the lookup (datahub.platform.database.LookupConnections)."""
        return self.connections.fetch_one(self.sql, params)

    def load(self, claims):
        """The ``Principal`` of verified ``AccessClaims``; raises if the token was revoked."""
        session_id = claims.session_id
        cache, ticket = self.cache, None
        if cache is not None:
            cache_key = (claims.user_id, session_id, claims.token_id)
            principal, ticket = cache.get(cache_key)
            if principal is not None:
                return principal
        params = {"token_id": claims.token_id, "user_id": claims.user_id, "session_id": session_id}
        if self.positional:
            params = tuple(params[name] for name in self.positional)
        row = self._fetch_one(params)
        if row is None:
            raise InvalidToken()
        (
            user_id,
            email,
            name,
            is_active,
            provider,
            roles,
            created_at,
            version,
            blocked,
            found_session,
            session_ended,
        ) = row
        ended = session_id is not None and (found_session is None or session_ended is not None)
        if blocked is not None or claims.version != version or ended:
            raise TokenRevoked()
        if not is_active:
            raise InvalidToken()
        principal = self._principal(user_id, email, name, provider, roles, created_at, version)
        if ticket is not None:
            cache.put(cache_key, principal, ticket)
        return principal

    def _principal(self, user_id, email, name, provider, roles, created_at, version):
        # The user's columns, as read: the same row gives the same Principal, so it is
        # built once (any change to the user makes another key).
        key = (
            user_id,
            email,
            name,
            provider,
            roles if isinstance(roles, str) else tuple(roles or ()),
            created_at,
            version,
        )
        principal = self.principals.get(key)
        if principal is None:
            principal = self.principals.keep(key, _principal(*key))
        return principal

    # -- a personal access token ---------------------------------------------------------

    def load_personal(self, token):
        """``(PersonalTokenClaims, Principal)`` of a ``dhp_`` token; raises InvalidToken
        (unknown, revoked, owner inactive) or TokenExpired (checked even when kept)."""
        token_hash = personal_tokens.hash_token(token)  # a microsecond; no secret is kept
        cache, ticket = self.cache, None
        if cache is not None:
            cache_key = ("pat", token_hash)
            kept, ticket = cache.get(cache_key)
            if kept is not None:
                if kept[0].expires_at <= time.time():
                    raise TokenExpired()
                return kept
        params = (token_hash,) if self.pat_positional else {"token_hash": token_hash}
        row = self.connections.fetch_one(self.pat_sql, params)
        if row is None:
            raise InvalidToken()
        user_id, email, name, _active, provider, roles, created_at, version = row[:8]
        token_id, scopes, expires_at = row[8:]  # parsed once per value (as Principals)
        key = (user_id, token_id, scopes if isinstance(scopes, str) else tuple(scopes), expires_at)
        claims = self.pat_claims.get(key)
        if claims is None:
            claims = self.pat_claims.keep(key, personal_tokens.claims_of(*key))
        if claims.expires_at <= time.time():
            raise TokenExpired()
        kept = (claims, self._principal(user_id, email, name, provider, roles, created_at, version))
        if ticket is not None:
            cache.put(cache_key, kept, ticket, names=("u:" + user_id, "p:" + claims.token_id))
        return kept

    def authenticate(self):
        environ = request.environ
        scheme, _, token = environ.get("HTTP_AUTHORIZATION", "").partition(" ")
        if scheme.lower() != "bearer":
            raise NotAuthenticated()
        token = token.strip()
        if not token or " " in token:
            raise InvalidToken()
        if token.startswith(PAT_PREFIX):
            claims, principal = self.load_personal(token)
            personal_tokens.check_scope(claims, environ["REQUEST_METHOD"], request.endpoint)
            self.last_use.record(claims, environ.get("REMOTE_ADDR"))
            return claims, principal
        claims = self.decode(token)
        return claims, self.load(claims)


def init_app(app):
    with app.app_context():
        per_app(app, "datahub.access_guard", lambda: AccessGuard(app, db.engine))


def authenticate():
    """Check the request's bearer token; sets ``current_user`` and ``current_claims``."""
    g.access_claims, g.current_user = current_app.extensions["datahub.access_guard"].authenticate()


def auth_required(view):
    """Let the view run only for a valid bearer access token; see ``current_user``."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        authenticate()
        return view(*args, **kwargs)

    # Copied onto the decorators above it (functools.wraps); datahub.web.api runs it before
    # answering 422 for a bad path parameter, so a 401 still comes first.
    wrapper.bearer_guard = authenticate
    return wrapper


def session_required(view):
    """``auth_required``, and 403 ``Forbidden`` for a personal access token: for what only
    a login may do (tokens, password, sessions)."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        authenticate()
        require_session()
        return view(*args, **kwargs)

    wrapper.bearer_guard = authenticate
    return wrapper


current_user = LocalProxy(lambda: g.current_user)
# The request's tokens.AccessClaims, or personal_tokens.PersonalTokenClaims (session_id
# None, ``is_personal_token`` true).
current_claims = LocalProxy(lambda: g.access_claims)


def require_session():
    """403 ``Forbidden`` for a personal access token: only a login may do this."""
    personal_tokens.require_session(g.access_claims)


def current_user_record():
    """The caller as an ORM ``User``, for views that change it (one more query)."""
    return db.session.get(User, g.current_user.id)
