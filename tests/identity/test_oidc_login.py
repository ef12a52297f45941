"""OpenID Connect logins against a real provider process (oidc-provider-mock): the whole
flow, roles, the failures' 401s, the 409, the 503, ``next`` and /auth/providers."""

import json
import logging
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.models import User
from tests.conftest import bearer
from tests.identity.auth.helpers import COOKIE, PATH, refresh
from tests.identity.conftest import oidc_settings
from tests.workers import free_port

LOGIN = "/api/v1/auth/oidc/login"
CALLBACK = "/api/v1/auth/oidc/callback"
FAILED = {"detail": "OIDC login failed"}


@pytest.fixture
def config_overrides(oidc_provider):
    return oidc_settings(oidc_provider.issuer)


def start(client, next_path="/app/"):
    """The provider's authorization URL the login redirects to."""
    response = client.get(LOGIN, query_string={"next": next_path} if next_path else None)
    assert response.status_code == 302, response.get_json()
    return response.headers["Location"]


def callback_path(location):
    parts = urlsplit(location)
    assert parts.path == CALLBACK, location
    return f"{parts.path}?{parts.query}"


def log_in(client, provider, sub, next_path="/app/"):
    """The whole flow: login, the provider's page, the callback's response."""
    location = provider.authorize(start(client, next_path), sub)
    return client.get(callback_path(location))


def me(client):
    token = refresh(client).get_json()["access_token"]
    return client.get("/api/v1/auth/me", headers=bearer(token)).get_json()


def audit_reasons(caplog):
    found = []
    for record in caplog.records:
        if record.name == "datahub.audit":
            event = json.loads(record.getMessage())
            if event["event"] == "login_failed":
                found.append(event["reason"])
    return found


def test_login_request_carries_pkce_state_and_nonce(client, oidc_provider):
    response = client.get(LOGIN, query_string={"next": "/app/#datasets"})
    query = parse_qs(urlsplit(response.headers["Location"]).query)
    assert response.headers["Location"].startswith(oidc_provider.issuer + "/oauth2/authorize?")
    assert query["response_type"] == ["code"] and query["client_id"] == ["datahub"]
    assert query["redirect_uri"] == ["http://localhost" + CALLBACK]
    assert query["scope"] == ["openid email profile"]
    assert query["code_challenge_method"] == ["S256"] and len(query["code_challenge"][0]) == 43
    assert len(query["state"][0]) >= 32 and len(query["nonce"][0]) >= 32
    cookie = next(
        h for h in response.headers.getlist("Set-Cookie") if h.startswith("__Secure-oidc_login=")
    )
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "secure", "max-age", "path"} <= attributes
    assert "Path=/api/v1/auth/oidc" in cookie and "SameSite=Lax" in cookie
    assert "Max-Age=600" in cookie
    assert response.headers["Cache-Control"] == "no-store"


def test_full_flow_then_refresh_and_me(app, client, oidc_provider, caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    oidc_provider.set_user(
        "sub-ann", email="Ann@Example.org", name="Ann Smith", roles=["editor", "superuser"]
    )
    response = log_in(client, oidc_provider, "sub-ann", next_path="/app/#datasets")
    assert response.status_code == 302
    assert response.headers["Location"] == "/app/#datasets"
    assert client.get_cookie(COOKIE, path=PATH) is not None
    assert client.get_cookie("__Secure-oidc_login", path="/api/v1/auth/oidc") is None

    user = me(client)
    assert (user["email"], user["name"], user["provider"], user["roles"]) == (
        "ann@example.org",
        "Ann Smith",
        "oidc",
        ["editor"],
    )
    with app.app_context():
        record = db.session.scalar(sa.select(User).where(User.email == "ann@example.org"))
        assert (record.provider_issuer, record.provider_subject) == (
            oidc_provider.issuer,
            "sub-ann",
        )
        assert record.password_hash is None
    assert any(
        '"event": "login_succeeded"' in r.getMessage() and '"provider": "oidc"' in r.getMessage()
        for r in caplog.records
    )

    # The next login brings the provider's changes: roles, name, even the email.
    oidc_provider.set_user(
        "sub-ann", email="ann.smith@example.org", name="Ann S.", roles=["admin", "viewer"]
    )
    other = app.test_client()
    assert log_in(other, oidc_provider, "sub-ann").status_code == 302
    user = me(other)
    assert (user["email"], user["name"], user["roles"]) == (
        "ann.smith@example.org",
        "Ann S.",
        ["viewer", "admin"],
    )
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(User)) == 1


def test_no_roles_claim_gives_viewer(client, oidc_provider):
    oidc_provider.set_user("sub-vic", email="vic@example.org", name="Vic")
    assert log_in(client, oidc_provider, "sub-vic").status_code == 302
    assert me(client)["roles"] == ["viewer"]


@pytest.mark.parametrize(
    "tamper, reason",
    [
        ("bad_signature", "invalid_id_token"),
        ("wrong_audience", "invalid_id_token"),
        ("wrong_issuer", "invalid_id_token"),
        ("expired", "invalid_id_token"),
        ("wrong_nonce", "invalid_id_token"),
        ("tampered_state", "state_mismatch"),
        ("no_login_cookie", "no_login_cookie"),
        ("forged_login_cookie", "no_login_cookie"),
        ("provider_error", "provider_error"),
        ("replayed_callback", "no_login_cookie"),
        ("replayed_callback_with_cookie", "code_exchange_failed"),
    ],
)
def test_failures_are_401(client, oidc_provider, caplog, tamper, reason):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    oidc_provider.set_user("sub-eve", email="eve@example.org", name="Eve", roles=["admin"])
    authorization_url = start(client)
    if tamper == "provider_error":
        path = callback_path(oidc_provider.authorize(authorization_url, deny=True))
        assert "error=access_denied" in path
    else:
        path = callback_path(oidc_provider.authorize(authorization_url, "sub-eve"))
    if tamper in ("bad_signature", "wrong_audience", "wrong_issuer", "expired", "wrong_nonce"):
        oidc_provider.tamper_next_id_token(tamper)
    elif tamper == "tampered_state":
        path = path.replace("state=", "state=x")
    elif tamper == "no_login_cookie":
        client.delete_cookie("__Secure-oidc_login", path="/api/v1/auth/oidc")
    elif tamper == "forged_login_cookie":
        cookie = client.get_cookie("__Secure-oidc_login", path="/api/v1/auth/oidc")
        client.set_cookie("__Secure-oidc_login", cookie.value[:-2] + "xx", path="/api/v1/auth/oidc")
    elif tamper.startswith("replayed_callback"):
        cookie = client.get_cookie("__Secure-oidc_login", path="/api/v1/auth/oidc")
        assert client.get(path).status_code == 302
        client.delete_cookie(COOKIE, path=PATH)
        if tamper == "replayed_callback_with_cookie":  # a copied login cookie too
            client.set_cookie("__Secure-oidc_login", cookie.value, path="/api/v1/auth/oidc")

    response = client.get(path)
    assert (response.status_code, response.get_json()) == (401, FAILED)
    assert client.get_cookie(COOKIE, path=PATH) is None
    assert client.get_cookie("__Secure-oidc_login", path="/api/v1/auth/oidc") is None
    assert audit_reasons(caplog)[-1] == reason


@pytest.mark.parametrize(
    "next_path, landing",
    [
        ("/app/#collections", "/app/#collections"),
        ("/api/v1/openapi.json?x=1", "/api/v1/openapi.json?x=1"),
        ("", "/app/"),
        (None, "/app/"),
    ],
)
def test_next_lands_on_this_site(client, oidc_provider, next_path, landing):
    oidc_provider.set_user("sub-nat", email="nat@example.org", name="Nat")
    response = log_in(client, oidc_provider, "sub-nat", next_path=next_path)
    assert (response.status_code, response.headers["Location"]) == (302, landing)


@pytest.mark.parametrize(
    "next_path",
    [
        "https://evil.example/",
        "//evil.example",
        "/\\evil.example",
        "/\t/evil.example",
        "javascript:alert(1)",
        "app/",
    ],
)
def test_an_off_site_next_is_refused_before_the_provider(client, oidc_provider, next_path):
    response = client.get(LOGIN, query_string={"next": next_path})
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            {
                "loc": ["query", "next"],
                "msg": "must be a path of this site, starting with a single /",
                "type": "value_error.next.off_site",
            }
        ]
    }
    assert "Location" not in response.headers
    assert not any("oidc_login" in h for h in response.headers.getlist("Set-Cookie"))


def test_email_of_a_local_user_is_409(client, oidc_provider, make_user, caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    make_user(email="lou@example.org")
    oidc_provider.set_user("sub-lou", email="lou@example.org", name="Lou", roles=["admin"])
    response = log_in(client, oidc_provider, "sub-lou")
    assert (response.status_code, response.get_json()) == (
        409,
        {"detail": "Account exists with another provider"},
    )
    assert client.get_cookie(COOKIE, path=PATH) is None
    assert audit_reasons(caplog)[-1] == "other_provider"


def test_email_of_another_subject_is_409(client, oidc_provider):
    oidc_provider.set_user("sub-one", email="same@example.org", name="One")
    assert log_in(client, oidc_provider, "sub-one").status_code == 302
    oidc_provider.set_user("sub-two", email="same@example.org", name="Two")
    response = log_in(client, oidc_provider, "sub-two")
    assert response.status_code == 409


def test_deactivated_user_is_401(app, client, oidc_provider, runner):
    oidc_provider.set_user("sub-dee", email="dee@example.org", name="Dee")
    assert log_in(client, oidc_provider, "sub-dee").status_code == 302
    assert runner.invoke(args=["users", "deactivate", "dee@example.org"]).exit_code == 0
    other = app.test_client()
    response = log_in(other, oidc_provider, "sub-dee")
    assert (response.status_code, response.get_json()) == (401, FAILED)
    assert other.get_cookie(COOKIE, path=PATH) is None


def test_password_of_an_oidc_user_is_refused(client, oidc_provider):
    oidc_provider.set_user("sub-pam", email="pam@example.org", name="Pam")
    assert log_in(client, oidc_provider, "sub-pam").status_code == 302
    response = client.post("/api/v1/auth/login", json={"email": "pam@example.org", "password": ""})
    assert response.status_code == 401


def test_providers(client, oidc_provider):
    response = client.get("/api/v1/auth/providers")
    assert response.get_json() == {
        "password": True,
        "oidc": {"name": "Example SSO", "login_url": LOGIN},
    }


@pytest.mark.parametrize("config_overrides", [{}])
def test_without_oidc(client):
    assert client.get("/api/v1/auth/providers").get_json() == {"password": True, "oidc": None}
    response = client.get(LOGIN)
    assert (response.status_code, response.get_json()) == (
        404,
        {"detail": "OIDC logins are not configured"},
    )
    assert client.get(CALLBACK + "?code=x&state=y").status_code == 404


@pytest.mark.parametrize("config_overrides", [oidc_settings(f"http://127.0.0.1:{free_port()}")])
def test_provider_unreachable_is_503(client):
    response = client.get(LOGIN)
    assert (response.status_code, response.get_json()) == (
        503,
        {"detail": "Authentication service unavailable"},
    )
    assert response.headers.get("Retry-After")


def test_control_characters_from_the_provider_are_not_stored(client, oidc_provider):
    oidc_provider.set_user("sub-cat", email="cat@example.org", name="Cat\x00\x07 Lee")
    assert log_in(client, oidc_provider, "sub-cat").status_code == 302
    assert me(client)["name"] == "Cat Lee"

    oidc_provider.set_user("sub-dan", email="dan\x00@example.org", name="Dan")
    response = log_in(client, oidc_provider, "sub-dan")
    assert (response.status_code, response.get_json()) == (401, {"detail": "OIDC login failed"})


def test_the_code_exchange_proves_pkce(client, oidc_provider, caplog):
    """The provider checks S256(code_verifier) against the login's code_challenge: the
    full flow passing shows the verifier matches; a failed check is a 401."""
    caplog.set_level(logging.INFO, logger="datahub.audit")
    oidc_provider.set_user("sub-pat", email="pat@example.org", name="Pat")
    assert "code_challenge_method=S256" in start(client)
    oidc_provider.corrupt_next_pkce()
    response = log_in(client, oidc_provider, "sub-pat")
    assert (response.status_code, response.get_json()) == (401, {"detail": "OIDC login failed"})
    assert audit_reasons(caplog)[-1] == "code_exchange_failed"
    assert log_in(client, oidc_provider, "sub-pat").status_code == 302


def test_an_oidc_user_has_no_password_here(client, oidc_provider):
    oidc_provider.set_user("sub-quinn", email="quinn@example.org", name="Quinn")
    assert log_in(client, oidc_provider, "sub-quinn").status_code == 302
    access = refresh(client).get_json()["access_token"]
    for password in ("", "any password at all"):
        response = client.post(
            "/api/v1/auth/login", json={"email": "quinn@example.org", "password": password}
        )
        assert (response.status_code, response.get_json()) == (
            401,
            {"detail": "Invalid email or password"},
        )
    response = client.put(
        "/api/v1/auth/me/password",
        headers=bearer(access),
        json={"current_password": "whatever1", "new_password": "new-password-1"},
    )
    assert (response.status_code, response.get_json()) == (
        409,
        {"detail": "Password is managed by the identity provider"},
    )
