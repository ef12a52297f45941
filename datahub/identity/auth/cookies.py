"""The browser's side of a session: the refresh cookie (and the double-submit CSRF cookie
and header), and what every successful login does, whichever way the user logged in."""

from flask import after_this_request, current_app

from datahub.app.extensions import db
from datahub.identity import sessions
from datahub.platform.audit import audit

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def cookie_options(config):
    return dict(secure=config["JWT_COOKIE_SECURE"], samesite=config["JWT_COOKIE_SAMESITE"])


def set_refresh_cookie(token, record, csrf):
    """The refresh cookie (and, with double submit, the ``csrf`` cookie); its Max-Age ends
    with the token (never after the session)."""
    config = current_app.config
    max_age = max(0, sessions.epoch(record.expires_at) - sessions.epoch(record.issued_at))

    @after_this_request
    def _set(response):
        response.set_cookie(
            config["JWT_REFRESH_COOKIE_NAME"],
            token,
            max_age=max_age,
            path=config["JWT_REFRESH_COOKIE_PATH"],
            httponly=True,
            **cookie_options(config),
        )
        if config["JWT_COOKIE_CSRF_PROTECT"]:
            # Double submit: readable by the SPA's JavaScript, sent back as a header.
            response.set_cookie(
                config["JWT_REFRESH_CSRF_COOKIE_NAME"],
                csrf,
                max_age=max_age,
                path=config["JWT_REFRESH_CSRF_COOKIE_PATH"],
                httponly=False,
                **cookie_options(config),
            )
        return response


def send_csrf_token(value):
    """With double-submit CSRF on, login and refresh also name the value in a response
    header, for an SPA on another site, which cannot read the API's cookies."""
    config = current_app.config
    if not (config["JWT_COOKIE_CSRF_PROTECT"] and value):
        return

    @after_this_request
    def _header(response):
        response.headers[config["JWT_REFRESH_CSRF_HEADER_NAME"]] = value
        return response


def delete_refresh_cookie():
    config = current_app.config

    @after_this_request
    def _delete(response):
        response.delete_cookie(
            config["JWT_REFRESH_COOKIE_NAME"],
            path=config["JWT_REFRESH_COOKIE_PATH"],
            httponly=True,
            **cookie_options(config),
        )
        if config["JWT_COOKIE_CSRF_PROTECT"]:
            response.delete_cookie(
                config["JWT_REFRESH_CSRF_COOKIE_NAME"],
                path=config["JWT_REFRESH_CSRF_COOKIE_PATH"],
                **cookie_options(config),
            )
        return response


def start_login(user):
    """A logged-in ``user`` (password or OIDC): a new session, committed and audited, its
    refresh cookie set. Returns the session's first access token."""
    refresh_token, record, session = sessions.start_session(user)
    access_token = sessions.issue_access_token(user, session)
    db.session.commit()
    audit(
        "login_succeeded",
        email=user.email,
        user_id=user.id,
        session_id=session.id,
        provider=user.provider,
    )
    set_refresh_cookie(refresh_token, record, session.csrf_token)
    send_csrf_token(session.csrf_token)
    return access_token
