"""datahub_client against real gunicorn processes (plain http on loopback)."""
import json
import subprocess
import sys
import threading
import time

import pytest

from datahub_client import (
    AuthenticationError,
    Client,
    NotFoundError,
    ServerError,
    ValidationError,
)
from tests.e2e.conftest import ROOT, free_port

pytestmark = pytest.mark.e2e


@pytest.fixture
def client(gunicorn_server):
    client = Client(gunicorn_server.url)
    client.login("admin@example.com", gunicorn_server.admin_password())
    return client


def test_login_me_refresh_logout_over_plain_http(client, gunicorn_server):
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


def test_a_bad_password_is_a_typed_error(gunicorn_server):
    with pytest.raises(AuthenticationError) as error:
        Client(gunicorn_server.url).login("admin@example.com", "wrong password")
    assert error.value.detail == "Invalid email or password"


def test_errors_carry_status_and_detail(client):
    with pytest.raises(NotFoundError) as error:
        client.request("GET", "/api/v1/nothing")
    assert (error.value.status, error.value.detail) == (404, "Not Found")
    with pytest.raises(ValidationError) as error:
        client.request("POST", "/api/v1/auth/login", json_body={}, authenticated=False)
    assert error.value.status == 422 and "email: field required" in error.value.message


@pytest.mark.parametrize("gunicorn_env", [{"DATAHUB_JWT_ACCESS_TOKEN_EXPIRES": "1"}])
def test_an_expired_token_is_renewed_once_for_many_threads(gunicorn_env, client):
    time.sleep(1.5)
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


@pytest.fixture
def flaky(tmp_path):
    port, log = free_port(), tmp_path / "arrivals.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-w", "1", "-b", f"127.0.0.1:{port}",
         "--no-control-socket", "flaky_app:app"],
        cwd=ROOT / "tests/e2e", env={"FLAKY_LOG": str(log), "PATH": ""},
        stderr=subprocess.DEVNULL)
    client = Client(f"http://127.0.0.1:{port}", retries=3)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.request("GET", "/flaky", params={"key": "ready", "fail": 0}, authenticated=False)
            break
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)

    def arrivals(key):
        lines = [json.loads(line) for line in log.read_text().splitlines()]
        times = [line["at"] for line in lines if line["key"] == key]
        return [round(b - a, 2) for a, b in zip(times, times[1:])]

    yield client, arrivals
    process.terminate()
    process.wait(timeout=10)


def test_retry_schedule_is_one_then_two_seconds_on_503(flaky):
    client, arrivals = flaky
    response = client.request("GET", "/flaky", params={"key": "a", "fail": 2}, authenticated=False)
    assert json.loads(response.data) == {"attempts": 3}
    first, second = arrivals("GET a")
    assert 0.9 <= first < 1.8 and 1.9 <= second < 3.0


def test_gives_up_after_three_retries(flaky):
    client, arrivals = flaky
    started = time.monotonic()
    with pytest.raises(ServerError) as error:
        client.request("GET", "/flaky", params={"key": "b", "fail": 9}, authenticated=False)
    assert (error.value.status, error.value.detail) == (503, "Service unavailable")
    assert len(arrivals("GET b")) == 3  # four attempts: three gaps of 1, 2 and 4 seconds
    assert 6.5 <= time.monotonic() - started < 10


def test_a_longer_retry_after_is_honoured(flaky):
    client, arrivals = flaky
    client.request("GET", "/flaky", params={"key": "c", "fail": 1, "retry_after": 3},
                   authenticated=False)
    (gap,) = arrivals("GET c")
    assert 2.9 <= gap < 4


def test_post_is_never_retried(flaky):
    client, arrivals = flaky
    with pytest.raises(ServerError):
        client.request("POST", "/flaky", params={"key": "d", "fail": 1}, authenticated=False)
    assert arrivals("POST d") == []  # one attempt only
