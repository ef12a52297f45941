"""Uploads through a real gunicorn and the real curl: chunked bodies without
Content-Length, the exact limit, and a client that goes away mid-upload."""
import hashlib
import json
import shutil
import socket
import subprocess
import time
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.e2e

LIMIT = 256 * 1024


@pytest.fixture
def gunicorn_env():
    return {"DATAHUB_MAX_CONTENT_LENGTH": str(LIMIT)}


def curl(*args, stdin=None):
    assert shutil.which("curl"), "the real curl binary is needed for this test"
    result = subprocess.run(["curl", "-sS", "--max-time", "30", "-w", "\n%{http_code}", *args],
                            input=stdin, capture_output=True, check=True)
    body, _, status = result.stdout.rpartition(b"\n")
    return int(status), body


@pytest.fixture
def dataset(gunicorn_server):
    base = gunicorn_server.url + "/api/v1"
    status, body = curl("-H", "Content-Type: application/json", "-d", json.dumps(
        {"email": "admin@example.com", "password": gunicorn_server.admin_password()}),
        f"{base}/auth/login")
    assert status == 200, body
    auth = f"Authorization: Bearer {json.loads(body)['access_token']}"
    status, body = curl("-H", auth, "-H", "Content-Type: application/json",
                        "-d", '{"name": "uploads"}', f"{base}/datasets/")
    assert status == 201, body
    return f"{base}/datasets/{json.loads(body)['id']}", auth


def storage_files(server):
    folder = server.instance_path / "storage"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@pytest.mark.parametrize("mode", ["raw", "multipart"])
def test_chunked_upload_of_exactly_the_limit_and_one_byte_more(gunicorn_server, dataset,
                                                               tmp_path, mode):
    url, auth = dataset
    content = bytes(range(256)) * (LIMIT // 256)
    if mode == "raw":
        send = ["-X", "PUT", "-T", "-", "-H", "Content-Type: application/octet-stream"]
    else:
        (tmp_path / "data.bin").write_bytes(content)
        (tmp_path / "over.bin").write_bytes(content + b"!")
        send = ["-X", "PUT", "-H", "Transfer-Encoding: chunked"]

    def put(data, name):
        if mode == "raw":
            return curl(*send, "-H", auth, f"{url}/file", stdin=data)
        return curl(*send, "-H", auth, "-F", f"file=@{tmp_path / name}", f"{url}/file")

    status, body = put(content, "data.bin")
    assert status == 200, body
    assert json.loads(body)["file"]["sha256"] == hashlib.sha256(content).hexdigest()
    stored = storage_files(gunicorn_server)
    assert len(stored) == 1

    status, body = put(content + b"!", "over.bin")
    assert (status, json.loads(body)) == (400, {"detail": "File too large"})
    assert storage_files(gunicorn_server) == stored
    status, downloaded = curl("-H", auth, f"{url}/file")
    assert (status, downloaded) == (200, content)


def test_client_leaving_mid_upload_leaves_nothing_behind(gunicorn_server, dataset):
    url, auth = dataset
    parts = urlsplit(url)
    head = (f"PUT {parts.path}/file HTTP/1.1\r\nHost: {parts.netloc}\r\n{auth}\r\n"
            f"Content-Type: application/octet-stream\r\nContent-Length: {LIMIT}\r\n\r\n")
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
