"""flask-jwt-extended wiring for the refresh cookie: every loader answers with our error
table, and one query decides whether the token is revoked and who its user is."""
import sqlalchemy as sa
from flask import g

from datahub.errors import error_response
from datahub.extensions import db, jwt
from datahub.identity.errors import (
    InvalidToken,
    NotAuthenticated,
    TokenExpired,
    TokenRevoked,
)
from datahub.identity.models import AuthSession, RefreshToken, User


def _lookup(jwt_payload):
    """(user or None, revoked?) for a refresh token, from one query, memoised per request.

    flask-jwt-extended verifies only refresh tokens here (the refresh cookie); access
    tokens go through datahub.identity.guard. A refresh token is revoked when its record or
    its session is.
    """
    jti = jwt_payload.get("jti")
    cached = g.get("_datahub_token_lookup")
    if cached is not None and cached[0] == jti:
        return cached[1], cached[2]
    row = None
    if jwt_payload.get("type") == "refresh":
        row = db.session.execute(
            sa.select(User, RefreshToken.revoked_at, AuthSession.revoked_at)
            .select_from(User)
            .join(RefreshToken, RefreshToken.user_id == User.id)
            .join(AuthSession, AuthSession.id == RefreshToken.family_id)
            .where(RefreshToken.jti == jti, User.id == jwt_payload.get("sub"))
        ).first()
    user = row[0] if row else None
    revoked = row is None or row[1] is not None or row[2] is not None
    g._datahub_token_lookup = (jti, user, revoked)
    return user, revoked


REQUIRED_CLAIMS = ("sub", "jti", "type", "iat", "exp")


@jwt.token_verification_loader
def _has_required_claims(_jwt_header, jwt_payload):
    """PyJWT checks ``exp`` only when present; a token without it must not live forever."""
    return all(jwt_payload.get(claim) is not None for claim in REQUIRED_CLAIMS)


@jwt.token_in_blocklist_loader
def _token_revoked(_jwt_header, jwt_payload):
    user, revoked = _lookup(jwt_payload)
    # An unknown user is not "revoked": it fails the user lookup instead (Invalid token).
    return user is not None and revoked


@jwt.user_lookup_loader
def _load_user(_jwt_header, jwt_payload):
    user, _revoked = _lookup(jwt_payload)
    if user is None or not user.is_active:
        return None
    return user


@jwt.user_identity_loader
def _identity(identity):
    return str(identity)  # PyJWT >= 2.10 insists on a string ``sub``


@jwt.unauthorized_loader
def _unauthorized(_reason):
    return error_response(NotAuthenticated())


@jwt.invalid_token_loader
def _invalid(_reason):
    return error_response(InvalidToken())


@jwt.expired_token_loader
def _expired(_jwt_header, _jwt_payload):
    return error_response(TokenExpired())


@jwt.revoked_token_loader
def _revoked(_jwt_header, _jwt_payload):
    return error_response(TokenRevoked())


@jwt.user_lookup_error_loader
def _user_lookup_error(_jwt_header, _jwt_payload):
    return error_response(InvalidToken())


@jwt.token_verification_failed_loader
def _verification_failed(_jwt_header, _jwt_payload):
    return error_response(InvalidToken())


@jwt.needs_fresh_token_loader
def _needs_fresh(_jwt_header, _jwt_payload):
    return error_response(InvalidToken())
