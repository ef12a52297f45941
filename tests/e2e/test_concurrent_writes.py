"""Several gunicorn workers writing at once: no "database is locked", no 5xx."""

import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

# Bursts over several gunicorn workers can take most of PostgreSQL's 100 connections: the
# modules that do run one at a time, on one pytest-xdist worker (python -m tests).
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("many_connections")]


@pytest.fixture
def gunicorn_env():
    """Forty logins of one user in a second would (rightly) hit the login rate limit."""
    return {"DATAHUB_RATELIMIT_ENABLED": "false"}


def post(url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else b""
    request = urllib.request.Request(
        url,
        data=data,
        method="POST",
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_forty_concurrent_logins_and_logouts_all_succeed(gunicorn_server):
    url = gunicorn_server.url + "/api/v1/auth"
    credentials = {"email": "admin@example.com", "password": gunicorn_server.admin_password()}

    def login_then_logout(_):
        status, body = post(f"{url}/login", credentials)
        if status != 200:
            return status, body
        return post(f"{url}/logout", headers={"Authorization": f"Bearer {body['access_token']}"})

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(login_then_logout, range(40)))
    assert results == [(200, {"message": "Successfully logged out"})] * 40
    assert "database is locked" not in gunicorn_server.log()
