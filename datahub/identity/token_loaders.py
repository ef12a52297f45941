"""The refresh cookie, read by flask-jwt-extended: its loaders answer through the token
codec (datahub.identity.tokens) and with our error table.

flask-jwt-extended reads the cookie and checks signature, expiry, type and the
double-submit CSRF header; the loaders check the claims, the revocation and the user.
``register_jwt_loaders`` installs them on the app's ``JWTManager`` (the app factory calls
it); ``verified_refresh`` is what a view calls.
"""

import sqlalchemy as sa
from flask import g
from flask_jwt_extended import get_jwt, verify_jwt_in_request

from datahub.app.extensions import db
from datahub.identity.errors import (
    InvalidToken,
    NotAuthenticated,
    TokenExpired,
    TokenRevoked,
)
from datahub.identity.models import AuthSession, RefreshToken, User
from datahub.identity.tokens import codec, subject
from datahub.web.errors import json_error_response


def verified_refresh():
    """The request's refresh cookie, verified, and its user: ``(RefreshClaims, User)``.

    Any failure is answered with our error table (the loaders below)."""
    verify_jwt_in_request(refresh=True, locations=["cookies"])
    claims = codec().refresh_claims(get_jwt())
    user, _revoked = _lookup(claims)
    return claims, user


def _lookup(claims):
    """(user or None, revoked?) for ``RefreshClaims``, from one query, memoised per request
    (flask-jwt-extended asks twice: revoked? then the user).

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


def _has_required_claims(_jwt_header, jwt_payload):
    """PyJWT checks ``exp`` only when present; a token without it must not live forever."""
    return codec().refresh_claims(jwt_payload) is not None


def _token_revoked(_jwt_header, jwt_payload):
    user, revoked = _lookup(codec().refresh_claims(jwt_payload))
    # An unknown user is not "revoked": it fails the user lookup instead (Invalid token),
    # and a malformed token fails the claims check (Invalid token).
    return user is not None and revoked


def _load_user(_jwt_header, jwt_payload):
    user, _revoked = _lookup(codec().refresh_claims(jwt_payload))
    if user is None or not user.is_active:
        return None
    return user


def _decode_key(_jwt_header, _jwt_payload):
    return codec().key


def _answer(error):
    """A loader that answers ``error`` whatever flask-jwt-extended passes it."""
    return lambda *_args: json_error_response(error())


def register_jwt_loaders(jwt):
    """Install the loaders on ``jwt``, the app's ``JWTManager``."""
    jwt.token_verification_loader(_has_required_claims)
    jwt.token_in_blocklist_loader(_token_revoked)
    jwt.user_lookup_loader(_load_user)
    jwt.decode_key_loader(_decode_key)
    jwt.user_identity_loader(subject)
    jwt.unauthorized_loader(_answer(NotAuthenticated))
    jwt.invalid_token_loader(_answer(InvalidToken))
    jwt.expired_token_loader(_answer(TokenExpired))
    jwt.revoked_token_loader(_answer(TokenRevoked))
    jwt.user_lookup_error_loader(_answer(InvalidToken))
    jwt.token_verification_failed_loader(_answer(InvalidToken))
    jwt.needs_fresh_token_loader(_answer(InvalidToken))
