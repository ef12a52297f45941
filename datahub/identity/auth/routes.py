"""/api/v1/auth: login, refresh, logout, me, the caller's sessions, usage and password."""

import functools
import json

import sqlalchemy as sa
from flask import after_this_request, current_app, request
from flask.views import MethodView

from datahub import quotas
from datahub.app.extensions import db
from datahub.identity import logins, sessions, tokens
from datahub.identity.auth import cookies, limits
from datahub.identity.auth.blueprint import blp
from datahub.identity.auth.origin import check_double_submit, require_trusted_origin
from datahub.identity.auth.schemas import (
    LoginSchema,
    PageArgsSchema,
    PasswordChangeSchema,
    SessionPageSchema,
    TokenSchema,
    UsageSchema,
)
from datahub.identity.errors import SessionNotFound, TokenRevoked
from datahub.identity.guard import (
    auth_required,
    current_claims,
    current_user,
    current_user_record,
    session_required,
)
from datahub.identity.models import AuthSession
from datahub.identity.personal_tokens import routes as token_routes
from datahub.identity.personal_tokens.services import PREFIX as PAT_PREFIX
from datahub.identity.token_loaders import verified_refresh
from datahub.identity.users import services as user_services
from datahub.identity.users.schemas import UserSchema
from datahub.platform.audit import audit
from datahub.platform.database import utcnow
from datahub.web.errors import Forbidden
from datahub.web.openapi import (
    BEARER,
    JSON_BODY_ERRORS,
    REFRESH_COOKIE,
    MessageSchema,
    operation,
)

_NO_STORE = {
    "Cache-Control": {
        "description": "`no-store`: a token is never cached",
        "schema": {"type": "string"},
    }
}
_SET_COOKIE = {
    "Set-Cookie": {
        "description": "The refresh token cookie (`__Secure-refresh_token` by default): "
        "HttpOnly, Secure, `Path=/api/v1/auth`, `SameSite=Strict`",
        "schema": {"type": "string"},
    }
}
_TOO_MANY = (429, limits.TOO_MANY["description"])
_NOT_WITH_PAT = "`Forbidden`: a personal access token cannot do this (only a login can)"


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
    @operation(
        blp,
        "login",
        *JSON_BODY_ERRORS,
        (401, "`Invalid email or password`"),
        (
            409,
            "`Account exists with another provider` (the directory knows the "
            "email, but a user of another provider holds it)",
        ),
        _TOO_MANY,
        (
            503,
            "`Authentication service unavailable` (the LDAP directory is down or "
            "slow), or `Service unavailable` (the database); see Retry-After",
        ),
        security=[],
    )
    @blp.response(
        200,
        TokenSchema,
        description="Logged in; the refresh cookie is set",
        headers={**_SET_COOKIE, **_NO_STORE},
    )
    @limits.login_per_email
    @limits.login_per_address
    @limits.successes_per_address
    @blp.arguments(LoginSchema)
    def post(self, credentials):
        """Log in

        With email and password: a local user, or (with LDAP configured) a user of the
        directory. Answers an access token for ``Authorization: Bearer``, and sets the
        refresh token in an HttpOnly cookie for ``/auth/refresh``. Rate-limited per email
        and per client address (429): failed logins, and far more successful ones."""
        after_this_request(limits.forget_unanswered_attempt)
        user = logins.authenticate(credentials["email"], credentials["password"])
        body = _token_body(cookies.start_login(user))
        limits.forget_email_attempts()
        return body


@blp.route("/refresh")
class Refresh(MethodView):
    @operation(
        blp,
        "refresh_token",
        (
            401,
            "Refresh cookie missing, expired, invalid or revoked (a retired cookie "
            "replayed after the grace window revokes its session)",
        ),
        (403, "`Forbidden`: a cross-site request (Origin or Sec-Fetch-Site)"),
        _TOO_MANY,
        security=REFRESH_COOKIE,
    )
    @blp.response(
        200,
        TokenSchema,
        description="A new access token, and a new refresh cookie (the presented one is retired)",
        headers={**_SET_COOKIE, **_NO_STORE},
    )
    @limits.refresh_per_address
    def post(self):
        """Renew the access token

        Needs only the refresh cookie that login set (no request body, no bearer token).
        Rotates it: the answer sets a new one, and the presented one is retired (still
        accepted for a few seconds, for two tabs refreshing at once)."""
        require_trusted_origin()
        presented, user = verified_refresh()
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
    @operation(
        blp,
        "logout",
        (
            403,
            "`Forbidden`: a cross-site request (Origin or Sec-Fetch-Site), or a personal "
            "access token as the bearer",
        ),
        security=[{}, *BEARER, *REFRESH_COOKIE],
    )
    @blp.response(200, MessageSchema, description="Logged out; the refresh cookie is deleted")
    def post(self):
        """Log out

        End the session: revoke the refresh cookie's session and the bearer's access
        token (either, both or neither may be sent; the answer is the same)."""
        require_trusted_origin()
        authorization = request.headers.get("Authorization", "")
        scheme, _, bearer = authorization.partition(" ")
        if scheme.lower() == "bearer" and bearer.strip().startswith(PAT_PREFIX):
            raise Forbidden()  # revoke it with DELETE /auth/tokens/{id}
        user_id = session_id = None
        codec = tokens.codec()
        refresh_cookie = request.cookies.get(current_app.config["JWT_REFRESH_COOKIE_NAME"])
        # An expired cookie still names the session to end.
        refresh = (
            codec.read(refresh_cookie, tokens.REFRESH, allow_expired=True)
            if refresh_cookie
            else None
        )
        if refresh is not None:
            check_double_submit(refresh)
            user_id, session_id = refresh.user_id, refresh.session_id
            sessions.revoke_session(session_id, "logout")

        access = codec.read(bearer.strip(), tokens.ACCESS) if scheme.lower() == "bearer" else None
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
    @operation(blp, "logout_all", 401, (403, _NOT_WITH_PAT), security=BEARER)
    @blp.response(200, MessageSchema, description="Every session of the caller has ended")
    @session_required
    def post(self):
        """Log out everywhere

        End every session of the caller, on every device; void every access token."""
        user = current_user_record()
        ended = sessions.end_all_sessions(user, reason="logout_all")
        db.session.commit()
        audit("logout_all", user_id=user.id, email=user.email, sessions_ended=ended)
        cookies.delete_refresh_cookie()
        return {"message": "Logged out of all sessions"}


@blp.route("/sessions", strict_slashes=False)
class Sessions(MethodView):
    @operation(blp, "list_sessions", 401, (403, _NOT_WITH_PAT), 422, security=BEARER)
    @blp.response(200, SessionPageSchema, headers=_NO_STORE)
    @session_required
    @blp.arguments(PageArgsSchema, location="query", as_kwargs=True)
    def get(self, limit, offset):
        """List the caller's sessions

        The caller's active sessions (logins), most recently used first."""
        query = sessions.active_sessions(current_user.id)
        total = db.session.scalar(sa.select(sa.func.count()).select_from(query.subquery()))
        rows = db.session.scalars(
            query.order_by(AuthSession.last_used_at.desc(), AuthSession.id)
            .limit(limit)
            .offset(offset)
        ).all()
        current = current_claims.session_id
        items = [
            {
                "id": s.id,
                "created_at": s.created_at,
                "last_used_at": s.last_used_at,
                "expires_at": s.expires_at,
                "user_agent": s.user_agent,
                "client_address": s.client_address,
                "current": s.id == current,
            }
            for s in rows
        ]
        return (
            {"items": items, "total": total, "limit": limit, "offset": offset},
            200,
            cookies.NO_STORE,
        )


@blp.route("/sessions/<text:session_id>")
class SessionItem(MethodView):
    @operation(
        blp,
        "delete_session",
        401,
        (403, _NOT_WITH_PAT),
        (404, "`Session not found` (unknown, ended or someone else's)"),
        422,
        security=BEARER,
    )
    @blp.response(204, description="The session has ended")
    @session_required
    def delete(self, session_id):
        """End one of the caller's sessions

        Its refresh and access tokens stop working (the current one too, if it is named:
        then the refresh cookie is deleted)."""
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
    @operation(blp, "get_me", 401, security=BEARER)
    @blp.response(200, UserSchema)
    @auth_required
    def get(self):
        """Get the caller

        The authenticated user."""
        # Serialised by hand, and without jsonify's per-call lookups: this is the hottest
        # endpoint (see bench/); the response schema above documents it and a test holds
        # the two equal, byte for byte.
        return current_app.response_class(_me_body(current_user), mimetype="application/json")


@blp.route("/me/usage")
class MyUsage(MethodView):
    @operation(blp, "get_my_usage", 401, security=BEARER)
    @blp.response(200, UsageSchema)
    @auth_required
    def get(self):
        """Get the caller's usage and quotas

        What the caller owns, counted as its quotas count it (stored bytes, datasets,
        runs queued or running), and the limits (``QUOTA_*``; null: no limit). Any role."""
        return quotas.usage(current_user.id)


@blp.route("/me/password")
class MyPassword(MethodView):
    @operation(
        blp,
        "change_password",
        400,
        401,
        (403, _NOT_WITH_PAT),
        (
            409,
            "`Password is managed by the identity provider` (a user of LDAP "
            "changes it in the directory)",
        ),
        413,
        (
            422,
            "Invalid new password, or the current password is incorrect (loc "
            '["body", "current_password"])',
        ),
        _TOO_MANY,
        security=BEARER,
    )
    @blp.response(
        200,
        TokenSchema,
        description="Changed. Every other session has ended and "
        "every access token already out is void; use the one returned here",
        headers=_NO_STORE,
    )
    @session_required
    @limits.password_change_per_user
    @blp.arguments(PasswordChangeSchema)
    def put(self, body):
        """Change the caller's password

        With the current password and the new one (8 to 72 bytes of UTF-8). Every other
        session ends; the answer is the access token to go on with. Rate-limited per
        user (429)."""
        user = current_user_record()
        keep = current_claims.session_id
        user_services.change_password(
            user, body["current_password"], body["new_password"], keep_session=keep
        )
        session = db.session.get(AuthSession, keep) if keep else None
        if session is not None and (
            session.revoked_at is not None or session.expires_at <= utcnow()
        ):
            session = None
        return _token_body(sessions.issue_access_token(user, session))


# The caller's personal access tokens, on the same blueprint (documented after the above).
blp.add_url_rule("/tokens", "Tokens", token_routes.Tokens, strict_slashes=False)
blp.add_url_rule("/tokens/<text:token_id>", "TokenItem", token_routes.TokenItem)
