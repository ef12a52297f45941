"""The SQL console against a real gunicorn, directly and behind the production nginx: a
client that goes away stops its query's process at once, and its turn is free again."""

import json
import os
import re
import socket
import ssl
import time
import urllib.parse

import pytest

from tests.e2e.nginx_site import run_for_test

pytestmark = pytest.mark.e2e

SLOW = "SELECT count(*) FROM range(100000) a, range(100000) b WHERE a.range + b.range < 0"


@pytest.fixture
def gunicorn_env():
    return {"DATAHUB_PROXY_FIX_X_FOR": "1", "DATAHUB_PROXY_FIX_X_PROTO": "1"}


def connect(url):
    parts = urllib.parse.urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    if parts.scheme == "https":
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        sock = context.wrap_socket(sock, server_hostname=parts.hostname)
    return sock


def request(url, method, path, body=None, token=None):
    """``(status, JSON body)`` of one request on a connection of its own."""
    sock = connect(url)
    try:
        sock.sendall(raw_request(url, method, path, body, token))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    finally:
        sock.close()
    head, _, payload = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(payload)


def raw_request(url, method, path, body, token):
    payload = json.dumps(body).encode() if body is not None else b""
    host = urllib.parse.urlsplit(url).netloc
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: close"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


def job_processes():
    """pid → CPU seconds of every isolated job process on this machine."""
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if b"datahub.app.jobs" not in handle.read():
                    continue
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[int(pid)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


def busy_jobs(seconds=1.0):
    """The job processes that used CPU over ``seconds``."""
    before = job_processes()
    time.sleep(seconds)
    after = job_processes()
    return [pid for pid, cpu in after.items() if cpu - before.get(pid, cpu) > 0.2 * seconds]


@pytest.fixture
def through(request, gunicorn_server, tmp_path):
    if request.param == "gunicorn":
        yield gunicorn_server.url
        return
    nginx = run_for_test(tmp_path, gunicorn_server, 1024 * 1024)
    yield nginx.url
    nginx.stop()


@pytest.mark.parametrize("through", ["gunicorn", "nginx"], indirect=True)
def test_a_client_that_goes_away_stops_its_query(gunicorn_server, through):
    password = gunicorn_server.admin_password()
    status, login = request(
        through, "POST", "/api/v1/auth/login", {"email": "admin@example.com", "password": password}
    )
    assert status == 200, login
    token = login["access_token"]

    sock = connect(through)
    sock.sendall(raw_request(through, "POST", "/api/v1/query", {"sql": SLOW}, token))
    deadline = time.monotonic() + 10
    while not busy_jobs(0.5):  # the query is running
        assert time.monotonic() < deadline, gunicorn_server.log()[-3000:]
    sock.close()

    deadline = time.monotonic() + 5
    while busy_jobs(0.5):
        assert time.monotonic() < deadline, "the query's process still runs"
    # Answered (to no one) when the client went, not at QUERY_TIMEOUT_SECONDS (30).
    answered = re.findall(r'"POST /api/v1/query HTTP/1.1" (\d+) \d+ (\d+)ms', gunicorn_server.log())
    assert len(answered) == 1 and answered[0][0] == "422", answered
    assert int(answered[0][1]) < 10000
    # The user's turn is free again: the next query answers at once.
    status, answer = request(through, "POST", "/api/v1/query", {"sql": "SELECT 1 AS one"}, token)
    assert (status, answer["rows"]) == (200, [[1]])
