"""Who an OpenID Connect provider says someone is (Authlib, joserfc).

The only module that imports Authlib. The provider's endpoints come from its discovery
document, fetched once per process (and its keys, fetched again once when an ID token
names an unknown key: the provider rotated them). Every request to the provider has a
timeout; an unreachable or failing provider is ``ProviderUnavailable``, anything wrong
with the answer is ``LoginFailed`` with a reason for the audit log.
"""

import json
import logging
import threading
from dataclasses import dataclass
from urllib.parse import urlencode

import urllib3
from authlib.common.security import generate_token
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oidc.core import CodeIDToken
from flask import current_app
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

from datahub.app.registry import per_app
from datahub.identity.models import ROLES
from datahub.web.validation import has_control_character, without_control_characters

log = logging.getLogger(__name__)

# Only asymmetric signatures: an HS256 ID token would be signed with our client secret.
SIGNING_ALGORITHMS = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
CLOCK_LEEWAY = 60  # seconds of clock difference allowed on exp, iat and nbf


class ProviderUnavailable(Exception):
    """The provider could not be reached, did not answer in time, or answered 5xx."""


class LoginFailed(Exception):
    """The provider refused the login or its answer cannot be trusted."""

    def __init__(self, reason, message=""):
        super().__init__(message or reason)
        self.reason = reason


@dataclass(frozen=True)
class ProviderUser:
    issuer: str
    subject: str
    email: str
    name: str
    roles: tuple
    groups: tuple = ()  # the names the groups claim lists


@dataclass(frozen=True)
class PendingLogin:
    """What the callback must find again: kept in the browser's login cookie."""

    state: str
    nonce: str
    verifier: str
    redirect_uri: str
    next: str


def enabled(app=None):
    config = (app or current_app).config
    return bool(
        config.get("OIDC_ISSUER")
        and config.get("OIDC_CLIENT_ID")
        and config.get("OIDC_CLIENT_SECRET")
    )


def provider(app=None):
    """This process's ``Provider`` for the app, made on first use."""
    app = app or current_app
    return per_app(app, "datahub.oidc", lambda: Provider(app.config))


class Provider:
    def __init__(self, config):
        self.issuer = str(config["OIDC_ISSUER"]).rstrip("/")
        self.client_id = str(config["OIDC_CLIENT_ID"])
        self.client_secret = str(config["OIDC_CLIENT_SECRET"])
        self.scopes = str(config["OIDC_SCOPES"])
        self.roles_claim = str(config["OIDC_ROLES_CLAIM"])
        self.groups_claim = str(config.get("OIDC_GROUPS_CLAIM") or "groups")
        timeout = float(config["OIDC_TIMEOUT"])
        self._http = urllib3.PoolManager(
            timeout=urllib3.Timeout(connect=timeout, read=timeout), retries=False, maxsize=4
        )
        self._lock = threading.Lock()
        self._metadata = None
        self._keys = None

    # -- talking to the provider ---------------------------------------------------------

    def _request(self, method, url, **kwargs):
        try:
            response = self._http.request(method, url, **kwargs)
        except urllib3.exceptions.HTTPError as exc:
            raise ProviderUnavailable(f"{url}: {exc}") from exc
        if response.status >= 500:
            raise ProviderUnavailable(f"{url}: HTTP {response.status}")
        return response

    def _json(self, response, what):
        try:
            body = json.loads(response.data)
        except ValueError as exc:
            raise ProviderUnavailable(f"{what}: not JSON (HTTP {response.status})") from exc
        if not isinstance(body, dict):
            raise ProviderUnavailable(f"{what}: not a JSON object")
        return body

    def metadata(self):
        """The discovery document, fetched on first use and kept."""
        with self._lock:
            if self._metadata is None:
                url = self.issuer + "/.well-known/openid-configuration"
                response = self._request("GET", url)
                if response.status != 200:
                    raise ProviderUnavailable(f"{url}: HTTP {response.status}")
                found = self._json(response, url)
                if str(found.get("issuer", "")).rstrip("/") != self.issuer:
                    raise ProviderUnavailable(
                        f"{url}: issuer {found.get('issuer')!r} is not OIDC_ISSUER"
                    )
                for key in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
                    if not isinstance(found.get(key), str):
                        raise ProviderUnavailable(f"{url}: no {key}")
                self._metadata = found
            return self._metadata

    def _key_set(self, refresh=False):
        with self._lock:
            if self._keys is None or refresh:
                url = self._metadata["jwks_uri"]
                response = self._request("GET", url)
                if response.status != 200:
                    raise ProviderUnavailable(f"{url}: HTTP {response.status}")
                try:
                    self._keys = KeySet.import_key_set(self._json(response, url))
                except (JoseError, ValueError, TypeError) as exc:
                    raise ProviderUnavailable(f"{url}: unusable key set ({exc})") from exc
            return self._keys

    # -- the login -------------------------------------------------------------------------

    def begin(self, redirect_uri, next_path):
        """``(authorization URL, PendingLogin)``: authorization code flow with PKCE S256, a
        fresh ``state`` and ``nonce``."""
        metadata = self.metadata()
        pending = PendingLogin(
            state=generate_token(32),
            nonce=generate_token(32),
            verifier=generate_token(64),
            redirect_uri=redirect_uri,
            next=next_path,
        )
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.client_id,
                "redirect_uri": redirect_uri,
                "scope": self.scopes,
                "state": pending.state,
                "nonce": pending.nonce,
                "code_challenge": create_s256_code_challenge(pending.verifier),
                "code_challenge_method": "S256",
            }
        )
        endpoint = metadata["authorization_endpoint"]
        return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}", pending

    def finish(self, code, pending):
        """The ``ProviderUser`` of the authorization ``code`` the callback received for
        ``pending``: the code exchanged (with the PKCE verifier and client secret) and the
        ID token verified (signature against the provider's keys, ``iss``, ``aud``,
        ``exp``, ``nonce``)."""
        metadata = self.metadata()
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": pending.redirect_uri,
            "code_verifier": pending.verifier,
        }
        methods = metadata.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        headers = {"Accept": "application/json"}
        if "client_secret_basic" in methods:
            headers.update(
                urllib3.make_headers(
                    basic_auth=f"{_form_encode(self.client_id)}:{_form_encode(self.client_secret)}"
                )
            )
        else:
            form.update(client_id=self.client_id, client_secret=self.client_secret)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        response = self._request(
            "POST", metadata["token_endpoint"], headers=headers, body=urlencode(form)
        )
        if response.status != 200:
            raise LoginFailed(
                "code_exchange_failed", f"HTTP {response.status}: {response.data[:200]!r}"
            )
        token = self._json(response, "token endpoint")
        if not isinstance(token.get("id_token"), str):
            raise LoginFailed("no_id_token")
        claims = self._verified_claims(token, pending.nonce)
        return self._user(claims)

    def _verified_claims(self, token, nonce):
        allowed = [
            alg
            for alg in self._metadata.get("id_token_signing_alg_values_supported") or ["RS256"]
            if alg in SIGNING_ALGORITHMS
        ]
        registry = JWSRegistry(algorithms=allowed or ["RS256"], strict_check_header=False)
        try:
            try:
                decoded = jwt.decode(token["id_token"], self._key_set(), registry=registry)
            except InvalidKeyIdError:
                decoded = jwt.decode(
                    token["id_token"], self._key_set(refresh=True), registry=registry
                )
            options = {
                "iss": {"essential": True, "value": self._metadata["issuer"]},
                "aud": {"essential": True, "value": self.client_id},
                "sub": {"essential": True},
            }
            params = {"nonce": nonce, "client_id": self.client_id}
            if isinstance(token.get("access_token"), str):
                params["access_token"] = token["access_token"]
            claims = CodeIDToken(decoded.claims, decoded.header, options, params)
            claims.validate(leeway=CLOCK_LEEWAY)
        except (JoseError, ValueError, TypeError, KeyError) as exc:
            raise LoginFailed("invalid_id_token", f"{type(exc).__name__}: {exc}") from exc
        return dict(claims)

    def _user(self, claims):
        email = claims.get("email")
        # What the users table and every later response can hold: no control characters
        # (PostgreSQL refuses NUL), no longer than the column.
        if (
            not isinstance(email, str)
            or "@" not in email
            or len(email) > 320
            or has_control_character(email)
        ):
            raise LoginFailed("no_email")
        if claims.get("email_verified") is False:
            raise LoginFailed("email_not_verified")
        subject = claims["sub"]
        if (
            not isinstance(subject, str)
            or not subject
            or len(subject) > 255
            or has_control_character(subject)
        ):
            raise LoginFailed("invalid_id_token", "sub")
        name = claims.get("name") or claims.get("preferred_username") or email
        return ProviderUser(
            issuer=self.issuer,
            subject=subject,
            email=email,
            name=without_control_characters(str(name))[:255],
            roles=self.roles(claims),
            groups=self.groups(claims),
        )

    def roles(self, claims):
        """The datahub roles named by the roles claim (a list, or one space-separated
        string); ``viewer`` when it names none."""
        value = claims.get(self.roles_claim)
        if isinstance(value, str):
            value = value.split()
        if not isinstance(value, (list, tuple)):
            value = []
        found = tuple(role for role in ROLES if role in value)
        return found or ("viewer",)

    def groups(self, claims):
        """The group names the groups claim lists (one string: one name); none when it is
        missing."""
        value = claims.get(self.groups_claim)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)):
            return ()
        return tuple(dict.fromkeys(name for name in value if isinstance(name, str) and name))


def _form_encode(value):
    # RFC 6749 2.3.1: the client id and secret are form-encoded before Basic auth.
    return urlencode({"": value})[1:]
