"""The auth blueprint, /api/v1/auth: its routes are in ``routes`` (login, refresh, logout,
me, sessions, password) and in datahub.identity.personal_tokens.routes (the caller's
tokens), which ``routes`` registers."""

from datahub.web.api import Blueprint

blp = Blueprint(
    "auth",
    __name__,
    url_prefix="/api/v1/auth",
    description="Log in, renew the access token, log out; the caller's sessions and password",
)
