"""CORS for SPAs and the CSRF defences of the cookie endpoints (issue 5, part 5)."""

import pytest

from datahub import create_app
from datahub.platform.errors import ConfigurationError
from tests.conftest import bearer, login
from tests.identity.auth.helpers import claims, cookie_value, refresh, use_cookie

SPA = "https://app.example.com"
EVIL = "https://evil.example.net"
WITH_SPA = {"CORS_ORIGINS": [SPA, "http://localhost:5173"]}


def preflight(client, path, origin, method="POST", headers="content-type, authorization"):
    return client.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": headers,
        },
    )


@pytest.mark.parametrize("config_overrides", [WITH_SPA])
@pytest.mark.parametrize(
    "path",
    ["/api/v1/auth/refresh", "/api/v1/auth/login", "/api/v1/auth/me", "/api/v1/auth/sessions/abc"],
)
def test_preflight_from_an_allowed_origin(client, path):
    response = preflight(client, path, SPA, method="DELETE" if "sessions" in path else "POST")
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == SPA
    assert response.headers["Access-Control-Allow-Credentials"] == "true"
    assert {"POST", "DELETE", "PUT"} <= set(
        response.headers["Access-Control-Allow-Methods"].split(", ")
    )
    assert set(response.headers["Access-Control-Allow-Headers"].split(", ")) == {
        "authorization",
        "content-type",
    }
    assert "Origin" in response.headers["Vary"]


@pytest.mark.parametrize(
    "config_overrides, origin",
    [
        (WITH_SPA, EVIL),
        (WITH_SPA, "null"),
        (WITH_SPA, SPA + ".evil.net"),
        (WITH_SPA, "http://app.example.com"),
        ({}, EVIL),
        ({}, SPA),
    ],
    ids=["foreign", "null", "suffix", "other-scheme", "default-foreign", "default-spa"],
)
def test_preflight_from_any_other_origin_gets_no_cors_headers(client, origin):
    response = preflight(client, "/api/v1/auth/refresh", origin)
    assert not [h for h in response.headers if h[0].lower().startswith("access-control-")]
    actual = client.get("/api/v1/auth/me", headers={"Origin": origin})
    assert "Access-Control-Allow-Origin" not in actual.headers


@pytest.mark.parametrize("config_overrides", [WITH_SPA])
def test_responses_and_errors_carry_cors_headers_for_the_spa(client, make_user):
    error = client.get("/api/v1/auth/me", headers={"Origin": SPA})
    assert error.status_code == 401
    assert error.headers["Access-Control-Allow-Origin"] == SPA
    exposed = set(error.headers["Access-Control-Expose-Headers"].split(", "))
    assert {"Retry-After", "X-Request-ID", "WWW-Authenticate"} <= exposed


@pytest.mark.parametrize("config_overrides", [WITH_SPA])
def test_a_cross_origin_refresh_from_an_allowed_spa_works(client, make_user):
    """What a browser on https://app.example.com sends to the API on another site."""
    make_user()
    response = client.post(
        "/api/v1/auth/login",
        json={"email": "user@example.com", "password": "correct horse battery"},
        headers={"Origin": SPA},
    )
    assert response.headers["Access-Control-Allow-Origin"] == SPA
    browser = {"Origin": SPA, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}
    response = refresh(client, headers=browser)
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == SPA
    assert response.headers["Access-Control-Allow-Credentials"] == "true"
    assert client.post("/api/v1/auth/logout", headers=browser).status_code == 200


@pytest.mark.parametrize("config_overrides", [WITH_SPA, {}], ids=["allowlist", "default"])
@pytest.mark.parametrize("endpoint", ["refresh", "logout"])
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": EVIL},
        {"Origin": "null"},
        {"Origin": "http://localhost.evil.net"},
        {"Origin": "https://localhost"},  # same host, another scheme: another origin
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://localhost", "Sec-Fetch-Site": "cross-site"},
    ],
    ids=["foreign", "null", "suffix", "scheme", "fetch-site", "fetch-site-with-own-origin"],
)
def test_a_cross_site_cookie_request_is_forbidden(client, make_user, endpoint, headers):
    make_user()
    access = login(client).get_json()["access_token"]
    cookie = cookie_value(client)
    response = client.post(f"/api/v1/auth/{endpoint}", headers={**headers, **bearer(access)})
    assert response.status_code == 403
    assert response.get_json() == {"detail": "Forbidden"}
    assert "Set-Cookie" not in response.headers
    # Nothing happened: the session and the access token are intact, not even rotated.
    assert cookie_value(client) == cookie
    assert client.get("/api/v1/auth/me", headers=bearer(access)).status_code == 200
    assert refresh(client).status_code == 200


@pytest.mark.parametrize("endpoint", ["refresh", "logout"])
@pytest.mark.parametrize(
    "headers",
    [
        {},  # curl
        {"Origin": "http://localhost"},
        {"Origin": "http://LOCALHOST:80", "Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},
    ],
    ids=["no-origin", "own-origin", "own-origin-default-port", "same-origin", "user-initiated"],
)
def test_same_origin_and_origin_less_cookie_requests_work(client, make_user, endpoint, headers):
    make_user()
    login(client)
    assert client.post(f"/api/v1/auth/{endpoint}", headers=headers).status_code == 200


@pytest.mark.parametrize("config_overrides", [{"PROXY_FIX_X_PROTO": 1, "PROXY_FIX_X_HOST": 1}])
def test_behind_nginx_the_own_origin_is_the_public_one(client, make_user):
    make_user()
    login(client)
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "datahub.example.com"}
    assert (
        refresh(client, headers={**forwarded, "Origin": "https://datahub.example.com"}).status_code
        == 200
    )
    assert refresh(client, headers={**forwarded, "Origin": "http://localhost"}).status_code == 403


@pytest.mark.parametrize(
    "origins",
    [
        ["*"],
        ["https://*.example.com"],
        ["https://app.example.com/path"],
        ["app.example.com"],
        "https://a.example.com,ftp://b.example.com",
    ],
)
def test_a_cors_origin_that_is_not_an_exact_origin_stops_start_up(base_config, origins):
    with pytest.raises(ConfigurationError, match="CORS_ORIGINS entry"):
        create_app({**base_config, "CORS_ORIGINS": origins})


def test_cors_origins_from_the_environment_may_be_comma_separated(base_config, monkeypatch):
    monkeypatch.setenv("DATAHUB_CORS_ORIGINS", "https://a.example.com, https://B.example.com:443/")
    app = create_app(base_config)
    assert app.config["CORS_ORIGINS"] == ["https://a.example.com", "https://b.example.com"]


# -- optional double-submit CSRF ---------------------------------------------------------

DOUBLE_SUBMIT = {"JWT_COOKIE_CSRF_PROTECT": True, "JWT_COOKIE_SAMESITE": "None", **WITH_SPA}


def csrf_cookie(client):
    cookie = client.get_cookie("csrf_refresh_token", path="/")
    return cookie.value if cookie else None


@pytest.mark.parametrize("config_overrides", [DOUBLE_SUBMIT])
def test_double_submit_csrf_cookie_is_set_readable_by_the_spa(client, make_user):
    make_user()
    response = login(client)
    headers = response.headers.getlist("Set-Cookie")
    (csrf_header,) = [h for h in headers if h.startswith("csrf_refresh_token=")]
    (refresh_header,) = [h for h in headers if h.startswith("__Secure-refresh_token=")]
    assert "HttpOnly" not in csrf_header and "HttpOnly" in refresh_header
    for attribute in ("Secure", "SameSite=None", "Path=/"):
        assert attribute in csrf_header
    assert "SameSite=None" in refresh_header
    assert csrf_cookie(client)


@pytest.mark.parametrize("config_overrides", [DOUBLE_SUBMIT])
@pytest.mark.parametrize("endpoint", ["refresh", "logout"])
@pytest.mark.parametrize("sent", [None, "wrong-value"], ids=["missing", "wrong"])
def test_double_submit_csrf_refuses_a_missing_or_wrong_header(client, make_user, endpoint, sent):
    make_user()
    login(client)
    cookie = cookie_value(client)
    headers = {"Origin": SPA} | ({"X-CSRF-TOKEN": sent} if sent else {})
    response = client.post(f"/api/v1/auth/{endpoint}", headers=headers)
    assert response.status_code == 403
    assert response.get_json() == {"detail": "Forbidden"}
    assert cookie_value(client) == cookie
    assert refresh(client, headers={"X-CSRF-TOKEN": csrf_cookie(client)}).status_code == 200


@pytest.mark.parametrize("config_overrides", [DOUBLE_SUBMIT])
def test_double_submit_csrf_with_the_header_works(client, make_user):
    make_user()
    login(client)
    first = csrf_cookie(client)
    response = refresh(client, headers={"Origin": SPA, "X-CSRF-TOKEN": first})
    assert response.status_code == 200
    second = csrf_cookie(client)
    assert second == first  # the session's value: stable across rotation, for every tab
    response = client.post("/api/v1/auth/logout", headers={"Origin": SPA, "X-CSRF-TOKEN": second})
    assert response.status_code == 200
    assert cookie_value(client) is None and csrf_cookie(client) is None


@pytest.mark.parametrize("config_overrides", [WITH_SPA])
def test_preflight_allows_the_csrf_header(client):
    response = preflight(client, "/api/v1/auth/refresh", SPA, headers="x-csrf-token")
    assert response.headers["Access-Control-Allow-Headers"] == "x-csrf-token"


def test_samesite_none_without_secure_stops_start_up(base_config):
    with pytest.raises(ConfigurationError, match="SAMESITE=None needs JWT_COOKIE_SECURE"):
        create_app({**base_config, "JWT_COOKIE_SAMESITE": "None", "JWT_COOKIE_SECURE": False})


@pytest.mark.parametrize("config_overrides", [DOUBLE_SUBMIT])
def test_double_submit_value_is_also_a_response_header_for_a_cross_site_spa(app, client, make_user):
    """An SPA on another site cannot read the API's cookie: it takes the value from the
    login response's header (exposed by CORS) and keeps it, e.g. in localStorage. The value
    belongs to the session, so every tab can use it after any tab has refreshed."""
    make_user()
    response = client.post(
        "/api/v1/auth/login",
        headers={"Origin": SPA},
        json={"email": "user@example.com", "password": "correct horse battery"},
    )
    value = response.headers["X-CSRF-TOKEN"]
    assert value == csrf_cookie(client)
    assert "X-CSRF-TOKEN" in response.headers["Access-Control-Expose-Headers"].split(", ")
    old_cookie = cookie_value(client)

    headers = {"Origin": SPA, "X-CSRF-TOKEN": value}
    first = refresh(client, headers=headers)
    assert first.status_code == 200 and first.headers["X-CSRF-TOKEN"] == value
    assert refresh(client, headers=headers).status_code == 200  # still the same value
    # The other tab, a moment late with the old cookie: answered, with the value too.
    other = app.test_client()
    use_cookie(other, old_cookie)
    late = refresh(other, headers=headers)
    assert late.status_code == 200 and late.headers["X-CSRF-TOKEN"] == value
    # Another session's value does not fit this session's cookie.
    second_client = app.test_client()
    other_value = login(second_client).headers["X-CSRF-TOKEN"]
    assert other_value != value
    assert refresh(client, headers={"Origin": SPA, "X-CSRF-TOKEN": other_value}).status_code == 403


def test_without_double_submit_no_csrf_cookie_or_header_is_sent(client, make_user):
    make_user()
    response = login(client)
    assert "X-CSRF-TOKEN" not in response.headers
    assert [h for h in response.headers.getlist("Set-Cookie") if h.startswith("csrf_")] == []
    assert "csrf" not in claims(cookie_value(client))
