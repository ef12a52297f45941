"""/api/v1/auth: login, refresh, logout, me."""
import sqlalchemy as sa
from flask import after_this_request, current_app, jsonify, request
from flask.views import MethodView
from flask_jwt_extended import current_user, decode_token, verify_jwt_in_request
from flask_jwt_extended.exceptions import JWTExtendedException
from jwt import PyJWTError

from datahub.api import BEARER, REFRESH_COOKIE, Blueprint, MessageSchema
from datahub.auth import guard, sessions
from datahub.auth.guard import auth_required
from datahub.auth.schemas import LoginSchema, TokenSchema
from datahub.config import as_timedelta
from datahub.errors import InvalidCredentials
from datahub.extensions import db
from datahub.users.models import User
from datahub.users.passwords import check_password
from datahub.users.schemas import UserSchema, normalise_email

blp = Blueprint("auth", __name__, url_prefix="/api/v1/auth", description="Log in and manage the session")

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _set_refresh_cookie(token):
    config = current_app.config

    @after_this_request
    def _set(response):
        response.set_cookie(
            config["JWT_REFRESH_COOKIE_NAME"],
            token,
            max_age=int(as_timedelta(config["JWT_REFRESH_TOKEN_EXPIRES"]).total_seconds()),
            path=config["JWT_REFRESH_COOKIE_PATH"],
            secure=config["JWT_COOKIE_SECURE"],
            httponly=True,
            samesite=config["JWT_COOKIE_SAMESITE"],
        )
        return response


def _delete_refresh_cookie():
    config = current_app.config

    @after_this_request
    def _delete(response):
        response.delete_cookie(
            config["JWT_REFRESH_COOKIE_NAME"],
            path=config["JWT_REFRESH_COOKIE_PATH"],
            secure=config["JWT_COOKIE_SECURE"],
            httponly=True,
            samesite=config["JWT_COOKIE_SAMESITE"],
        )
        return response


def _token_body(access_token):
    return {"access_token": access_token, "token_type": "bearer"}, 200, NO_STORE


def _decode_or_none(token, **kwargs):
    try:
        return decode_token(token, **kwargs)
    except (PyJWTError, JWTExtendedException):
        return None


@blp.route("/login")
class Login(MethodView):
    @blp.arguments(LoginSchema)
    @blp.response(200, TokenSchema, description="Logged in; the refresh cookie is set",
                  headers={"Set-Cookie": {"description": "The HttpOnly refresh token cookie",
                                          "schema": {"type": "string"}}})
    @blp.alt_response(401, description="Invalid email or password")
    def post(self, credentials):
        """Log in with email and password."""
        user = db.session.scalar(
            sa.select(User).where(User.email == normalise_email(credentials["email"]))
        )
        password_ok = check_password(credentials["password"], user.password_hash if user else None)
        if not (password_ok and user.is_active and user.provider == "local"):
            raise InvalidCredentials()
        refresh_token, _record = sessions.issue_refresh_token(user)
        db.session.commit()
        _set_refresh_cookie(refresh_token)
        return _token_body(sessions.issue_access_token(user))


@blp.route("/refresh")
class Refresh(MethodView):
    @blp.doc(security=REFRESH_COOKIE)
    @blp.response(200, TokenSchema, description="A new access token")
    @blp.alt_response(401, description="Refresh cookie missing, expired, invalid or revoked")
    def post(self):
        """Issue a new access token from the refresh cookie."""
        verify_jwt_in_request(refresh=True, locations=["cookies"])
        return _token_body(sessions.issue_access_token(current_user))


@blp.route("/logout")
class Logout(MethodView):
    @blp.doc(security=[{}, *BEARER, *REFRESH_COOKIE])
    @blp.response(200, MessageSchema, description="Logged out; the refresh cookie is deleted")
    def post(self):
        """End the session: revoke the refresh cookie's token and the bearer's access token."""
        refresh_cookie = request.cookies.get(current_app.config["JWT_REFRESH_COOKIE_NAME"])
        refresh = _decode_or_none(refresh_cookie, allow_expired=True) if refresh_cookie else None
        if refresh and refresh.get("type") == "refresh":
            sessions.revoke_refresh_token(refresh["jti"])

        authorization = request.headers.get("Authorization", "")
        scheme, _, bearer = authorization.partition(" ")
        access = _decode_or_none(bearer.strip()) if scheme.lower() == "bearer" else None
        if access and access.get("type") == "access":
            sessions.revoke_access_token(access["jti"], access["exp"])
        try:
            db.session.commit()
        except sa.exc.IntegrityError:  # a concurrent logout blocked the same token first
            db.session.rollback()
        _delete_refresh_cookie()
        return {"message": "Successfully logged out"}


@blp.route("/me")
class Me(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, UserSchema)
    @blp.alt_response(401, description="Not authenticated, invalid, expired or revoked token")
    @auth_required
    def get(self):
        """The authenticated user."""
        # Serialised by hand: this is the hottest endpoint (see bench/); the response
        # schema above documents it and a test holds the two equal.
        return jsonify(guard.current_user.as_json())
