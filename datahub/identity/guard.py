"""The bearer-token check on every authenticated request: the hot path.

flask-jwt-extended issues both tokens and verifies the refresh cookie; access tokens are
verified here instead, because this runs on every API call and its budget is small (see
bench/README.rst for the profile behind this). Everything that can be is prepared once
per app: the HMAC key, the expected ``alg``, ``iss`` and ``aud``, and the SQL of the ONE
query that loads the user and tells whether the token was ended by logout. A deactivated
user, a password change (``token_version``) or a logout is seen at once.
"""
import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import wraps
from types import MappingProxyType

import jwt
import sqlalchemy as sa
from flask import current_app, g, request
from werkzeug.local import LocalProxy

from datahub.database import LookupConnections, driver_sql
from datahub.extensions import db
from datahub.identity.errors import (
    InvalidToken,
    NotAuthenticated,
    TokenExpired,
    TokenRevoked,
)
from datahub.identity.models import AuthSession, RevokedAccessToken, User

REQUIRED_CLAIMS = ["sub", "jti", "type", "iat", "exp"]
KEPT = 4096  # verified tokens and users kept per worker (each about 2 KiB)


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
            "id": self.id, "email": self.email, "name": self.name, "is_active": self.is_active,
            "provider": self.provider, "roles": list(self.roles),
            "created_at": self.created_at.isoformat(),
        }


_COMPACT_JWS = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")
_HMAC = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}
_COLUMNS = ("id", "email", "name", "is_active", "provider", "roles", "created_at", "token_version")


def _b64decode(segment):
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _keep(cache, key, value):
    """``cache[key] = value``, the oldest entry going first beyond ``KEPT`` entries."""
    if len(cache) >= KEPT:
        del cache[next(iter(cache))]
    cache[key] = value
    return value


def _principal(user_id, email, name, provider, roles, created_at, version):
    if isinstance(roles, str):  # SQLite hands JSON and timestamps back as text
        roles = json.loads(roles)
    if isinstance(created_at, str):
        created_at = datetime.fromisoformat(created_at)
    created_at = (created_at.replace(tzinfo=timezone.utc) if created_at.tzinfo is None
                  else created_at.astimezone(timezone.utc))
    return Principal(user_id, email, name, True, provider, tuple(roles or ()), created_at,
                     version)


# Lookup connections kept open per process when idle. Lookups take ~0.1 ms, so few run at
# once; keeping one per thread instead would hold a database connection for each of a
# worker's many threads (64 × 5 workers is more than PostgreSQL's default 100).
MAX_IDLE_LOOKUP_CONNECTIONS = 4


class AccessGuard:
    """Everything the check needs, computed once per app."""

    def __init__(self, app, engine):
        config = app.config
        self.algorithm = config["JWT_ALGORITHM"]
        self.key = config["JWT_SECRET_KEY"]
        self.hmac_key = str(self.key).encode("utf-8")
        self.audience = config["JWT_DECODE_AUDIENCE"]
        self.issuer = config["JWT_DECODE_ISSUER"]
        self.leeway = float(config.get("JWT_DECODE_LEEWAY") or 0)
        self.decoder = jwt.PyJWT(options={"require": REQUIRED_CLAIMS})
        self.verified = {}  # token text -> claims that passed every clock-free check
        self.principals = {}  # a user's columns as read -> Principal

        users, revoked = User.__table__, RevokedAccessToken.__table__
        sessions = AuthSession.__table__
        # An access token is revoked when it is on the logout blocklist, carries an old
        # ``ver`` (password change, deactivation), or names a session (``sid``) that has
        # ended or is gone.
        statement = (
            sa.select(*(users.c[name] for name in _COLUMNS), revoked.c.jti,
                      sessions.c.id, sessions.c.revoked_at)
            .select_from(
                users.outerjoin(revoked, revoked.c.jti == sa.bindparam("jti"))
                .outerjoin(sessions, sa.and_(sessions.c.id == sa.bindparam("sid"),
                                             sessions.c.user_id == users.c.id))
            )
            .where(users.c.id == sa.bindparam("sub"))
        )
        self.sql, self.positional = driver_sql(statement, engine.dialect)
        self.engine = engine
        self.connections = LookupConnections(
            engine, max_idle=MAX_IDLE_LOOKUP_CONNECTIONS,
            direct=config["AUTH_LOOKUP_DIRECT_CONNECTIONS"])

    # -- the token ---------------------------------------------------------------------

    def claims(self, token):
        claims = self._decode_hmac(token) if self.algorithm in _HMAC else self._decode_pyjwt(token)
        if claims.get("type") != "access":
            raise InvalidToken()
        return claims

    def _decode_pyjwt(self, token):
        try:
            return self.decoder.decode(
                token, self.key, algorithms=[self.algorithm], audience=self.audience,
                issuer=self.issuer, leeway=self.leeway,
            )
        except jwt.ExpiredSignatureError as exc:
            raise TokenExpired() from exc
        except jwt.PyJWTError as exc:
            raise InvalidToken() from exc

    def _decode_hmac(self, token):
        """RFC 7519 validation of an HMAC-signed compact JWS, as PyJWT does it (a test
        holds the two in agreement), without PyJWT's per-call generality.

        What does not depend on the clock (signature, header, claim types, ``iss``, ``aud``)
        is checked once per token: a client sends the same token for its whole lifetime,
        so the verified claims are kept, keyed by the exact token text, and only the
        time claims are checked again on each request."""
        claims = self.verified.get(token)
        if claims is None:
            claims = _keep(self.verified, token, self._verify_hmac(token))
        self._check_clock(claims)
        return claims

    def _check_clock(self, claims):
        now, leeway = time.time(), self.leeway
        if claims["iat"] > now + leeway or claims.get("nbf", claims["iat"]) > now + leeway:
            raise InvalidToken()
        if claims["exp"] <= now - leeway:
            raise TokenExpired()

    def _verify_hmac(self, token):
        if not _COMPACT_JWS.match(token):
            raise InvalidToken()
        header_b64, payload_b64, signature_b64 = token.split(".")
        try:
            header = json.loads(_b64decode(header_b64))
            signature = _b64decode(signature_b64)
        except (ValueError, binascii.Error, RecursionError) as exc:
            raise InvalidToken() from exc
        if not isinstance(header, dict) or header.get("alg") != self.algorithm or "crit" in header:
            raise InvalidToken()
        expected = hmac.new(self.hmac_key, f"{header_b64}.{payload_b64}".encode("ascii"),
                            _HMAC[self.algorithm]).digest()
        if not hmac.compare_digest(expected, signature):
            raise InvalidToken()
        try:
            claims = json.loads(_b64decode(payload_b64))
        except (ValueError, binascii.Error, RecursionError) as exc:
            raise InvalidToken() from exc
        if not isinstance(claims, dict) or any(claims.get(c) is None for c in REQUIRED_CLAIMS):
            raise InvalidToken()
        if not all(_number(claims.get(c, claims["iat"])) for c in ("exp", "iat", "nbf")):
            raise InvalidToken()
        if not (isinstance(claims["sub"], str) and isinstance(claims["jti"], str)):
            raise InvalidToken()
        audience = claims.get("aud")
        if claims.get("iss") != self.issuer or not (
                audience == self.audience
                or (isinstance(audience, list) and self.audience in audience)):
            self._check_clock(claims)  # PyJWT checks the clock first: "expired" wins
            raise InvalidToken()
        return MappingProxyType(claims)  # shared by requests: read-only

    # -- the user ----------------------------------------------------------------------

    def _fetch_one(self, params):
        """One row of the lookup (datahub.database.LookupConnections)."""
        return self.connections.fetch_one(self.sql, params)

    def load(self, claims):
        sid = claims.get("sid")
        params = {"jti": claims["jti"], "sub": claims["sub"], "sid": sid}
        if self.positional:
            params = tuple(params[name] for name in self.positional)
        row = self._fetch_one(params)
        if row is None:
            raise InvalidToken()
        (user_id, email, name, is_active, provider, roles, created_at, version, blocked,
         session_id, session_ended) = row
        if (blocked is not None or claims.get("ver") != version
                or (sid is not None and (session_id is None or session_ended is not None))):
            raise TokenRevoked()
        if not is_active:
            raise InvalidToken()
        # The user's columns, as read: the same row gives the same Principal, so it is
        # built once (any change to the user makes another key).
        key = (user_id, email, name, provider, roles if isinstance(roles, str) else
               tuple(roles or ()), created_at, version)
        principal = self.principals.get(key)
        if principal is None:
            principal = _keep(self.principals, key, _principal(*key))
        return principal

    def authenticate(self):
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            raise NotAuthenticated()
        token = token.strip()
        if not token or " " in token:
            raise InvalidToken()
        claims = self.claims(token)
        return claims, self.load(claims)


def init_app(app):
    with app.app_context():
        app.extensions["datahub.access_guard"] = AccessGuard(app, db.engine)


def authenticate():
    """Check the request's bearer token; sets ``current_user`` and ``current_claims``."""
    g.access_claims, g.current_user = current_app.extensions["datahub.access_guard"].authenticate()


def auth_required(view):
    """Let the view run only for a valid bearer access token; see ``current_user``."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        authenticate()
        return view(*args, **kwargs)

    # Copied onto the decorators above it (functools.wraps); datahub.api runs it before
    # answering 422 for a bad path parameter, so a 401 still comes first.
    wrapper.bearer_guard = authenticate
    return wrapper


current_user = LocalProxy(lambda: g.current_user)
current_claims = LocalProxy(lambda: g.access_claims)


def current_user_record():
    """The caller as an ORM ``User``, for views that change it (one more query)."""
    return db.session.get(User, g.current_user.id)
