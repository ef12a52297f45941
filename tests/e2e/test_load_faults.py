"""Load and faults against a real gunicorn on loopback (issue 6, "Load and faults").

1. Mixed traffic at saturation (login, me, refresh, list, create, upload) from THREADS
   client threads for LOAD_SECONDS: every answer is the expected one (no 5xx), JSON where
   JSON is expected, no "database is locked"; afterwards every created dataset is there
   and every uploaded file has the checksum that was sent.
2. ``kill -9`` of the (only) worker while it streams a large upload: a new worker takes
   over, the dataset still has its previous file, and nothing partial is left in storage.
3. ``kill -9`` of workers in the middle of a burst of creates and uploads: every write that
   got a 2xx is there and intact, a write that got no answer happened completely or not
   at all, and rows and stored files match one to one.

LOAD_SECONDS defaults to 60 (the issue's figure) on SQLite and 20 on PostgreSQL (see
below); CI runs the module on both. Set DATAHUB_LOAD_SECONDS to run the traffic longer or
shorter. The machines are shared and noisy, so nothing here asserts speed.
"""

import os
import random
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from tests.e2e.load_helpers import (
    CONNECTION_ERRORS,
    NO_PROBLEMS,
    ApiClient,
    audit_storage,
    kill_worker,
    open_storage_files,
    sha256,
    storage_names,
    wait_for_workers,
    wait_until,
    worker_pids,
)

# Bursts over several gunicorn workers can take most of PostgreSQL's 100 connections: the
# modules that do run one at a time, on one pytest-xdist worker (python -m tests).
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("many_connections")]

# 60 s (the figure) on SQLite, whose writers take turns at one lock: the hazard
# this load is for. PostgreSQL has no such lock; 20 s there keeps CI's second pass short.
ON_POSTGRESQL = os.environ.get("DATAHUB_TEST_DATABASE_URL", "").startswith("postgresql")
LOAD_SECONDS = float(os.environ.get("DATAHUB_LOAD_SECONDS", "20" if ON_POSTGRESQL else "60"))
THREADS = 16
# Operation → (weight in the mix, the status that is the right answer).
MIX = {
    "me": (30, 200),
    "list": (20, 200),
    "create": (15, 201),
    "upload": (15, 200),
    "refresh": (10, 200),
    "login": (10, 200),
}


@pytest.fixture
def gunicorn_workers():
    return 4


@pytest.fixture
def gunicorn_env():
    """A load test would (rightly) trip the login and refresh rate limits."""
    return {"DATAHUB_RATELIMIT_ENABLED": "false"}


def admin(server):
    client = ApiClient(server.url + "/api/v1", "admin@example.com", server.admin_password())
    assert client.login().status == 200
    return client


def assert_server_log_clean(server):
    log = server.log()
    assert "database is locked" not in log
    assert "Traceback" not in log, log[-5000:]


# -- 1. mixed traffic ------------------------------------------------------------------


def mixed_traffic(server, index, deadline):
    """One client thread; returns its client and a list of (operation, reply or error)."""
    rng = random.Random(index)
    client = ApiClient(server.url + "/api/v1", "admin@example.com", server.admin_password())
    replies = [("login", client.login())]
    operations, weights = list(MIX), [weight for weight, _ in MIX.values()]
    while time.monotonic() < deadline:
        operation = rng.choices(operations, weights)[0]
        if operation == "upload" and not client.created:
            operation = "create"
        try:
            if operation == "create":
                reply = client.create(f"load {index}-{len(replies)}")
            elif operation == "upload":
                content = rng.randbytes(rng.randint(1, 16 * 1024))  # an empty file is a 400
                reply = client.upload(rng.choice(list(client.created)), content)
            else:
                reply = getattr(client, operation)()
        except CONNECTION_ERRORS as error:
            reply = error
        replies.append((operation, reply))
    return client, replies


def test_mixed_traffic_at_saturation(gunicorn_server, app):
    deadline = time.monotonic() + LOAD_SECONDS
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        results = list(
            pool.map(lambda i: mixed_traffic(gunicorn_server, i, deadline), range(THREADS))
        )

    counts, wrong = Counter(), []
    for _, replies in results:
        for operation, reply in replies:
            status = getattr(reply, "status", type(reply).__name__)
            counts[operation, status] += 1
            if status != MIX[operation][1] or not reply.is_json:
                wrong.append((operation, status, getattr(reply, "body", reply)))
    total = sum(counts.values())
    print(
        f"\nmixed traffic: {total} requests in {LOAD_SECONDS:.0f} s by {THREADS} threads; "
        + ", ".join(f"{op} {status}: {n}" for (op, status), n in sorted(counts.items()))
    )
    assert not [w for w in wrong if isinstance(w[1], int) and w[1] >= 500], wrong[:5]
    assert wrong == [], wrong[:5]
    assert counts["create", 201] and counts["upload", 200] and counts["refresh", 200]

    # Every write that was answered is there, and every file is the one that was sent.
    checker = admin(gunicorn_server)
    created = {i: name for client, _ in results for i, name in client.created.items()}
    files = {i: digest for client, _ in results for i, digest in client.files.items()}
    for dataset_id, name in created.items():
        reply = checker.get(dataset_id)
        assert (reply.status, reply.json()["name"]) == (200, name)
    for dataset_id, digest in files.items():
        reply = checker.download(dataset_id)
        assert (reply.status, sha256(reply.body)) == (200, digest), dataset_id
    print(f"verified: {len(created)} datasets created, {len(files)} files by checksum")
    assert audit_storage(app, gunicorn_server) == NO_PROBLEMS
    assert_server_log_clean(gunicorn_server)


# -- 2. kill -9 during an upload -------------------------------------------------------


@pytest.mark.parametrize("gunicorn_workers", [1])
def test_kill_during_an_upload_keeps_the_previous_file(gunicorn_server, app):
    client = admin(gunicorn_server)
    dataset_id = client.create("killed upload").json()["id"]
    initial = random.Random(1).randbytes(64 * 1024)
    assert client.upload(dataset_id, initial).status == 200
    [stored] = storage_names(gunicorn_server)
    [worker] = worker_pids(gunicorn_server.process.pid)

    # A 16 MiB upload of which 1 MiB arrives; the worker is streaming it into a temp file.
    path = f"/api/v1/datasets/{dataset_id}/file"
    head = (
        f"PUT {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {client.token}"
        f"\r\nContent-Type: application/octet-stream\r\nContent-Length: {16 << 20}\r\n\r\n"
    )
    address = urlsplit(gunicorn_server.url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        sock.sendall(head.encode() + b"x" * (1 << 20))
        folder = gunicorn_server.instance_path / "storage"
        assert wait_until(
            lambda: any(
                name != stored and (folder / name).stat().st_size >= 512 * 1024
                for name in storage_names(gunicorn_server)
            )
        ), storage_names(gunicorn_server)
        kill_worker(gunicorn_server, worker)
        with pytest.raises(CONNECTION_ERRORS):  # the upload gets no answer at all
            sock.sendall(b"x" * (1 << 20))
            if not sock.recv(1024):
                raise ConnectionResetError("closed without an answer")

    wait_for_workers(gunicorn_server, 1, gone=[worker])
    reply = client.get(dataset_id)
    assert reply.status == 200 and reply.json()["file"]["sha256"] == sha256(initial)
    reply = client.download(dataset_id)
    assert (reply.status, reply.body) == (200, initial)
    # The killed worker's temporary file is removed by its successor.
    assert wait_until(lambda: storage_names(gunicorn_server) == [stored]), storage_names(
        gunicorn_server
    )
    assert audit_storage(app, gunicorn_server) == NO_PROBLEMS
    assert "database is locked" not in gunicorn_server.log()


# -- 3. kill -9 during a write burst ---------------------------------------------------


def write_burst(server, index, stop, outcomes):
    """Create a dataset, upload a file to it, repeat until ``stop``. Each outcome is
    (operation, name or dataset id, sha256 sent, status, or None for no answer)."""
    rng = random.Random(100 + index)
    client = ApiClient(server.url + "/api/v1", "admin@example.com", server.admin_password())
    while client.token is None:
        try:
            client.login()
        except CONNECTION_ERRORS:
            pass
    number = 0
    while not stop.is_set():
        name = f"burst {index}-{number}"
        number += 1
        try:
            reply = client.create(name)
        except CONNECTION_ERRORS:
            outcomes.append(("create", name, None, None))
            continue
        outcomes.append(("create", name, None, reply.status))
        if reply.status != 201:
            continue
        dataset_id = reply.json()["id"]
        content = rng.randbytes(rng.randint(64 * 1024, 512 * 1024))
        try:
            status = client.upload(dataset_id, content, pause=0.005).status
        except CONNECTION_ERRORS:
            status = None
        outcomes.append(("upload", dataset_id, sha256(content), status))


def wait_for_worker_using(server, wanted, timeout=3):
    """A worker with a storage file open whose name is ``wanted``; any worker after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid, names in open_storage_files(server).items():
            if any(wanted(name) for name in names):
                return pid
        time.sleep(0.002)
    return random.choice(worker_pids(server.process.pid))


@pytest.mark.parametrize("gunicorn_workers", [3])
def test_kill_during_a_write_burst_loses_no_answered_write(gunicorn_server, app):
    stop, outcomes, killed = threading.Event(), [], []
    with ThreadPoolExecutor(max_workers=12) as pool:
        writers = [
            pool.submit(write_burst, gunicorn_server, index, stop, outcomes) for index in range(12)
        ]
        # First a worker streaming an upload into a temporary file, then one holding a
        # stored file whose row is not committed yet (or, failing that, any worker).
        for stage in (lambda name: name.startswith(".upload-"), lambda name: "." not in name):
            time.sleep(1.5)
            victim = wait_for_worker_using(gunicorn_server, stage)
            kill_worker(gunicorn_server, victim)
            killed.append(victim)
        time.sleep(1.5)
        stop.set()
        for writer in writers:
            writer.result()  # a writer that failed otherwise than by a lost connection
    wait_for_workers(gunicorn_server, 3, gone=killed)

    statuses = Counter((operation, status) for operation, _, _, status in outcomes)
    print(f"\nwrite burst with {len(killed)} workers killed: {dict(statuses)}")
    assert {status for _, status in statuses} <= {200, 201, None}, statuses
    assert statuses["upload", None] >= 1, statuses  # the first kill did hit an upload
    checker = admin(gunicorn_server)
    for operation, target, digest, status in outcomes:
        if operation == "create":
            found = checker.find(target)
            if status == 201:
                assert found is not None, target
            elif found is not None:  # created without an answer; no upload followed
                assert found["file"] is None, target
            continue
        reply = checker.get(target)
        assert reply.status == 200, target
        sent = reply.json()["file"] and reply.json()["file"]["sha256"] == digest
        if status == 200:
            assert sent, target
        if sent or status == 200:
            download = checker.download(target)
            assert (download.status, sha256(download.body)) == (200, digest), target
        else:  # no answer and no file: the upload did not happen at all
            assert reply.json()["file"] is None, target
    # Whatever a killed worker left half done is cleaned up by its successor.
    assert wait_until(lambda: audit_storage(app, gunicorn_server) == NO_PROBLEMS), audit_storage(
        app, gunicorn_server
    )
    assert "database is locked" not in gunicorn_server.log()
