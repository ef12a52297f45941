"""Two gunicorn servers ("hosts") on one database, each with the auth cache on
(DATAHUB_AUTH_CACHE_REDIS_URL, the real Redis on 127.0.0.1:6379): a logout, a demotion or
a deactivation done through host A is seen by host B at the very next request, whichever
of B's workers answers. Redis unreachable: these tests fail, they do not skip."""

import json
import time
import urllib.error
import urllib.request
import uuid

import pytest
import redis

from tests import workers
from tests.e2e.conftest import start_gunicorn, stop_gunicorn

pytestmark = pytest.mark.e2e

REDIS_URL = workers.redis_url(0)
WORKERS = 2


def start(database_url, folder, extra_env):
    folder.mkdir()
    return start_gunicorn(
        database_url, folder, WORKERS, {"DATAHUB_PIPELINE_EMBEDDED_WORKER": "false", **extra_env}
    )


@pytest.fixture
def channel():
    redis.Redis.from_url(REDIS_URL).ping()  # errors (the test fails) when unreachable
    return f"datahub-test:{uuid.uuid4().hex}"


@pytest.fixture(params=["forked", "preloaded"])
def hosts(request, app, database_url, tmp_path, channel):
    """Host A, then host B (A made the first admin: B finds it); each worker imports the
    app after the fork, or (``--preload``) inherits it from gunicorn's master."""
    secret = uuid.uuid4().hex * 2  # the hosts of one deployment share their secrets
    env = {
        "DATAHUB_AUTH_CACHE_REDIS_URL": REDIS_URL,
        "DATAHUB_AUTH_CACHE_CHANNEL": channel,
        "DATAHUB_SECRET_KEY": secret,
        "DATAHUB_JWT_SECRET_KEY": secret,
    }
    if request.param == "preloaded":
        env["GUNICORN_CMD_ARGS"] = "--preload"
    started = []
    try:
        started.append(start(database_url, tmp_path / "a", env))
        started.append(start(database_url, tmp_path / "b", env))
        yield started
    finally:
        for server in started:
            stop_gunicorn(server)


def call(server, method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def log_in(server, email, password):
    status, body = call(
        server, "POST", "/api/v1/auth/login", {"email": email, "password": password}
    )
    assert status == 200, body
    return body["access_token"]


def warm(server, token, channel, times=12):
    """Several requests (so that each worker likely answered some), then wait until the
    host's workers are subscribed: its cache is on."""
    for _ in range(times):
        status, body = call(server, "GET", "/api/v1/auth/me", token=token)
        assert status == 200, body
    client = redis.Redis.from_url(REDIS_URL)
    deadline = time.monotonic() + 10
    while client.pubsub_numsub(channel)[0][1] < 1:
        assert time.monotonic() < deadline, "no worker subscribed to the channel"
        time.sleep(0.05)
    time.sleep(0.3)  # the subscriptions acknowledged: answers are now kept
    for _ in range(times):
        assert call(server, "GET", "/api/v1/auth/me", token=token)[0] == 200


def next_requests(server, token, count=6):
    return [call(server, "GET", "/api/v1/auth/me", token=token) for _ in range(count)]


def test_logout_demotion_and_deactivation_on_a_are_seen_by_b_at_once(hosts, channel):
    a, b = hosts
    admin = log_in(a, "admin@example.com", a.admin_password())
    status, body = call(
        a,
        "POST",
        "/api/v1/users/",
        {
            "email": "ann@example.com",
            "password": "a long password",
            "name": "Ann",
            "roles": ["editor"],
        },
        token=admin,
    )
    assert status == 201, body
    ann_id = body["id"]

    # Logout on A: B refuses the token at the very next request, on every worker.
    token = log_in(a, "ann@example.com", "a long password")
    warm(b, token, channel)
    assert call(a, "POST", "/api/v1/auth/logout", token=token)[0] == 200
    assert next_requests(b, token) == [(401, {"detail": "Token has been revoked"})] * 6

    # Demotion on A: B shows the new roles at once.
    token = log_in(a, "ann@example.com", "a long password")
    warm(b, token, channel)
    assert call(b, "GET", "/api/v1/auth/me", token=token)[1]["roles"] == ["editor"]
    status, body = call(a, "PATCH", f"/api/v1/users/{ann_id}", {"roles": ["viewer"]}, token=admin)
    assert status == 200, body
    assert [body["roles"] for _, body in next_requests(b, token)] == [["viewer"]] * 6
    status, _ = call(b, "POST", "/api/v1/datasets/", {"name": "not allowed"}, token=token)
    assert status == 403

    # Deactivation on A: B refuses at once.
    status, body = call(a, "PATCH", f"/api/v1/users/{ann_id}", {"is_active": False}, token=admin)
    assert status == 200, body
    assert next_requests(b, token) == [(401, {"detail": "Token has been revoked"})] * 6


def test_a_personal_access_token_revoked_on_a_is_refused_by_b_at_once(hosts, channel):
    a, b = hosts
    admin = log_in(a, "admin@example.com", a.admin_password())
    status, body = call(
        a, "POST", "/api/v1/auth/tokens", {"name": "script", "scopes": ["read"]}, token=admin
    )
    assert status == 201, body
    token_id, token = body["id"], body["token"]
    warm(b, token, channel)
    status, _ = call(a, "DELETE", f"/api/v1/auth/tokens/{token_id}", token=admin)
    assert status == 204
    assert next_requests(b, token) == [(401, {"detail": "Invalid token"})] * 6
