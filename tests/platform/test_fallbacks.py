"""The rate limiter and the auth cache without their Redis: requests are answered as
before (local counts, a lookup per request), and the process says so in /readyz, in
/metrics and in a log line; once Redis is back, within a second or two, they use it again.
Redis is a redis-server of the test's own, started late."""

import logging
import re
import time

import pytest
import redis

from tests.conftest import bearer, login
from tests.e2e.fault_parts import OwnRedis


@pytest.fixture
def own_redis(tmp_path):
    server = OwnRedis(tmp_path / "redis")  # its port is known, nothing listens yet
    yield server
    server.stop()


@pytest.fixture
def config_overrides(own_redis):
    return {
        "RATELIMIT_STORAGE_URI": own_redis.url(1),
        "AUTH_CACHE_REDIS_URL": own_redis.url(0),
        "AUTH_CACHE_CHANNEL": f"fallbacks-{own_redis.port}",
    }


def metric(client, name, part):
    text = client.get("/metrics").get_data(as_text=True)
    found = re.search(rf'^{name}(?:_total)?{{part="{part}"}} (\S+)$', text, re.M)
    return float(found.group(1)) if found else None


def wait_for(condition, timeout=10):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.1)


def test_rate_limits_count_locally_while_redis_is_down_and_say_so(
    client, make_user, own_redis, caplog
):
    make_user(roles=["viewer"])
    before = metric(client, "datahub_fallbacks", "rate_limits") or 0
    with caplog.at_level(logging.WARNING, logger="datahub.fallbacks"):
        for _ in range(3):  # rate-limited, counted in memory: answered as ever
            assert login(client).status_code == 200
    assert client.get("/readyz").get_json()["rate_limits"] == "local"
    assert metric(client, "datahub_fallbacks", "rate_limits") == before + 1
    assert metric(client, "datahub_fallback_processes", "rate_limits") == 1
    assert "rate_limits: falling back to local behaviour" in caplog.text
    # The per-account limit still holds, in this process's memory.
    for _ in range(5):
        client.post("/api/v1/auth/login", json={"email": "x@example.com", "password": "no"})
    refused = client.post("/api/v1/auth/login", json={"email": "x@example.com", "password": "no"})
    assert refused.status_code == 429 and refused.headers["Retry-After"]

    time.sleep(1)
    own_redis.start()
    # Asked every RATELIMIT_STORE_RECHECK_SECONDS, whether or not a limit is checked.
    wait_for(lambda: client.get("/readyz").get_json()["rate_limits"] == "ok", timeout=2.5)
    assert metric(client, "datahub_fallback_processes", "rate_limits") == 0
    assert login(client).status_code == 200
    assert redis.Redis.from_url(own_redis.url(1)).keys("*")  # counted in Redis now


def test_the_auth_cache_queries_while_its_channel_is_down_and_says_so(client, make_user, own_redis):
    make_user(roles=["viewer"])
    token = login(client).get_json()["access_token"]
    # The first lookup starts the channel's subscriber, which cannot connect.
    assert client.get("/api/v1/auth/me", headers=bearer(token)).status_code == 200
    wait_for(lambda: client.get("/readyz").get_json().get("auth_cache") == "querying")
    assert client.get("/api/v1/auth/me", headers=bearer(token)).status_code == 200
    assert metric(client, "datahub_fallback_processes", "auth_cache") == 1

    own_redis.start()
    wait_for(lambda: client.get("/readyz").get_json()["auth_cache"] == "ok", timeout=10)
    assert metric(client, "datahub_fallback_processes", "auth_cache") == 0
    assert client.get("/api/v1/auth/me", headers=bearer(token)).status_code == 200


def test_a_store_lost_between_a_check_and_the_count_after_costs_no_request(
    app, client, make_user, own_redis
):
    """A failed login is checked before its view and counted after it. A store that
    answered the check and is gone for the count: the login is answered as ever (401,
    never a 500), and the next ones count locally."""
    own_redis.start()
    make_user(roles=["viewer"])
    stop_the_store = []

    @app.after_request  # runs before Flask-Limiter's own (registered earlier)
    def store_gone_after_the_view(response):
        if stop_the_store:
            stop_the_store.clear()
            own_redis.stop()
        return response

    assert login(client).status_code == 200  # checked and counted in Redis
    wrong = {"email": "user@example.com", "password": "not the password"}
    stop_the_store.append(True)
    assert client.post("/api/v1/auth/login", json=wrong).status_code == 401
    assert client.post("/api/v1/auth/login", json=wrong).status_code == 401
    assert client.get("/readyz").get_json()["rate_limits"] == "local"
