"""Rate limits exact across gunicorn's workers with the default settings: no Redis, the
counts in the instance folder's SQLite file. Each attempt is a new connection; attempts
are sent together so that several workers answer them, and the access log proves it."""

import json
import re
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.e2e

WORKERS = 5


@pytest.fixture
def gunicorn_workers():
    return WORKERS


@pytest.fixture
def gunicorn_env():
    # A real bcrypt cost, so that attempts sent together overlap, and one thread per worker,
    # so that a busy worker stops accepting and the attempts spread over the workers.
    return {"DATAHUB_BCRYPT_ROUNDS": "10", "DATAHUB_THREADS": "1"}


def post_login(url, email, request_id):
    request = urllib.request.Request(
        url + "/api/v1/auth/login",
        data=json.dumps({"email": email, "password": "wrong password"}).encode(),
        headers={
            "Content-Type": "application/json",
            "X-Request-ID": request_id,
            "Connection": "close",
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def together(url, emails, run, start=0):
    with ThreadPoolExecutor(max_workers=len(emails)) as pool:
        return list(
            pool.map(
                lambda pair: post_login(url, pair[1], f"{run}-{pair[0]}"), enumerate(emails, start)
            )
        )


def workers_that_answered(server, run, count):
    """The pids in the access log of the requests ``{run}-0`` .. ``{run}-{count - 1}``."""
    deadline = time.monotonic() + 5  # workers write their access lines after responding
    while True:
        lines = re.findall(rf"request_id={run}-(\d+) pid=<(\d+)>", server.log())
        if len(lines) >= count or time.monotonic() > deadline:
            return {pid for number, pid in lines if int(number) < count}
        time.sleep(0.05)


def assert_too_many(result):
    status, headers, body = result
    assert status == 429, body
    assert json.loads(body) == {"detail": "Too many requests"}
    assert 1 <= int(headers["Retry-After"]) <= 60


def test_five_wrong_passwords_then_429_whichever_worker_answers(gunicorn_server):
    url, run = gunicorn_server.url, f"email-{uuid.uuid4().hex[:8]}"
    email = "victim@example.com"
    first = together(url, [email] * 5, run)
    assert [status for status, _, _ in first] == [401] * 5, first
    assert_too_many(post_login(url, email, f"{run}-5"))
    # Every worker refuses from now on: a burst that several of them answer.
    for result in together(url, [email] * WORKERS, run, start=6):
        assert_too_many(result)
    # Per-worker counts would have let one of those through; several workers answered.
    assert len(workers_that_answered(gunicorn_server, run, 5)) >= 2, gunicorn_server.log()
    assert len(workers_that_answered(gunicorn_server, run, 6 + WORKERS)) >= 2
    # The counts are in the instance folder's file, and another account is unaffected.
    assert (gunicorn_server.instance_path / "ratelimits.sqlite").exists()
    assert post_login(url, "someone-else@example.com", f"{run}-other")[0] == 401


def test_the_per_address_limit_is_exact_too(gunicorn_server):
    """Default 30/minute per address: the 31st attempt from one address, any email, any
    worker, is refused."""
    url, run = gunicorn_server.url, f"address-{uuid.uuid4().hex[:8]}"
    results = []
    for batch in range(3):
        emails = [f"guess{batch * 10 + i}@example.com" for i in range(10)]
        results += together(url, emails, run, start=batch * 10)
    assert [status for status, _, _ in results] == [401] * 30, results
    assert_too_many(post_login(url, "guess30@example.com", f"{run}-30"))
    assert len(workers_that_answered(gunicorn_server, run, 30)) >= 2, gunicorn_server.log()
