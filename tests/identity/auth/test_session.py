"""Refresh and logout: the session rows of seed part 3 and DESIGN.md "Tokens and the session"."""

import time

import pytest

from tests.conftest import bearer, login
from tests.identity.auth.tokens import forge

COOKIE = "__Secure-refresh_token"
PATH = "/api/v1/auth"


def refresh(client):
    return client.post("/api/v1/auth/refresh")


def cookie_value(client):
    cookie = client.get_cookie(COOKIE, path=PATH)
    return cookie.value if cookie else None


def test_refresh_with_the_login_cookie_gives_a_working_access_token(client, make_user):
    make_user()
    login(client)
    response = refresh(client)
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == {"access_token", "token_type"} and body["token_type"] == "bearer"
    assert response.headers["Cache-Control"] == "no-store"
    me = client.get("/api/v1/auth/me", headers=bearer(body["access_token"]))
    assert me.status_code == 200 and me.get_json()["email"] == "user@example.com"


def test_the_cookie_is_only_sent_under_its_path(client, make_user):
    make_user()
    login(client)
    assert client.get_cookie(COOKIE, path=PATH) is not None
    assert client.get_cookie(COOKIE, path="/") is None


def test_refresh_without_a_cookie_is_not_authenticated(client):
    response = refresh(client)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Not authenticated"}
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_refresh_ignores_a_refresh_token_in_the_authorization_header(client, make_user):
    make_user()
    token = login(client).headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    client.delete_cookie(COOKIE, path=PATH)
    response = client.post("/api/v1/auth/refresh", headers=bearer(token))
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Not authenticated"}


@pytest.mark.parametrize(
    "make_token, detail",
    [
        (lambda uid: "garbage", "Invalid token"),
        (
            lambda uid: forge(uid, type_="refresh", secret="another-secret-" + "y" * 40),
            "Invalid token",
        ),
        (lambda uid: forge(uid, type_="access"), "Invalid token"),
        (
            lambda uid: forge(uid, type_="refresh", iat=int(time.time()) - 100, lifetime=50),
            "Token has expired",
        ),
        (lambda uid: forge(uid, type_="refresh"), "Invalid token"),  # no server record
    ],
    ids=["garbage", "bad-signature", "access-token", "expired", "unrecorded"],
)
def test_refresh_with_a_bad_cookie_is_401(client, make_user, make_token, detail):
    user = make_user()
    client.set_cookie(COOKIE, make_token(user.id), path=PATH)
    response = refresh(client)
    assert response.status_code == 401
    assert response.get_json() == {"detail": detail}


def test_refresh_after_the_user_is_deactivated_is_401(app, client, make_user):
    from datahub.identity.users import services

    make_user(email="admin@example.com", roles=["admin"])
    make_user()
    login(client)
    with app.app_context():
        services.set_active(services.get_by_email("user@example.com"), False)
    response = refresh(client)
    assert response.status_code == 401
    assert response.get_json()["detail"] in {"Token has been revoked", "Invalid token"}


def test_logout_answers_the_message_and_deletes_the_cookie(client, make_user):
    make_user()
    login(client)
    response = client.post("/api/v1/auth/logout")
    assert response.status_code == 200
    assert response.get_json() == {"message": "Successfully logged out"}
    (set_cookie,) = response.headers.getlist("Set-Cookie")
    assert set_cookie.startswith(f"{COOKIE}=;")
    attributes = [a.strip() for a in set_cookie.split(";")[1:]]
    for expected in ("Max-Age=0", "Path=/api/v1/auth", "HttpOnly", "Secure", "SameSite=Strict"):
        assert expected in attributes
    assert cookie_value(client) is None


def test_a_copied_refresh_cookie_replayed_after_logout_is_refused(client, make_user):
    make_user()
    login(client)
    copied = cookie_value(client)
    assert client.post("/api/v1/auth/logout").status_code == 200
    client.set_cookie(COOKIE, copied, path=PATH)
    response = refresh(client)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Token has been revoked"}


def test_logout_blocks_the_access_token_sent_with_it(client, make_user):
    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    assert client.post("/api/v1/auth/logout", headers=headers).status_code == 200
    response = client.get("/api/v1/auth/me", headers=headers)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Token has been revoked"}


def test_logout_leaves_other_sessions_alone(app, make_user):
    make_user()
    first, second = app.test_client(), app.test_client()
    login(first)
    second_headers = bearer(login(second).get_json()["access_token"])
    first.post("/api/v1/auth/logout")
    assert refresh(second).status_code == 200
    assert second.get("/api/v1/auth/me", headers=second_headers).status_code == 200


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer garbage"}, {"Authorization": "Basic dXNlcjpwdw=="}],
    ids=["nothing", "garbage-bearer", "basic"],
)
def test_logout_is_200_without_a_session_and_when_repeated(client, headers):
    for _ in range(2):
        response = client.post("/api/v1/auth/logout", headers=headers)
        assert response.status_code == 200
        assert response.get_json() == {"message": "Successfully logged out"}


def test_logout_twice_with_the_same_bearer_is_200(client, make_user):
    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    assert client.post("/api/v1/auth/logout", headers=headers).status_code == 200
    assert client.post("/api/v1/auth/logout", headers=headers).status_code == 200


def test_without_secure_the_cookie_is_called_refresh_token(app, make_user, base_config):
    from datahub import create_app

    plain = create_app({**base_config, "JWT_COOKIE_SECURE": False})
    make_user()
    client = plain.test_client()
    set_cookie = login(client).headers["Set-Cookie"]
    assert set_cookie.startswith("refresh_token=")
    assert "Secure" not in set_cookie
    assert refresh(client).status_code == 200
