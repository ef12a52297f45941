"""CSRF defences of the cookie-authenticated endpoints (refresh, logout).

The refresh cookie is ``SameSite=Strict`` with ``Path=/api/v1/auth``. On top of that, a
request that a browser marks as coming from elsewhere is refused with 403 ``Forbidden``:

- an ``Origin`` header that is neither the service's own origin (scheme://host[:port] of
  the request, as ProxyFix sees it) nor one of ``CORS_ORIGINS``;
- an ``Origin`` with a control character (no browser sends one);
- ``Sec-Fetch-Site: cross-site``, unless the ``Origin`` is one of ``CORS_ORIGINS`` (an
  SPA on another site that the operator allowed).

A request without either header (curl, scripts, older browsers on same-origin GETs) is
not a browser's cross-site request and passes.
"""

import hmac

from flask import current_app, request

from datahub.app.config_checks import normalise_origin
from datahub.web.errors import Forbidden
from datahub.web.validation import has_control_character


def own_origin():
    """scheme://host[:port] of this request, as the client addressed it (after ProxyFix)."""
    return normalise_origin(f"{request.scheme}://{request.host}")


def require_trusted_origin():
    allowed = current_app.config["CORS_ORIGINS"]
    origin = request.headers.get("Origin")
    if origin is not None and has_control_character(origin):
        raise Forbidden()  # no browser's; urlsplit would drop a TAB or CR and trust the rest
    origin = normalise_origin(origin) if origin is not None else None
    if origin is not None and origin in allowed:
        return
    if request.headers.get("Sec-Fetch-Site", "").strip().lower() == "cross-site":
        raise Forbidden()
    if origin is not None and origin != own_origin():
        raise Forbidden()
    if current_app.config["JWT_COOKIE_CSRF_PROTECT"]:
        sent = request.headers.get(current_app.config["JWT_REFRESH_CSRF_HEADER_NAME"], "")
        if not sent.isascii():  # no token is non-ASCII, and hmac cannot compare such a str
            raise Forbidden()


def check_double_submit(claims):
    """With JWT_COOKIE_CSRF_PROTECT, the header must repeat the refresh token's CSRF value
    (``RefreshClaims.csrf``; the refresh endpoint gets this check from flask-jwt-extended,
    logout from here)."""
    config = current_app.config
    if not config["JWT_COOKIE_CSRF_PROTECT"]:
        return
    sent = request.headers.get(config["JWT_REFRESH_CSRF_HEADER_NAME"], "")
    expected = claims.csrf or ""
    if not (sent and expected and hmac.compare_digest(sent.encode(), expected.encode())):
        raise Forbidden()
