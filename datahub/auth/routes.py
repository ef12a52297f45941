"""/api/v1/auth: login, refresh, logout, me, the caller's sessions and password."""
import functools
import json

import sqlalchemy as sa
from flask import current_app, request
from flask.views import MethodView

from datahub.api import BEARER, REFRESH_COOKIE, Blueprint, MessageSchema
from datahub.audit import audit
from datahub.auth import cookies, limits
from datahub.auth.origin import check_double_submit, require_trusted_origin
from datahub.auth.schemas import (
    LoginSchema,
    PageArgsSchema,
    PasswordChangeSchema,
    SessionPageSchema,
    TokenSchema,
)
from datahub.database import utcnow
from datahub.extensions import db
from datahub.identity import logins, sessions, tokens
from datahub.identity.errors import SessionNotFound, TokenRevoked
from datahub.identity.guard import (
    auth_required,
    current_claims,
    current_user,
    current_user_record,
)
from datahub.identity.models import AuthSession
from datahub.users import services as user_services
from datahub.users.schemas import UserSchema

blp = Blueprint("auth", __name__, url_prefix="/api/v1/auth", description="Log in and manage the session")

def _token_body(access_token):
    return {"access_token": access_token, "token_type": "bearer"}, 200, cookies.NO_STORE


_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"))  # what jsonify writes outside debug


@functools.lru_cache(maxsize=4096)
def _me_body(principal):
    """The body of ``/me`` for this (immutable) principal."""
    return _COMPACT_JSON.encode(principal.as_json()) + "\n"


# -- views -----------------------------------------------------------------------------

@blp.route("/login")
class Login(MethodView):
    @blp.response(200, TokenSchema, description="Logged in; the refresh cookie is set",
                  headers={"Set-Cookie": {"description": "The HttpOnly refresh token cookie",
                                          "schema": {"type": "string"}}})
    @blp.alt_response(401, description="Invalid email or password")
    @blp.alt_response(409, description="Account exists with another provider (the directory "
                      "knows the email, but a user of another provider holds it)")
    @blp.alt_response(429, **limits.TOO_MANY)
    @blp.alt_response(503, description="Authentication service unavailable (the LDAP "
                      "directory is down or slow); see Retry-After")
    @limits.login_per_email
    @limits.login_per_address
    @blp.arguments(LoginSchema)
    def post(self, credentials):
        """Log in with email and password: a local user, or (with LDAP configured) a
        user of the directory."""
        user = logins.authenticate(credentials["email"], credentials["password"])
        return _token_body(cookies.start_login(user))


@blp.route("/refresh")
class Refresh(MethodView):
    @blp.doc(security=REFRESH_COOKIE)
    @blp.response(200, TokenSchema, description="A new access token, and a new refresh "
                  "cookie (the presented one is retired)")
    @blp.alt_response(401, description="Refresh cookie missing, expired, invalid or revoked "
                      "(a retired cookie replayed after the grace window revokes its session)")
    @blp.alt_response(403, description="A cross-site request (Origin or Sec-Fetch-Site)")
    @blp.alt_response(429, **limits.TOO_MANY)
    @limits.refresh_per_address
    def post(self):
        """Rotate the refresh cookie and issue a new access token."""
        require_trusted_origin()
        presented, user = tokens.verified_refresh()
        try:
            token, record, session = sessions.rotate(presented, user)
        except TokenRevoked:
            cookies.delete_refresh_cookie()
            raise
        access_token = sessions.issue_access_token(user, session)
        db.session.commit()
        if token is not None:
            cookies.set_refresh_cookie(token, record, session.csrf_token)
        cookies.send_csrf_token(session.csrf_token if token is not None else presented.csrf)
        return _token_body(access_token)


@blp.route("/logout")
class Logout(MethodView):
    @blp.doc(security=[{}, *BEARER, *REFRESH_COOKIE])
    @blp.response(200, MessageSchema, description="Logged out; the refresh cookie is deleted")
    @blp.alt_response(403, description="A cross-site request (Origin or Sec-Fetch-Site)")
    def post(self):
        """End the session: revoke the refresh cookie's session and the bearer's access token."""
        require_trusted_origin()
        user_id = session_id = None
        codec = tokens.codec()
        refresh_cookie = request.cookies.get(current_app.config["JWT_REFRESH_COOKIE_NAME"])
        # An expired cookie still names the session to end.
        refresh = (codec.read(refresh_cookie, tokens.REFRESH, allow_expired=True)
                   if refresh_cookie else None)
        if refresh is not None:
            check_double_submit(refresh)
            user_id, session_id = refresh.user_id, refresh.session_id
            sessions.revoke_session(session_id, "logout")

        authorization = request.headers.get("Authorization", "")
        scheme, _, bearer = authorization.partition(" ")
        access = (codec.read(bearer.strip(), tokens.ACCESS) if scheme.lower() == "bearer"
                  else None)
        if access is not None:
            sessions.revoke_access_token(access)
            user_id = user_id or access.user_id
        try:
            db.session.commit()
        except sa.exc.IntegrityError:  # a concurrent logout blocked the same token first
            db.session.rollback()
        if user_id:
            audit("logout", user_id=user_id, session_id=session_id)
        cookies.delete_refresh_cookie()
        return {"message": "Successfully logged out"}


@blp.route("/logout-all")
class LogoutAll(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, MessageSchema, description="Every session of the caller has ended")
    @blp.alt_response(401, description="Not authenticated, invalid, expired or revoked token")
    @auth_required
    def post(self):
        """End every session of the caller, on every device; void every access token."""
        user = current_user_record()
        ended = sessions.end_all_sessions(user, reason="logout_all")
        db.session.commit()
        audit("logout_all", user_id=user.id, email=user.email, sessions_ended=ended)
        cookies.delete_refresh_cookie()
        return {"message": "Logged out of all sessions"}


@blp.route("/sessions")
class Sessions(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, SessionPageSchema)
    @blp.alt_response(401, description="Not authenticated, invalid, expired or revoked token")
    @auth_required
    @blp.arguments(PageArgsSchema, location="query", as_kwargs=True)
    def get(self, limit, offset):
        """The caller's active sessions (logins), most recently used first."""
        query = sessions.active_sessions(current_user.id)
        total = db.session.scalar(sa.select(sa.func.count()).select_from(query.subquery()))
        rows = db.session.scalars(
            query.order_by(AuthSession.last_used_at.desc(), AuthSession.id)
            .limit(limit).offset(offset)
        ).all()
        current = current_claims.session_id
        items = [
            {"id": s.id, "created_at": s.created_at, "last_used_at": s.last_used_at,
             "expires_at": s.expires_at, "user_agent": s.user_agent,
             "client_address": s.client_address, "current": s.id == current}
            for s in rows
        ]
        return {"items": items, "total": total, "limit": limit, "offset": offset}, 200, cookies.NO_STORE


@blp.route("/sessions/<text:session_id>")
class SessionItem(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(204, description="The session has ended")
    @blp.alt_response(401, description="Not authenticated, invalid, expired or revoked token")
    @blp.alt_response(404, description="Session not found (unknown, ended or someone else's)")
    @auth_required
    def delete(self, session_id):
        """End one of the caller's sessions (its refresh and access tokens stop working)."""
        user = current_user
        owned = sessions.active_sessions(user.id).where(AuthSession.id == session_id)
        if db.session.scalar(owned) is None:
            raise SessionNotFound()
        sessions.revoke_session(session_id, "deleted")
        db.session.commit()
        current = session_id == current_claims.session_id
        audit("session_deleted", user_id=user.id, session_id=session_id, current=current)
        if current:
            cookies.delete_refresh_cookie()
        return ""


@blp.route("/me")
class Me(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, UserSchema)
    @blp.alt_response(401, description="Not authenticated, invalid, expired or revoked token")
    @auth_required
    def get(self):
        """The authenticated user."""
        # Serialised by hand, and without jsonify's per-call lookups: this is the hottest
        # endpoint (see bench/); the response schema above documents it and a test holds
        # the two equal, byte for byte.
        return current_app.response_class(_me_body(current_user),
                                          mimetype="application/json")


@blp.route("/me/password")
class MyPassword(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, TokenSchema, description="Changed. Every other session has ended and "
                  "every access token already out is void; use the one returned here")
    @blp.alt_response(401, description="Not authenticated, invalid, expired or revoked token")
    @blp.alt_response(409, description="Password is managed by the identity provider (a "
                      "user of LDAP changes it in the directory)")
    @blp.alt_response(422, description="Invalid new password, or the current password is "
                      "incorrect (loc [\"body\", \"current_password\"])")
    @blp.alt_response(429, **limits.TOO_MANY)
    @auth_required
    @limits.password_change_per_user
    @blp.arguments(PasswordChangeSchema)
    def put(self, body):
        """Change the caller's password (current and new password)."""
        user = current_user_record()
        keep = current_claims.session_id
        user_services.change_password(user, body["current_password"], body["new_password"],
                                      keep_session=keep)
        session = db.session.get(AuthSession, keep) if keep else None
        if session is not None and (session.revoked_at is not None
                                    or session.expires_at <= utcnow()):
            session = None
        return _token_body(sessions.issue_access_token(user, session))
