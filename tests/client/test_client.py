"""datahub_client against a real gunicorn (plain http on loopback); its retry policy,
which needs no datahub, is tested with the client in clients/python/tests."""

import threading
import time

import pytest

from datahub_client import (
    AuthenticationError,
    Client,
    NotFoundError,
    ValidationError,
)

pytestmark = pytest.mark.e2e


def test_login_me_refresh_logout_over_plain_http(client):
    assert client.me()["email"] == "admin@example.com"
    # The refresh cookie is Secure; the client kept it and sends it itself over http.
    assert client.refresh_cookie_name == "__Secure-refresh_token" and client.refresh_cookie
    old = client.access_token
    client.refresh()
    assert client.access_token and client.access_token != old
    assert client.logout() == {"message": "Successfully logged out"}
    assert client.access_token is None and client.refresh_cookie is None
    with pytest.raises(AuthenticationError) as error:
        client.me()
    assert (error.value.status, error.value.detail) == (401, "Not authenticated")


def test_a_bad_password_is_a_typed_error(server):
    with pytest.raises(AuthenticationError) as error:
        Client(server.url).login("admin@example.com", "wrong password")
    assert error.value.detail == "Invalid email or password"


def test_errors_carry_status_and_detail(client):
    with pytest.raises(NotFoundError) as error:
        client.request("GET", "/api/v1/nothing")
    assert (error.value.status, error.value.detail) == (404, "Not Found")
    with pytest.raises(ValidationError) as error:
        client.request("POST", "/api/v1/auth/login", json_body={}, authenticated=False)
    assert error.value.status == 422 and "email: field required" in error.value.message


# Three seconds, not one: ``exp`` is whole seconds, so a token of a one-second lifetime
# can be expired a few milliseconds after it is issued (the renewed one included).
@pytest.mark.parametrize("gunicorn_env", [{"DATAHUB_JWT_ACCESS_TOKEN_EXPIRES": "3"}])
def test_an_expired_token_is_renewed_once_for_many_threads(gunicorn_env, client):
    time.sleep(3.5)
    refreshes = []
    real_refresh = client.refresh
    client.refresh = lambda: refreshes.append(1) or real_refresh()
    results, errors = [], []

    def call():
        try:
            results.append(client.me()["email"])
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results == ["admin@example.com"] * 8
    assert len(refreshes) == 1
