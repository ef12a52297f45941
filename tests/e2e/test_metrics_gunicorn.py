"""/metrics and LOG_FORMAT=json under a real gunicorn with two workers: the counts of
every worker process in one scrape (prometheus_client's multiprocess mode, set up by
gunicorn.conf.py), kept when a worker is killed and replaced; and every line gunicorn's
output has is a JSON object."""

import json
import os
import re
import signal
import time
import urllib.error
import urllib.request

import pytest

from tests import processes
from tests.e2e.conftest import start_gunicorn, stop_gunicorn
from tests.metrics_samples import samples, value

pytestmark = pytest.mark.e2e


def get(url, headers=None, data=None):
    request = urllib.request.Request(url, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:  # a new connection
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def healthz_count(server):
    status, body = get(server.url + "/metrics")
    assert status == 200, body
    return value(
        samples(body.decode()),
        "datahub_http_requests_total",
        method="GET",
        route="/healthz",
        status="200",
    )


def worker_pids(server):
    """gunicorn's web workers."""
    return set(processes.gunicorn_workers(server.process.pid))


def open_files(pid):
    folder = f"/proc/{pid}/fd"
    return [os.readlink(os.path.join(folder, fd)) for fd in os.listdir(folder)]


def pids_that_answered(server, marker):
    return set(re.findall(rf"request_id={marker}\S* pid=<(\d+)>", server.log()))


def test_counts_add_up_across_workers_and_outlive_a_killed_worker(gunicorn_server):
    server = gunicorn_server
    assert healthz_count(server) == 0
    sent = 0
    # New connections land on either worker; go on until both have answered some.
    while sent < 40 or len(pids_that_answered(server, "spread")) < 2:
        assert sent < 400, "one worker answered every request"
        assert get(server.url + "/healthz", {"X-Request-ID": f"spread-{sent}"})[0] == 200
        sent += 1
        if sent >= 40:
            time.sleep(0.05)  # the access lines are written after the answers
    assert healthz_count(server) == sent  # one scrape, answered by one worker: all counts

    before = worker_pids(server)
    (folder,) = {
        os.path.dirname(path) for pid in before for path in open_files(pid) if path.endswith(".db")
    }  # the workers' counts, in one folder
    assert os.path.basename(folder).startswith("datahub-metrics-")
    assert len(before) == 2
    victim = min(before)
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while not (len(worker_pids(server)) == 2 and victim not in worker_pids(server)):
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.1)
    for _ in range(5):  # the new worker is ready when the old one's socket is served
        assert get(server.url + "/healthz")[0] == 200
    assert healthz_count(server) == sent + 5

    # A worker that was just started may miss the SIGQUIT (gunicorn installs its handlers
    # after the fork): the master then kills it after graceful_timeout (30 s), and must
    # still be let finish, or its cleanup is never run.
    started = time.monotonic()
    stop_gunicorn(server, timeout=60)
    took = time.monotonic() - started
    # The master removes its temporary folder at exit.
    assert not os.path.exists(folder), (took, server.log()[-4000:])


def test_gunicorn_output_is_json_lines(app, database_url, tmp_path):
    server = start_gunicorn(database_url, tmp_path, 2, {"DATAHUB_LOG_FORMAT": "json"})
    try:
        assert get(server.url + "/healthz", {"X-Request-ID": "trace-e2e-json"})[0] == 200
        credentials = json.dumps({"email": "admin@example.com", "password": "wrong"}).encode()
        status, _ = get(
            server.url + "/api/v1/auth/login",
            data=credentials,
            headers={"Content-Type": "application/json", "X-Request-ID": "trace-e2e-login"},
        )
        assert status == 401
        assert get(server.url + "/no/such/path")[0] == 404
        assert get(server.url + "/metrics")[0] == 200
        time.sleep(0.3)  # the access lines are written after the answers
    finally:
        stop_gunicorn(server, quick=False)  # the graceful shutdown's lines too
    text = server.log()
    lines = [line for line in text.splitlines() if line.strip()]
    not_json = [line for line in lines if not line.startswith("{")]
    assert not_json == [], text  # the whole output: where such a line came from
    for line in lines:
        entry = json.loads(line)
        assert {"time", "level", "logger", "message"} <= set(entry), line
    entries = [json.loads(line) for line in lines]
    loggers = {entry["logger"] for entry in entries}
    assert {"gunicorn.error", "gunicorn.access", "datahub.audit", "datahub.bootstrap"} <= loggers
    (access,) = [
        e
        for e in entries
        if e["logger"] == "gunicorn.access" and e.get("request_id") == "trace-e2e-json"
    ]
    assert (access["method"], access["path"], access["status"]) == ("GET", "/healthz", 200)
    assert isinstance(access["duration"], float) and access["duration"] < 5
    (audit,) = [e for e in entries if e.get("event") == "login_failed"]
    assert (audit["message"], audit["request_id"]) == ("login_failed", "trace-e2e-login")
    assert any("Booting worker" in e["message"] for e in entries)
