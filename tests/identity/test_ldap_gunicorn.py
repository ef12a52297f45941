"""Directory logins under a real gunicorn with two workers: slapd stopped and started
again costs no login a 503 once it answers; ``DATAHUB_LOG_FORMAT`` given as JSON text
(``"json"``) makes gunicorn's access lines JSON, as it does the app's."""

import json
import time
import urllib.error
import urllib.request

import pytest

from tests.e2e.conftest import start_gunicorn, stop_gunicorn
from tests.identity.conftest import directory_password, ldap_settings

pytestmark = pytest.mark.e2e


def post_login(server, email):
    body = json.dumps({"email": email, "password": directory_password(email)}).encode()
    request = urllib.request.Request(
        server.url + "/api/v1/auth/login",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:  # a new connection
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def ldap_env(slapd):
    """The LDAP settings as environment variables (JSON text where not a string)."""
    return {
        f"DATAHUB_{key}": value if isinstance(value, str) else json.dumps(value)
        for key, value in ldap_settings(slapd.url).items()
    }


def test_a_stopped_and_restarted_directory_under_gunicorn(app, database_url, tmp_path, slapd):
    env = {**ldap_env(slapd), "DATAHUB_LOG_FORMAT": '"json"'}
    server = start_gunicorn(database_url, tmp_path, 2, env)
    try:
        assert [post_login(server, "alice@example.org") for _ in range(4)] == [200] * 4
        slapd.stop()
        try:
            # New connections, so both workers try the directory while it is down.
            assert [post_login(server, "alice@example.org") for _ in range(6)] == [503] * 6
        finally:
            slapd.resume()
        with slapd.admin() as connection:
            assert connection.bound
        statuses = [post_login(server, "alice@example.org") for _ in range(6)]
        time.sleep(0.3)  # the access lines are written after the answers
    finally:
        stop_gunicorn(server)
    assert statuses == [200] * 6, server.log()[-4000:]
    access = [
        line
        for line in server.log().splitlines()
        if "gunicorn.access" in line or "/api/v1/auth/login" in line
    ]
    logins = [json.loads(line) for line in access if "/api/v1/auth/login" in line]
    assert len(logins) == 16, access  # every access line is JSON (json.loads)
    # Two workers write their lines each after its own answer: counted, not in order.
    assert sorted(entry["status"] for entry in logins) == [200] * 10 + [503] * 6
