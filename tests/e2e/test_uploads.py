"""Uploads through a real gunicorn and the real curl: chunked bodies without
Content-Length, the exact limit, and a client that goes away mid-upload; on the local
folder and on S3 (a moto server), where a worker killed mid-upload is swept."""

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from urllib.parse import urlsplit

import pytest

from tests import processes

pytestmark = pytest.mark.e2e

LIMIT = 256 * 1024


PART = 5 * 1024 * 1024


@pytest.fixture(params=["local", "s3"])
def backend(request):
    return request.param


@pytest.fixture
def storage_env_extra():
    """More DATAHUB_* settings (without the prefix) for S3; parametrize to change."""
    return {}


@pytest.fixture
def storage_env(backend, storage_env_extra, request):
    """The storage settings of ``backend``: none (the instance folder), or a prefix of the
    moto bucket of the test's own, with the smallest part size."""
    if backend == "local":
        return {}
    server = request.getfixturevalue("s3_server")
    return server.env(request.getfixturevalue("s3_prefix"), S3_PART_SIZE=PART, **storage_env_extra)


@pytest.fixture
def gunicorn_env(storage_env):
    return {"DATAHUB_MAX_CONTENT_LENGTH": str(LIMIT), **storage_env}


@pytest.fixture
def stored(backend, gunicorn_server, request):
    """``stored()``: the storage's names (temporary files and incomplete uploads too)."""
    if backend == "s3":
        server, prefix = request.getfixturevalue("s3_server"), request.getfixturevalue("s3_prefix")
        return lambda: server.listing(prefix)
    return lambda: storage_files(gunicorn_server)


def curl(*args, stdin=None):
    assert shutil.which("curl"), "the real curl binary is needed for this test"
    result = subprocess.run(
        ["curl", "-sS", "--max-time", "30", "-w", "\n%{http_code}", *args],
        input=stdin,
        capture_output=True,
        check=True,
    )
    body, _, status = result.stdout.rpartition(b"\n")
    return int(status), body


@pytest.fixture
def dataset(gunicorn_server):
    base = gunicorn_server.url + "/api/v1"
    status, body = curl(
        "-H",
        "Content-Type: application/json",
        "-d",
        json.dumps({"email": "admin@example.com", "password": gunicorn_server.admin_password()}),
        f"{base}/auth/login",
    )
    assert status == 200, body
    auth = f"Authorization: Bearer {json.loads(body)['access_token']}"
    status, body = curl(
        "-H",
        auth,
        "-H",
        "Content-Type: application/json",
        "-d",
        '{"name": "uploads"}',
        f"{base}/datasets/",
    )
    assert status == 201, body
    return f"{base}/datasets/{json.loads(body)['id']}", auth


def storage_files(server):
    folder = server.instance_path / "storage"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@pytest.mark.parametrize("mode", ["raw", "multipart", "raw with length", "multipart with length"])
def test_upload_of_exactly_the_limit_and_one_byte_more(
    gunicorn_server, dataset, tmp_path, mode, stored
):
    """Chunked bodies (read through wsgi.input) and bodies with a Content-Length (read from
    the socket itself)."""
    url, auth = dataset
    content = bytes(range(256)) * (LIMIT // 256)
    (tmp_path / "data.bin").write_bytes(content)
    (tmp_path / "over.bin").write_bytes(content + b"!")
    if mode == "raw":
        send = ["-X", "PUT", "-T", "-", "-H", "Content-Type: application/octet-stream"]
    elif mode == "multipart":
        send = ["-X", "PUT", "-H", "Transfer-Encoding: chunked"]
    else:
        send = ["-X", "PUT"]

    def put(data, name):
        if mode == "raw":
            return curl(*send, "-H", auth, f"{url}/file", stdin=data)
        if mode == "raw with length":
            return curl(
                *send,
                "-H",
                auth,
                "-H",
                "Content-Type: application/octet-stream",
                "--data-binary",
                f"@{tmp_path / name}",
                f"{url}/file",
            )
        return curl(*send, "-H", auth, "-F", f"file=@{tmp_path / name}", f"{url}/file")

    status, body = put(content, "data.bin")
    assert status == 200, body
    assert json.loads(body)["file"]["sha256"] == hashlib.sha256(content).hexdigest()
    files = stored()
    assert len(files) == 1

    status, body = put(content + b"!", "over.bin")
    assert (status, json.loads(body)) == (400, {"detail": "File too large"})
    assert stored() == files
    status, downloaded = curl("-H", auth, f"{url}/file")
    assert (status, downloaded) == (200, content)


@pytest.mark.parametrize("backend", ["local"])
def test_client_leaving_mid_upload_leaves_nothing_behind(gunicorn_server, dataset):
    url, auth = dataset
    parts = urlsplit(url)
    head = (
        f"PUT {parts.path}/file HTTP/1.1\r\nHost: {parts.netloc}\r\n{auth}\r\n"
        f"Content-Type: application/octet-stream\r\nContent-Length: {LIMIT}\r\n\r\n"
    )
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(head.encode() + b"x" * (LIMIT // 2))
        deadline = time.monotonic() + 10
        while not storage_files(gunicorn_server) and time.monotonic() < deadline:
            time.sleep(0.05)
        # The worker is streaming into a temporary file when the client goes away.
        [temporary] = storage_files(gunicorn_server)
        assert temporary.startswith(".upload-")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and storage_files(gunicorn_server):
        time.sleep(0.1)
    assert storage_files(gunicorn_server) == []  # no temporary file, no stored file
    status, body = curl("-H", auth, url)
    assert status == 200 and json.loads(body)["file"] is None
    assert "Traceback" not in gunicorn_server.log()


def raw_request(url, auth, body, *, content_length=None, extra=b"", pieces=1, shut=False):
    """PUT ``body`` to the file of ``url`` over a bare socket: the headers with the first
    bytes of the body in one packet (gunicorn reads them ahead), the rest in ``pieces``
    sends, then ``extra`` (a pipelined request); with ``pieces=0`` all of it in one send.
    Returns everything the server sent."""
    parts = urlsplit(url)
    length = len(body) if content_length is None else content_length
    head = (
        f"PUT {parts.path}/file?filename=raw.bin HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        f"{auth}\r\nContent-Type: application/octet-stream\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        if not pieces:  # all at once: gunicorn may read it all with the headers
            sock.sendall(head + body + extra)
        else:
            sock.sendall(head + body[:1000])
            rest, step = body[1000:], max(1, (len(body) - 1000) // pieces)
            for start in range(0, len(rest), step):
                time.sleep(0.01)
                sock.sendall(rest[start : start + step])
            sock.sendall(extra)
        if shut:
            sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def responses(received):
    """(status, body) of each HTTP/1.1 response in ``received`` (Content-Length bodies)."""
    found = []
    while received:
        head, _, rest = received.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines[1:])
        length = int(headers["Content-Length"])
        found.append((int(lines[0].split()[1]), rest[:length]))
        received = rest[length:]
    return found


@pytest.mark.parametrize("gunicorn_env", [{"DATAHUB_MAX_CONTENT_LENGTH": str(8 * 2**20)}])
def test_a_body_read_from_the_socket_in_pieces_arrives_whole(gunicorn_server, dataset):
    """Under gunicorn the body goes from the socket straight into the upload's buffer
    (datahub.datasets.uploads.SocketBody): several buffers' worth, sent in uneven pieces,
    with part of it read ahead by gunicorn together with the headers."""
    url, auth = dataset
    content = hashlib.sha256(b"seed").digest() * (3 * 2**20 // 32) + b"tail"
    [(status, body)] = responses(raw_request(url, auth, content, pieces=7))
    assert status == 200, body
    assert json.loads(body)["file"]["sha256"] == hashlib.sha256(content).hexdigest()
    assert json.loads(body)["file"]["size_bytes"] == len(content)
    status, downloaded = curl("-H", auth, f"{url}/file")
    assert (status, downloaded) == (200, content)


def test_a_body_shorter_than_its_content_length_is_refused(gunicorn_server, dataset, stored):
    url, auth = dataset
    received = raw_request(url, auth, b"x" * 5000, content_length=9000, shut=True)
    [(status, body)] = responses(received)
    assert (status, json.loads(body)) == (
        400,
        {"detail": "Request body ended before its Content-Length"},
    )
    assert stored() == []


@pytest.mark.parametrize(
    "gunicorn_env",
    [
        {
            "DATAHUB_MAX_CONTENT_LENGTH": str(LIMIT),
            "GUNICORN_CMD_ARGS": "--worker-class gthread --threads 2 --keep-alive 5",
        }
    ],
)
def test_a_request_pipelined_behind_an_upload_is_served(gunicorn_server, dataset):
    """With keep-alive, bytes after the body belong to the next request: what gunicorn read
    ahead beyond the body is handed back to it."""
    url, auth = dataset
    content = b"0123456789" * 300
    parts = urlsplit(url)
    after = (f"GET /healthz HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n").encode()
    found = responses(raw_request(url, auth, content, extra=after, pieces=0))
    assert [status for status, _ in found] == [200, 200]
    assert json.loads(found[0][1])["file"]["sha256"] == hashlib.sha256(content).hexdigest()
    assert json.loads(found[1][1]) == {"status": "ok"}


@pytest.mark.parametrize("backend", ["local"])
def test_a_connection_reset_mid_upload_is_a_client_error_not_a_crash(gunicorn_server, dataset):
    """A client that resets the connection (RST, not FIN) mid-body: the socket read fails
    with an OSError, which must end as the 400 of a truncated body, not a logged 500."""
    import struct

    url, auth = dataset
    parts = urlsplit(url)
    head = (
        f"PUT {parts.path}/file HTTP/1.1\r\nHost: {parts.netloc}\r\n{auth}\r\n"
        f"Content-Type: application/octet-stream\r\nContent-Length: {LIMIT}\r\n\r\n"
    )
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    sock.sendall(head.encode() + b"x" * (LIMIT // 2))
    deadline = time.monotonic() + 10
    while not storage_files(gunicorn_server) and time.monotonic() < deadline:
        time.sleep(0.05)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()  # with a zero linger time: RST
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and storage_files(gunicorn_server):
        time.sleep(0.1)
    assert storage_files(gunicorn_server) == []
    time.sleep(0.5)
    log = gunicorn_server.log()
    assert "Traceback" not in log and "unhandled error" not in log, log[-3000:]


# --- S3 ----------------------------------------------------------------------------------

SWEEP_AFTER = 2


def worker_pids(server):
    """The gunicorn master's web workers."""
    return processes.gunicorn_workers(server.process.pid)


def wait_until(condition, server, seconds=20):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out; the log:\n" + server.log()[-4000:]
        time.sleep(0.1)


@pytest.mark.parametrize("backend", ["s3"])
@pytest.mark.parametrize("gunicorn_workers", [1])
@pytest.mark.parametrize(
    "storage_env_extra",
    [{"S3_SWEEP_AFTER_SECONDS": str(SWEEP_AFTER), "MAX_CONTENT_LENGTH": str(8 * PART)}],
)
def test_a_worker_killed_mid_upload_leaves_an_upload_the_next_worker_sweeps(
    gunicorn_server, dataset, stored, s3_server, s3_prefix
):
    """kill -9 of the worker while it sends the parts of a multipart upload: the incomplete
    upload stays on S3, and the worker gunicorn starts in its place aborts it. (A grace
    period of two seconds, not 0: the first worker's own sweep at start, in a thread,
    could otherwise abort the upload while it runs.)"""
    url, auth = dataset
    parts = urlsplit(url)
    size = 4 * PART
    head = (
        f"PUT {parts.path}/file HTTP/1.1\r\nHost: {parts.netloc}\r\n{auth}\r\n"
        f"Content-Type: application/octet-stream\r\nContent-Length: {size}\r\n\r\n"
    )
    [worker] = worker_pids(gunicorn_server)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(head.encode() + b"x" * (2 * PART + 1000))  # two parts, not the end
        wait_until(lambda: s3_server.uploads(s3_prefix), gunicorn_server)
        time.sleep(SWEEP_AFTER + 1)  # the upload's newest part is older than the grace now
        os.kill(worker, signal.SIGKILL)
        assert s3_server.uploads(s3_prefix), gunicorn_server.log()[-4000:]  # what it left
    wait_until(lambda: worker_pids(gunicorn_server) not in ([], [worker]), gunicorn_server)
    wait_until(lambda: stored() == [], gunicorn_server)  # the new worker's sweep aborted it
    status, body = curl("-H", auth, url)
    assert status == 200 and json.loads(body)["file"] is None
    log = gunicorn_server.log()
    assert "removed 1 file(s) left by interrupted uploads" in log, log[-3000:]
