"""/api/v1/auth: which logins there are, and the OpenID Connect login (redirect to the
provider, and its callback that starts the session). The protocol is
datahub.identity.oidc's; the views hold the browser's side: the login cookie and the
redirects."""

import hmac
from urllib.parse import urlsplit

from flask import after_this_request, current_app, redirect, request
from flask.views import MethodView
from itsdangerous import BadData, URLSafeTimedSerializer

from datahub.identity import logins, oidc
from datahub.identity.auth import limits
from datahub.identity.auth.cookies import NO_STORE, start_login
from datahub.identity.auth.schemas import ProvidersSchema
from datahub.identity.errors import AuthServiceUnavailable, OIDCNotConfigured
from datahub.web.api import Blueprint
from datahub.web.errors import RequestValidationError
from datahub.web.openapi import operation
from datahub.web.validation import NO_CONTROL_PATTERN, has_control_character

blp = Blueprint(
    "oidc",
    __name__,
    url_prefix="/api/v1/auth",
    description="Log in with an OpenID Connect provider",
)

LOGIN_PATH = "/api/v1/auth/oidc/login"
CALLBACK_PATH = "/api/v1/auth/oidc/callback"
COOKIE_PATH = "/api/v1/auth/oidc"
DEFAULT_NEXT = "/app/"
_REDIRECT = {
    "Location": {
        "description": "Where the browser goes next",
        "schema": {"type": "string", "format": "uri-reference"},
    }
}
_NOT_CONFIGURED = (404, "`OIDC logins are not configured`")


def same_site_path(value):
    """Whether ``value`` is a path of this site: one leading ``/``, no scheme or host."""
    if (
        not isinstance(value, str)
        or not value.startswith("/")
        or len(value) > 2048
        or value.startswith(("//", "/\\"))
        or has_control_character(value)
    ):
        return False
    parts = urlsplit(value)
    return not (parts.scheme or parts.netloc)


def requested_next():
    """The login's ``next`` (default: the app); anything but a path of this site is a 422,
    never a redirect elsewhere."""
    value = request.args.get("next") or DEFAULT_NEXT
    if not same_site_path(value):
        raise RequestValidationError.single(
            ["query", "next"],
            "must be a path of this site, starting with a single /",
            "value_error.next.off_site",
        )
    return value


# -- the login cookie: the started login, bound to this browser -------------------------


def _cookie_name():
    return "__Secure-oidc_login" if current_app.config["JWT_COOKIE_SECURE"] else "oidc_login"


def _serializer():
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="datahub.oidc-login")


def _keep_pending(pending):
    value = _serializer().dumps(
        [pending.state, pending.nonce, pending.verifier, pending.redirect_uri, pending.next]
    )
    config = current_app.config

    @after_this_request
    def _set(response):
        # Lax, not Strict: the provider's redirect back is a cross-site navigation.
        response.set_cookie(
            _cookie_name(),
            value,
            max_age=int(config["OIDC_LOGIN_MAX_AGE"]),
            path=COOKIE_PATH,
            httponly=True,
            secure=config["JWT_COOKIE_SECURE"],
            samesite="Lax",
        )
        return response


def _take_pending():
    """The login this browser started (None: none, expired or forged); the cookie is
    deleted whatever the outcome, so a callback is answered once."""
    value = request.cookies.get(_cookie_name())

    @after_this_request
    def _delete(response):
        response.delete_cookie(
            _cookie_name(),
            path=COOKIE_PATH,
            httponly=True,
            secure=current_app.config["JWT_COOKIE_SECURE"],
            samesite="Lax",
        )
        return response

    if not value:
        return None
    try:
        fields = _serializer().loads(value, max_age=int(current_app.config["OIDC_LOGIN_MAX_AGE"]))
        return oidc.PendingLogin(*fields)
    except (BadData, TypeError):
        return None


def _redirect_uri():
    configured = current_app.config.get("OIDC_REDIRECT_URI")
    return configured or request.host_url.rstrip("/") + CALLBACK_PATH


def _require_oidc():
    if not oidc.enabled():
        raise OIDCNotConfigured()


# -- views -------------------------------------------------------------------------------


@blp.route("/providers")
class Providers(MethodView):
    @operation(blp, "get_login_providers", database=False, security=[])
    @blp.response(200, ProvidersSchema)
    def get(self):
        """List the ways to log in

        Email and password, and OpenID Connect when configured."""
        found = None
        if oidc.enabled():
            found = {"name": current_app.config["OIDC_PROVIDER_NAME"], "login_url": LOGIN_PATH}
        return {"password": True, "oidc": found}


@blp.route("/oidc/login")
class OIDCLogin(MethodView):
    @operation(
        blp,
        "start_oidc_login",
        _NOT_CONFIGURED,
        (422, "`next` is not a path of this site"),
        (
            503,
            "`Authentication service unavailable` (the provider's discovery "
            "document cannot be fetched); see Retry-After",
        ),
        database=False,
        security=[],
        parameters=[
            {
                "in": "query",
                "name": "next",
                "required": False,
                "schema": {"type": "string", "maxLength": 2048, "pattern": NO_CONTROL_PATTERN},
                "description": "A path of this site to land on afterwards "
                "(default: /app/; anything else is a 422)",
            }
        ],
    )
    @blp.response(
        302,
        description="To the provider's authorization endpoint; sets the short-lived login cookie",
        headers=_REDIRECT,
    )
    def get(self):
        """Start an OpenID Connect login

        A browser navigation, not an API call: redirects to the provider (authorization
        code flow with PKCE), which sends the browser back to the callback."""
        _require_oidc()
        next_path = requested_next()
        try:
            url, pending = oidc.provider().begin(_redirect_uri(), next_path)
        except oidc.ProviderUnavailable as exc:
            current_app.logger.error("OIDC provider unavailable: %s", exc)
            raise AuthServiceUnavailable() from exc
        _keep_pending(pending)
        return redirect(url, 302), NO_STORE


@blp.route("/oidc/callback")
class OIDCCallback(MethodView):
    @operation(
        blp,
        "finish_oidc_login",
        (
            401,
            "`OIDC login failed` (no or another login cookie, the provider's "
            "error, a refused code, an invalid ID token, a deactivated user)",
        ),
        _NOT_CONFIGURED,
        (
            409,
            "`Account exists with another provider` (the email belongs to a user "
            "of another provider)",
        ),
        (429, limits.TOO_MANY["description"]),
        (
            503,
            "`Authentication service unavailable` (the provider is unreachable), "
            "or `Service unavailable` (the database); see Retry-After",
        ),
        security=[],
        parameters=[
            {
                "in": "query",
                "name": name,
                "required": False,
                "schema": {"type": "string"},
                "description": description,
            }
            for name, description in (
                ("code", "The provider's authorization code"),
                ("state", "The login's state, as sent to the provider"),
                ("error", "The provider's error, instead of a code"),
            )
        ],
    )
    @blp.response(
        302,
        description="Logged in: the refresh cookie is set and the browser "
        "goes to the login's next path; the app then calls /auth/refresh",
        headers=_REDIRECT,
    )
    @limits.login_per_address
    @limits.successes_per_address
    def get(self):
        """Finish an OpenID Connect login

        Where the provider sends the browser back: checks the login cookie, the state and
        the code, then sets the refresh cookie and redirects to the login's ``next``."""
        _require_oidc()
        pending = _take_pending()
        args = request.args
        if pending is None:
            logins.oidc_failed("no_login_cookie")
        if "error" in args:  # some providers send no state with an error
            logins.oidc_failed("provider_error", error=args.get("error"))
        if not hmac.compare_digest(args.get("state", "").encode(), pending.state.encode()):
            logins.oidc_failed("state_mismatch")
        if not args.get("code"):
            logins.oidc_failed("no_code")
        user = logins.authenticate_oidc(args["code"], pending)
        start_login(user)  # the app gets its access token through /auth/refresh
        landing = pending.next if same_site_path(pending.next) else DEFAULT_NEXT
        return redirect(landing, 302), NO_STORE
