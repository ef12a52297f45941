"""The token codec: the one module that knows the claims and the two token types.

- An access token (``Authorization: Bearer``) names its user (``sub``), the user's
  ``token_version`` when issued (``ver``) and, after a login, its session (``sid``).
- A refresh token (the HttpOnly cookie) names its user, its session (``fam``: the family
  of refresh tokens rotated from one login) and, with double-submit CSRF, the session's
  CSRF value (``csrf``).

Both carry ``jti``, ``type``, ``iat`` and ``exp``, and as configured ``nbf``, ``iss`` and
``aud``. Everything else reads them as ``AccessClaims`` and ``RefreshClaims``.

Access tokens are decoded on every API call, so that is done here by hand for HMAC
algorithms (bench/README.rst has the profile behind this): what does not depend on the
clock is checked once per token. flask-jwt-extended reads the refresh cookie and checks
the double-submit CSRF header; its loaders below answer through this codec and with our
error table.
"""
import base64
import binascii
import hashlib
import hmac
import json
import re
import time
import uuid
from dataclasses import dataclass

import jwt
import sqlalchemy as sa
from flask import current_app, g
from flask_jwt_extended import get_jwt, verify_jwt_in_request

from datahub.web.errors import json_error_response
from datahub.app.extensions import db
from datahub.app.extensions import jwt as jwt_manager
from datahub.identity.errors import (
    InvalidToken,
    NotAuthenticated,
    TokenExpired,
    TokenRevoked,
)
from datahub.identity.models import AuthSession, RefreshToken, User

ACCESS, REFRESH = "access", "refresh"
REQUIRED_CLAIMS = ("sub", "jti", "type", "iat", "exp")
KEPT = 4096  # verified access tokens kept per worker


@dataclass(frozen=True, slots=True)
class AccessClaims:
    """What a verified access token says."""

    user_id: str
    token_id: str
    session_id: str | None  # None: not bound to a session
    version: object  # the user's token_version when issued
    issued_at: float
    not_before: float
    expires_at: float


@dataclass(frozen=True, slots=True)
class RefreshClaims:
    """What a verified refresh token says."""

    user_id: str
    token_id: str
    session_id: str
    csrf: str | None  # the double-submit value, when JWT_COOKIE_CSRF_PROTECT
    issued_at: float
    expires_at: float


_COMPACT_JWS = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")
_HMAC = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}


def _b64decode(segment):
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value):
    return isinstance(value, str)


def _subject(identity):
    return str(identity)  # PyJWT >= 2.10 insists on a string ``sub``


def _well_formed(payload):
    """The required claims are there, the times are numbers and the ids are text."""
    return (all(payload.get(claim) is not None for claim in REQUIRED_CLAIMS)
            and all(_number(payload.get(c, payload["iat"])) for c in ("exp", "iat", "nbf"))
            and _text(payload["sub"]) and _text(payload["jti"]))


def _access(payload):
    """``AccessClaims`` of a verified payload; None if it is no well-formed access token."""
    session_id = payload.get("sid")
    if (payload.get("type") != ACCESS or not _well_formed(payload)
            or not (session_id is None or _text(session_id))):
        return None
    issued_at = payload["iat"]
    return AccessClaims(payload["sub"], payload["jti"], session_id, payload.get("ver"),
                        issued_at, payload.get("nbf", issued_at), payload["exp"])


def _refresh(payload):
    """``RefreshClaims`` of a verified payload; None if it is no well-formed refresh token."""
    csrf = payload.get("csrf")
    if (payload.get("type") != REFRESH or not _well_formed(payload)
            or not _text(payload.get("fam")) or not (csrf is None or _text(csrf))):
        return None
    return RefreshClaims(payload["sub"], payload["jti"], payload["fam"], csrf,
                         payload["iat"], payload["exp"])


_PARSE = {ACCESS: _access, REFRESH: _refresh}


class TokenCodec:
    """Encodes and decodes both token types; everything is prepared once per app."""

    def __init__(self, config):
        self.algorithm = config["JWT_ALGORITHM"]
        self.key = config["JWT_SECRET_KEY"]
        self.hmac_key = str(self.key).encode("utf-8")
        self.decode_algorithms = list(config.get("JWT_DECODE_ALGORITHMS") or [self.algorithm])
        self.encode_issuer = config["JWT_ENCODE_ISSUER"]
        self.encode_audience = config["JWT_ENCODE_AUDIENCE"]
        self.issuer = config["JWT_DECODE_ISSUER"]
        self.audience = config["JWT_DECODE_AUDIENCE"]
        self.leeway = float(config.get("JWT_DECODE_LEEWAY") or 0)
        self.encode_nbf = bool(config["JWT_ENCODE_NBF"])
        self.decoder = jwt.PyJWT(options={"require": list(REQUIRED_CLAIMS)})
        self.verified = {}  # token text -> AccessClaims that passed every clock-free check
        self.decode_access = self._decode_hmac if self.algorithm in _HMAC else self._decode_pyjwt

    # -- encoding ----------------------------------------------------------------------

    def _encode(self, type_, user_id, token_id, issued_at, expires_at, claims):
        payload = {"type": type_, "sub": _subject(user_id), "jti": token_id, "iat": issued_at,
                   "exp": expires_at}
        if self.encode_nbf:
            payload["nbf"] = issued_at
        if self.encode_issuer:
            payload["iss"] = self.encode_issuer
        if self.encode_audience:
            payload["aud"] = self.encode_audience
        payload.update((name, value) for name, value in claims.items() if value is not None)
        return jwt.encode(payload, self.key, algorithm=self.algorithm)

    def encode_access(self, user_id, version, issued_at, expires_at, session_id=None):
        """An access token; times are whole seconds since 1970."""
        return self._encode(ACCESS, user_id, str(uuid.uuid4()), issued_at, expires_at,
                            {"ver": version, "sid": session_id})

    def encode_refresh(self, user_id, token_id, session_id, issued_at, expires_at, csrf=None):
        """A refresh token of session ``session_id``, recorded as ``token_id``."""
        return self._encode(REFRESH, user_id, token_id, issued_at, expires_at,
                            {"fam": session_id, "csrf": csrf})

    # -- decoding ----------------------------------------------------------------------

    def decode(self, token, type_, *, allow_expired=False):
        """The claims of a token of ``type_`` (PyJWT's check); raises InvalidToken or
        TokenExpired. ``decode_access`` is the fast path of access tokens."""
        try:
            payload = self.decoder.decode(
                token, self.key, algorithms=self.decode_algorithms, audience=self.audience,
                issuer=self.issuer, leeway=self.leeway,
                options={"verify_exp": not allow_expired},
            )
        except jwt.ExpiredSignatureError as exc:
            raise TokenExpired() from exc
        except jwt.PyJWTError as exc:
            raise InvalidToken() from exc
        claims = _PARSE[type_](payload)
        if claims is None:
            raise InvalidToken()
        return claims

    def read(self, token, type_, *, allow_expired=False):
        """Like ``decode``, but None for any token that does not pass (logout's reading:
        what it cannot verify it ignores)."""
        try:
            return self.decode(token, type_, allow_expired=allow_expired)
        except NotAuthenticated:
            return None

    def refresh_claims(self, payload):
        """``RefreshClaims`` of a payload flask-jwt-extended verified; None if malformed."""
        return _refresh(payload)

    def _decode_pyjwt(self, token):
        """Access tokens signed with other than HMAC: PyJWT's check, with only the
        configured algorithm."""
        try:
            payload = self.decoder.decode(
                token, self.key, algorithms=[self.algorithm], audience=self.audience,
                issuer=self.issuer, leeway=self.leeway,
            )
        except jwt.ExpiredSignatureError as exc:
            raise TokenExpired() from exc
        except jwt.PyJWTError as exc:
            raise InvalidToken() from exc
        claims = _access(payload)
        if claims is None:
            raise InvalidToken()
        return claims

    def _decode_hmac(self, token):
        """RFC 7519 validation of an HMAC-signed compact JWS, as PyJWT does it (a test
        holds the two in agreement), without PyJWT's per-call generality.

        What does not depend on the clock (signature, header, claim types, ``iss``, ``aud``)
        is checked once per token: a client sends the same token for its whole lifetime,
        so the verified claims are kept, keyed by the exact token text, and only the
        time claims are checked again on each request."""
        claims = self.verified.get(token)
        if claims is None:
            claims = self._verify_hmac(token)
            if len(self.verified) >= KEPT:
                del self.verified[next(iter(self.verified))]  # the oldest goes first
            self.verified[token] = claims
        self._check_clock(claims.issued_at, claims.not_before, claims.expires_at)
        return claims

    def _check_clock(self, issued_at, not_before, expires_at):
        now, leeway = time.time(), self.leeway
        if issued_at > now + leeway or not_before > now + leeway:
            raise InvalidToken()
        if expires_at <= now - leeway:
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
            payload = json.loads(_b64decode(payload_b64))
        except (ValueError, binascii.Error, RecursionError) as exc:
            raise InvalidToken() from exc
        if not isinstance(payload, dict) or not _well_formed(payload):
            raise InvalidToken()
        audience = payload.get("aud")
        claims = _access(payload)
        if claims is None or payload.get("iss") != self.issuer or not (
                audience == self.audience
                or (isinstance(audience, list) and self.audience in audience)):
            # PyJWT checks the clock first: "expired" wins
            self._check_clock(payload["iat"], payload.get("nbf", payload["iat"]), payload["exp"])
            raise InvalidToken()
        return claims


_EXTENSION = "datahub.token_codec"


def codec(app=None):
    """The app's codec (the current app's by default), made from its configuration."""
    app = current_app._get_current_object() if app is None else app
    found = app.extensions.get(_EXTENSION)
    if found is None:
        found = app.extensions.setdefault(_EXTENSION, TokenCodec(app.config))
    return found


# -- the refresh cookie (flask-jwt-extended) ---------------------------------------------

def verified_refresh():
    """The request's refresh cookie, verified, and its user: ``(RefreshClaims, User)``.

    flask-jwt-extended reads the cookie, checks signature, expiry, type and the
    double-submit CSRF header; the loaders below check the claims, the revocation and
    the user. Any failure is answered with our error table."""
    verify_jwt_in_request(refresh=True, locations=["cookies"])
    claims = codec().refresh_claims(get_jwt())
    user, _revoked = _lookup(claims)
    return claims, user


def _lookup(claims):
    """(user or None, revoked?) for ``RefreshClaims``, from one query, memoised per request.

    A refresh token is revoked when its record or its session is."""
    if claims is None:
        return None, True
    cached = g.get("_datahub_refresh_lookup")
    if cached is not None and cached[0] == claims.token_id:
        return cached[1], cached[2]
    row = db.session.execute(
        sa.select(User, RefreshToken.revoked_at, AuthSession.revoked_at)
        .select_from(User)
        .join(RefreshToken, RefreshToken.user_id == User.id)
        .join(AuthSession, AuthSession.id == RefreshToken.family_id)
        .where(RefreshToken.jti == claims.token_id, User.id == claims.user_id)
    ).first()
    user = row[0] if row else None
    revoked = row is None or row[1] is not None or row[2] is not None
    g._datahub_refresh_lookup = (claims.token_id, user, revoked)
    return user, revoked


@jwt_manager.token_verification_loader
def _has_required_claims(_jwt_header, jwt_payload):
    """PyJWT checks ``exp`` only when present; a token without it must not live forever."""
    return codec().refresh_claims(jwt_payload) is not None


@jwt_manager.token_in_blocklist_loader
def _token_revoked(_jwt_header, jwt_payload):
    user, revoked = _lookup(codec().refresh_claims(jwt_payload))
    # An unknown user is not "revoked": it fails the user lookup instead (Invalid token),
    # and a malformed token fails the claims check (Invalid token).
    return user is not None and revoked


@jwt_manager.user_lookup_loader
def _load_user(_jwt_header, jwt_payload):
    user, _revoked = _lookup(codec().refresh_claims(jwt_payload))
    if user is None or not user.is_active:
        return None
    return user


@jwt_manager.decode_key_loader
def _decode_key(_jwt_header, _jwt_payload):
    return codec().key


@jwt_manager.user_identity_loader
def _identity(identity):
    return _subject(identity)


@jwt_manager.unauthorized_loader
def _unauthorized(_reason):
    return json_error_response(NotAuthenticated())


@jwt_manager.invalid_token_loader
def _invalid(_reason):
    return json_error_response(InvalidToken())


@jwt_manager.expired_token_loader
def _expired(_jwt_header, _jwt_payload):
    return json_error_response(TokenExpired())


@jwt_manager.revoked_token_loader
def _revoked(_jwt_header, _jwt_payload):
    return json_error_response(TokenRevoked())


@jwt_manager.user_lookup_error_loader
def _user_lookup_error(_jwt_header, _jwt_payload):
    return json_error_response(InvalidToken())


@jwt_manager.token_verification_failed_loader
def _verification_failed(_jwt_header, _jwt_payload):
    return json_error_response(InvalidToken())


@jwt_manager.needs_fresh_token_loader
def _needs_fresh(_jwt_header, _jwt_payload):
    return json_error_response(InvalidToken())
