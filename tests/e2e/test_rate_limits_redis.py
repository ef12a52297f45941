"""Rate-limit counts shared by two gunicorn workers through the real Redis (issue 5,
part 3). Redis must be running on 127.0.0.1:6379 (tests.workers picks the database): when it is
not, these tests fail, they do not skip."""

import json
import re
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis

from tests import workers

pytestmark = pytest.mark.e2e

REDIS_URL = workers.redis_url(0)
PER_ADDRESS = 10


@pytest.fixture
def redis_prefix():
    client = redis.Redis.from_url(REDIS_URL)
    client.ping()  # raises (the test errors) when Redis is unreachable
    prefix = f"datahub-test-{uuid.uuid4().hex}"
    yield client, prefix
    for key in client.scan_iter(match=f"*{prefix}*"):
        client.delete(key)
    client.close()


@pytest.fixture
def gunicorn_env(redis_prefix):
    _, prefix = redis_prefix
    return {
        "DATAHUB_RATELIMIT_STORAGE_URI": REDIS_URL,
        "DATAHUB_RATELIMIT_KEY_PREFIX": prefix,
        "DATAHUB_RATE_LIMIT_LOGIN_PER_ADDRESS": f"{PER_ADDRESS}/minute",
        # A real bcrypt cost, so that concurrent logins overlap, and one thread per worker,
        # so that a busy worker stops accepting and both workers serve.
        "DATAHUB_BCRYPT_ROUNDS": "10",
        "DATAHUB_THREADS": "1",
    }


def post_login(url, email, request_id):
    request = urllib.request.Request(
        url + "/api/v1/auth/login",
        data=json.dumps({"email": email, "password": "wrong password"}).encode(),
        headers={"Content-Type": "application/json", "X-Request-ID": request_id},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_login_limit_is_shared_by_both_workers(gunicorn_server, redis_prefix):
    client, prefix = redis_prefix
    url = gunicorn_server.url
    run = uuid.uuid4().hex[:8]
    with ThreadPoolExecutor(max_workers=PER_ADDRESS) as pool:
        results = list(
            pool.map(
                lambda i: post_login(url, f"guess{i}@example.com", f"rl-{run}-{i}"),
                range(PER_ADDRESS),
            )
        )
    assert [status for status, _, _ in results] == [401] * PER_ADDRESS, results

    status, headers, body = post_login(url, "one-more@example.com", f"rl-{run}-last")
    assert status == 429, body
    assert json.loads(body) == {"detail": "Too many requests"}
    assert 1 <= int(headers["Retry-After"]) <= 60

    # Both workers served the allowed requests: a per-worker count would have let up to
    # twice as many through, so the 429 above proves the count is shared.
    deadline = time.monotonic() + 5  # workers write their access lines after responding
    while True:
        log = gunicorn_server.log()
        pids = set(re.findall(rf"request_id=rl-{run}-\d+ pid=<(\d+)>", log))
        if len(pids) == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert len(pids) == 2, log
    # And the count is in Redis, under this server's key prefix.
    assert list(client.scan_iter(match=f"*{prefix}*")), "no rate-limit key in Redis"
    # Audit lines reach the server's log as JSON, without the password.
    audit = [json.loads(line) for line in log.splitlines() if line.startswith('{"ts"')]
    assert {"login_failed", "rate_limited"} <= {event["event"] for event in audit}
    assert "wrong password" not in log
