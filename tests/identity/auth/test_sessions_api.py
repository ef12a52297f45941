"""The caller's sessions: list, delete one, log out everywhere, change the password
(issue 5, part 2)."""

import pytest

from tests.conftest import PASSWORD, bearer, login
from tests.identity.auth.helpers import claims, cookie_value, refresh, use_cookie

BASE = "/api/v1/auth"


def log_in(app, email="user@example.com", agent="pytest", password=PASSWORD):
    """A separate device: its own client (cookie jar) and access token."""
    client = app.test_client()
    response = client.post(
        f"{BASE}/login", json={"email": email, "password": password}, headers={"User-Agent": agent}
    )
    assert response.status_code == 200, response.get_json()
    return client, bearer(response.get_json()["access_token"])


def test_sessions_lists_the_callers_active_logins(app, make_user):
    make_user()
    make_user(email="other@example.com")
    laptop, laptop_headers = log_in(app, agent="Laptop/1.0")
    phone, _ = log_in(app, agent="Phone/2.0")
    log_in(app, email="other@example.com")  # someone else's: never listed
    ended, _ = log_in(app, agent="Ended/3.0")
    ended.post(f"{BASE}/logout")
    refresh(phone, headers={"User-Agent": "Phone/2.1"})  # the phone was used last

    response = laptop.get(f"{BASE}/sessions", headers=laptop_headers)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    body = response.get_json()
    assert (body["total"], body["limit"], body["offset"]) == (2, 20, 0)
    assert [s["user_agent"] for s in body["items"]] == ["Phone/2.1", "Laptop/1.0"]
    assert [s["current"] for s in body["items"]] == [False, True]
    for item in body["items"]:
        assert set(item) == {
            "id",
            "created_at",
            "last_used_at",
            "expires_at",
            "user_agent",
            "client_address",
            "current",
        }
        assert item["client_address"] == "127.0.0.1"
    laptop_item = body["items"][1]
    assert laptop_item["id"] == claims(cookie_value(laptop))["fam"]
    phone_item = body["items"][0]
    assert phone_item["last_used_at"] > phone_item["created_at"]

    page = laptop.get(f"{BASE}/sessions?limit=1&offset=1", headers=laptop_headers).get_json()
    assert [s["user_agent"] for s in page["items"]] == ["Laptop/1.0"] and page["total"] == 2


@pytest.mark.parametrize(
    "query, loc, msg",
    [
        ("limit=0", ["query", "limit"], "ensure this value is greater than or equal to 1"),
        ("limit=abc", ["query", "limit"], "value is not a valid integer"),
        ("offset=-1", ["query", "offset"], "ensure this value is greater than or equal to 0"),
    ],
)
def test_sessions_paging_is_validated(client, auth_headers, query, loc, msg):
    response = client.get(f"{BASE}/sessions?{query}", headers=auth_headers())
    assert response.status_code == 422
    assert [(e["loc"], e["msg"]) for e in response.get_json()["detail"]] == [(loc, msg)]


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/sessions"),
        ("delete", "/sessions/x"),
        ("post", "/logout-all"),
        ("put", "/me/password"),
    ],
)
def test_the_session_endpoints_need_a_bearer(client, method, path):
    response = getattr(client, method)(BASE + path)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Not authenticated"}
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_deleting_a_session_ends_its_refresh_and_access_tokens(app, make_user):
    make_user()
    laptop, laptop_headers = log_in(app)
    phone, phone_headers = log_in(app)
    phone_id = claims(cookie_value(phone))["fam"]

    response = laptop.delete(f"{BASE}/sessions/{phone_id}", headers=laptop_headers)
    assert response.status_code == 204 and response.get_data() == b""
    assert refresh(phone).get_json() == {"detail": "Token has been revoked"}
    me = phone.get(f"{BASE}/me", headers=phone_headers)
    assert me.status_code == 401 and me.get_json() == {"detail": "Token has been revoked"}
    # The laptop is untouched.
    assert laptop.get(f"{BASE}/me", headers=laptop_headers).status_code == 200
    assert refresh(laptop).status_code == 200
    # Gone now: a second delete is a 404.
    again = laptop.delete(f"{BASE}/sessions/{phone_id}", headers=laptop_headers)
    assert again.status_code == 404 and again.get_json() == {"detail": "Session not found"}


def test_deleting_someone_elses_or_an_unknown_session_is_404(app, make_user):
    make_user()
    make_user(email="other@example.com")
    mine, headers = log_in(app)
    theirs, their_headers = log_in(app, email="other@example.com")
    their_id = claims(cookie_value(theirs))["fam"]
    for session_id in (their_id, "00000000-0000-0000-0000-000000000000", "x" * 300):
        response = mine.delete(f"{BASE}/sessions/{session_id}", headers=headers)
        assert response.status_code == 404
        assert response.get_json() == {"detail": "Session not found"}
    assert refresh(theirs).status_code == 200
    assert theirs.get(f"{BASE}/me", headers=their_headers).status_code == 200


def test_deleting_the_current_session_logs_the_caller_out(app, make_user):
    make_user()
    client, headers = log_in(app)
    cookie = cookie_value(client)
    session_id = claims(cookie)["fam"]
    response = client.delete(f"{BASE}/sessions/{session_id}", headers=headers)
    assert response.status_code == 204
    assert "Max-Age=0" in response.headers["Set-Cookie"]  # the ended session's cookie goes
    use_cookie(client, cookie)
    assert client.get(f"{BASE}/me", headers=headers).status_code == 401
    assert refresh(client).status_code == 401


def test_logout_all_ends_every_session_of_the_caller_only(app, make_user):
    make_user()
    make_user(email="other@example.com")
    laptop, laptop_headers = log_in(app)
    phone, phone_headers = log_in(app)
    other, other_headers = log_in(app, email="other@example.com")

    response = laptop.post(f"{BASE}/logout-all", headers=laptop_headers)
    assert response.status_code == 200
    assert response.get_json() == {"message": "Logged out of all sessions"}
    assert "Max-Age=0" in response.headers["Set-Cookie"]
    for client, headers in ((laptop, laptop_headers), (phone, phone_headers)):
        assert client.get(f"{BASE}/me", headers=headers).get_json() == {
            "detail": "Token has been revoked"
        }
    assert refresh(phone).get_json() == {"detail": "Token has been revoked"}
    assert cookie_value(laptop) is None
    # Someone else is not affected; and the caller can log in again.
    assert other.get(f"{BASE}/me", headers=other_headers).status_code == 200
    assert refresh(other).status_code == 200
    log_in(app)


def test_password_change_ends_every_other_session(app, make_user):
    make_user()
    laptop, laptop_headers = log_in(app)
    phone, phone_headers = log_in(app)
    laptop_sid = claims(cookie_value(laptop))["fam"]

    response = laptop.put(
        f"{BASE}/me/password",
        headers=laptop_headers,
        json={"current_password": PASSWORD, "new_password": "a new password"},
    )
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    body = response.get_json()
    assert set(body) == {"access_token", "token_type"} and body["token_type"] == "bearer"
    assert claims(body["access_token"])["sid"] == laptop_sid

    # The phone is out, entirely.
    assert refresh(phone).get_json() == {"detail": "Token has been revoked"}
    assert phone.get(f"{BASE}/me", headers=phone_headers).status_code == 401
    # The laptop keeps working: the new access token, and its refresh cookie.
    assert laptop.get(f"{BASE}/me", headers=laptop_headers).status_code == 401  # old token void
    assert laptop.get(f"{BASE}/me", headers=bearer(body["access_token"])).status_code == 200
    assert refresh(laptop).status_code == 200
    listed = laptop.get(f"{BASE}/sessions", headers=bearer(body["access_token"])).get_json()
    assert [s["id"] for s in listed["items"]] == [laptop_sid]
    # The new password is the one that logs in.
    assert login(app.test_client(), password=PASSWORD).status_code == 401
    log_in(app, password="a new password")


def test_password_change_with_a_wrong_current_password_is_422(app, make_user):
    make_user()
    laptop, headers = log_in(app)
    phone, phone_headers = log_in(app)
    response = laptop.put(
        f"{BASE}/me/password",
        headers=headers,
        json={"current_password": "not it at all", "new_password": "a new password"},
    )
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            {
                "loc": ["body", "current_password"],
                "msg": "current password is incorrect",
                "type": "value_error.password.incorrect",
            }
        ]
    }
    # Nothing changed.
    assert phone.get(f"{BASE}/me", headers=phone_headers).status_code == 200
    log_in(app)


@pytest.mark.parametrize(
    "body, loc, msg",
    [
        (
            {"current_password": PASSWORD, "new_password": "short"},
            ["body", "new_password"],
            "ensure this value has at least 8 bytes",
        ),
        (
            {"current_password": PASSWORD, "new_password": "x" * 73},
            ["body", "new_password"],
            "ensure this value has at most 72 bytes",
        ),
        ({"current_password": PASSWORD}, ["body", "new_password"], "field required"),
        ({"new_password": "a new password"}, ["body", "current_password"], "field required"),
    ],
)
def test_password_change_validates_the_body(client, auth_headers, body, loc, msg):
    response = client.put(f"{BASE}/me/password", headers=auth_headers(), json=body)
    assert response.status_code == 422
    assert [(e["loc"], e["msg"]) for e in response.get_json()["detail"]] == [(loc, msg)]
    assert login(client).status_code == 200  # the password is unchanged


def test_an_access_token_without_a_session_still_works(client, make_user):
    """Tokens minted before sessions existed (no ``sid``) keep working until they expire."""
    from tests.identity.auth.tokens import forge

    user = make_user()
    assert client.get(f"{BASE}/me", headers=bearer(forge(user.id))).status_code == 200
    assert client.get(
        f"{BASE}/me", headers=bearer(forge(user.id, sid="00000000-0000-0000-0000-000000000000"))
    ).get_json() == {"detail": "Token has been revoked"}
