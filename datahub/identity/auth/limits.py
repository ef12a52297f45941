"""The rate limits of the login routes (settings ``RATE_LIMIT_*``)."""

from flask import current_app, request

from datahub.app.extensions import client_address, limiter
from datahub.identity import ldap
from datahub.identity.guard import current_claims
from datahub.identity.models import normalise_email
from datahub.web.bodies import json_body
from datahub.web.metrics import count_login


def _login_email():
    try:
        body = json_body()
    except Exception:  # unreadable: the view's parser answers with the same error
        return None
    email = body.get("email") if isinstance(body, dict) else None
    return normalise_email(email)[:320] if isinstance(email, str) and email.strip() else None


def _config_limit(key):
    return lambda: current_app.config[key]


def _login_refused(request_limit):
    """Count a login refused by a limit (datahub_logins_total). A password login names no
    provider yet: "local" when LDAP is off (every password login is then), else "password"."""
    if request.endpoint == "oidc.OIDCCallback":
        count_login("oidc", "rate_limited")
    else:
        count_login("password" if ldap.enabled() else "local", "rate_limited")


login_per_email = limiter.limit(
    _config_limit("RATE_LIMIT_LOGIN_PER_EMAIL"),
    scope="email",
    key_func=lambda: f"email:{_login_email()}",
    exempt_when=lambda: _login_email() is None,
    on_breach=_login_refused,
)
login_per_address = limiter.limit(
    _config_limit("RATE_LIMIT_LOGIN_PER_ADDRESS"),
    scope="address",
    key_func=client_address,
    on_breach=_login_refused,
)
refresh_per_address = limiter.limit(
    _config_limit("RATE_LIMIT_REFRESH_PER_ADDRESS"),
    scope="address",
    key_func=client_address,
)
password_change_per_user = limiter.limit(
    _config_limit("RATE_LIMIT_PASSWORD_CHANGE_PER_USER"),
    scope="user",
    key_func=lambda: f"user:{current_claims.user_id}",
)

TOO_MANY = {"description": "Too many requests; see Retry-After"}
