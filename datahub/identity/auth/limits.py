"""The rate limits of the login routes (settings ``RATE_LIMIT_*``)."""

from flask import current_app, request

from datahub.app.extensions import client_address, limiter
from datahub.identity import ldap
from datahub.identity.guard import current_claims
from datahub.identity.models import normalise_email
from datahub.platform.metrics import count_login
from datahub.web.bodies import json_body


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


def _failed(response):
    return response.status_code == 401


def _succeeded(response):
    return response.status_code in (200, 302)  # a token, or the OIDC callback's redirect


# Every attempt on an account counts at once (so that attempts sent together cannot pass
# before any is counted), and a login that succeeds starts its count again
# (``forget_email_attempts``): only failures in a row lock an account out.
login_per_email = limiter.limit(
    _config_limit("RATE_LIMIT_LOGIN_PER_EMAIL"),
    scope="email",
    key_func=lambda: f"email:{_login_email()}",
    exempt_when=lambda: _login_email() is None,
    on_breach=_login_refused,
)
# Failed logins from an address, whatever the account: checked before, counted after.
login_per_address = limiter.limit(
    _config_limit("RATE_LIMIT_LOGIN_PER_ADDRESS"),
    scope="address",
    key_func=client_address,
    deduct_when=_failed,
    on_breach=_login_refused,
)
# Successful logins from an address: a much higher limit, where abuse starts (each one is
# a new session).
successes_per_address = limiter.limit(
    _config_limit("RATE_LIMIT_LOGIN_SUCCESS_PER_ADDRESS"),
    scope="address-success",
    key_func=client_address,
    deduct_when=_succeeded,
    on_breach=_login_refused,
)


def forget_email_attempts():
    """A login succeeded: its account's count of attempts starts again."""
    limiter.forget_counts(f"email:{_login_email()}")


def forget_unanswered_attempt(response):
    """After a login (``after_this_request``): one the service could not answer (503,
    its database or directory down) was no attempt on the account, whose count starts
    again as after a success. Otherwise a minute's outage would lock out everyone who
    tried five times meanwhile."""
    if response.status_code == 503:
        forget_email_attempts()
    return response


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
