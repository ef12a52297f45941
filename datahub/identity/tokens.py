"""The token codec: the one module that knows the claims and the two token types.

- An access token (``Authorization: Bearer``) names its user (``sub``), the user's
  ``token_version`` when issued (``ver``) and, after a login, its session (``sid``).
- A refresh token (the HttpOnly cookie) names its user, its session (``fam``: the family
  of refresh tokens rotated from one login) and, with double-submit CSRF, the session's
  CSRF value (``csrf``).

Both carry ``jti``, ``type``, ``iat`` and ``exp``, and as configured ``nbf``, ``iss`` and
``aud``. Everything else reads them as ``AccessClaims`` and ``RefreshClaims``.

PyJWT verifies every token. Access tokens are decoded on every API call, and a client
sends the same one for its whole lifetime, so the claims of a verified access token are
kept: only the time claims are checked again (bench/README.rst has the numbers). The
refresh cookie is read by flask-jwt-extended (datahub.identity.token_loaders).
"""

import time
import uuid
from dataclasses import dataclass

import jwt
from flask import current_app

from datahub.app.registry import per_app
from datahub.identity.errors import InvalidToken, NotAuthenticated, TokenExpired
from datahub.identity.fifo_cache import FifoCache

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

    is_personal_token = False  # see datahub.identity.personal_tokens.services.PersonalTokenClaims


@dataclass(frozen=True, slots=True)
class RefreshClaims:
    """What a verified refresh token says."""

    user_id: str
    token_id: str
    session_id: str
    csrf: str | None  # the double-submit value, when JWT_COOKIE_CSRF_PROTECT
    issued_at: float
    expires_at: float


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value):
    return isinstance(value, str)


def subject(identity):
    """The ``sub`` of a user id: PyJWT >= 2.10 insists on a string."""
    return str(identity)


def _well_formed(payload):
    """The required claims are there, the times are numbers and the ids are text."""
    return (
        all(payload.get(claim) is not None for claim in REQUIRED_CLAIMS)
        and all(_number(payload.get(c, payload["iat"])) for c in ("exp", "iat", "nbf"))
        and _text(payload["sub"])
        and _text(payload["jti"])
    )


def _access(payload):
    """``AccessClaims`` of a verified payload; None if it is no well-formed access token."""
    session_id = payload.get("sid")
    if (
        payload.get("type") != ACCESS
        or not _well_formed(payload)
        or not (session_id is None or _text(session_id))
    ):
        return None
    issued_at = payload["iat"]
    return AccessClaims(
        payload["sub"],
        payload["jti"],
        session_id,
        payload.get("ver"),
        issued_at,
        payload.get("nbf", issued_at),
        payload["exp"],
    )


def _refresh(payload):
    """``RefreshClaims`` of a verified payload; None if it is no well-formed refresh token."""
    csrf = payload.get("csrf")
    if (
        payload.get("type") != REFRESH
        or not _well_formed(payload)
        or not _text(payload.get("fam"))
        or not (csrf is None or _text(csrf))
    ):
        return None
    return RefreshClaims(
        payload["sub"], payload["jti"], payload["fam"], csrf, payload["iat"], payload["exp"]
    )


_PARSE = {ACCESS: _access, REFRESH: _refresh}


class TokenCodec:
    """Encodes and decodes both token types; everything is prepared once per app."""

    def __init__(self, config):
        self.algorithm = config["JWT_ALGORITHM"]
        self.key = config["JWT_SECRET_KEY"]
        self.decode_algorithms = list(config.get("JWT_DECODE_ALGORITHMS") or [self.algorithm])
        self.encode_issuer = config["JWT_ENCODE_ISSUER"]
        self.encode_audience = config["JWT_ENCODE_AUDIENCE"]
        self.issuer = config["JWT_DECODE_ISSUER"]
        self.audience = config["JWT_DECODE_AUDIENCE"]
        self.leeway = float(config.get("JWT_DECODE_LEEWAY") or 0)
        self.encode_nbf = bool(config["JWT_ENCODE_NBF"])
        self.decoder = jwt.PyJWT(options={"require": list(REQUIRED_CLAIMS)})
        self.verified = FifoCache(KEPT)  # token text -> AccessClaims PyJWT verified

    # -- encoding ----------------------------------------------------------------------

    def _encode(self, type_, user_id, token_id, issued_at, expires_at, claims):
        payload = {
            "type": type_,
            "sub": subject(user_id),
            "jti": token_id,
            "iat": issued_at,
            "exp": expires_at,
        }
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
        return self._encode(
            ACCESS,
            user_id,
            str(uuid.uuid4()),
            issued_at,
            expires_at,
            {"ver": version, "sid": session_id},
        )

    def encode_refresh(self, user_id, token_id, session_id, issued_at, expires_at, csrf=None):
        """A refresh token of session ``session_id``, recorded as ``token_id``."""
        return self._encode(
            REFRESH, user_id, token_id, issued_at, expires_at, {"fam": session_id, "csrf": csrf}
        )

    # -- decoding ----------------------------------------------------------------------

    def decode(self, token, type_, *, allow_expired=False):
        """The claims of a token of ``type_``; raises InvalidToken or TokenExpired.
        ``decode_access`` is the one for access tokens on every request."""
        payload = self._payload(token, self.decode_algorithms, verify_exp=not allow_expired)
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

    def decode_access(self, token):
        """The claims of an access token; raises InvalidToken or TokenExpired.

        PyJWT checks it, with only the configured algorithm. What does not depend on the
        clock (signature, header, claim types, ``iss``, ``aud``) is checked once per token:
        the verified claims are kept, keyed by the exact token text, and on each later
        request only ``iat``, ``nbf`` and ``exp`` are checked again, as PyJWT does."""
        claims = self.verified.get(token)
        if claims is None:
            return self.verified.keep(token, self._verify_access(token))
        now, leeway = time.time(), self.leeway
        if int(claims.issued_at) > now + leeway or int(claims.not_before) > now + leeway:
            raise InvalidToken()
        if int(claims.expires_at) <= now - leeway:
            raise TokenExpired()
        return claims

    def _verify_access(self, token):
        claims = _access(self._payload(token, [self.algorithm]))
        if claims is None:
            raise InvalidToken()
        return claims

    def _payload(self, token, algorithms, verify_exp=True):
        """PyJWT's check of signature, header and claims; its errors as ours."""
        try:
            return self.decoder.decode(
                token,
                self.key,
                algorithms=algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"verify_exp": verify_exp},
            )
        except jwt.ExpiredSignatureError as exc:
            raise TokenExpired() from exc
        except jwt.PyJWTError as exc:
            raise InvalidToken() from exc


_EXTENSION = "datahub.token_codec"


def codec(app=None):
    """The app's codec (the current app's by default), made from its configuration."""
    app = current_app._get_current_object() if app is None else app
    return per_app(app, _EXTENSION, lambda: TokenCodec(app.config))
