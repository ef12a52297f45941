"""A full disk under a real gunicorn: the upload read from the client socket answers 507
``Insufficient storage`` as JSON, the previous file stays and nothing is left behind."""

import http.client
import json
import os
from urllib.parse import urlsplit

import pytest

from tests.small_disk import mounted_tmpfs, unmount

pytestmark = pytest.mark.e2e

DISK = 256 * 1024


@pytest.fixture
def small_disk(tmp_path):
    path = mounted_tmpfs(tmp_path / "small", "size=256k")
    yield path
    unmount(path)


@pytest.fixture
def gunicorn_env(small_disk):
    return {
        "DATAHUB_STORAGE_PATH": str(small_disk),
        "DATAHUB_MAX_CONTENT_LENGTH": str(4 * 1024 * 1024),
    }


def call(server, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection(urlsplit(server.url).netloc, timeout=30)
    try:
        connection.request(method, "/api/v1" + path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        connection.close()


def test_a_full_disk_is_507_through_gunicorn(gunicorn_server, small_disk):
    status, _, body = call(
        gunicorn_server,
        "POST",
        "/auth/login",
        json.dumps({"email": "admin@example.com", "password": gunicorn_server.admin_password()}),
        {"Content-Type": "application/json"},
    )
    assert status == 200, body
    auth = {"Authorization": "Bearer " + json.loads(body)["access_token"]}
    status, _, body = call(
        gunicorn_server,
        "POST",
        "/datasets/",
        '{"name": "big"}',
        {**auth, "Content-Type": "application/json"},
    )
    assert status == 201, body
    file_path = f"/datasets/{json.loads(body)['id']}/file"
    status, _, _ = call(
        gunicorn_server, "PUT", file_path, b"old", {**auth, "Content-Type": "text/plain"}
    )
    assert status == 200
    files_before = sorted(os.listdir(small_disk))

    status, content_type, body = call(
        gunicorn_server,
        "PUT",
        file_path,
        os.urandom(2 * DISK),
        {**auth, "Content-Type": "application/octet-stream"},
    )
    assert (status, content_type) == (507, "application/json")
    assert json.loads(body) == {"detail": "Insufficient storage"}
    assert call(gunicorn_server, "GET", file_path, headers=auth)[::2] == (200, b"old")
    assert sorted(os.listdir(small_disk)) == files_before
    log = gunicorn_server.log()
    assert "no space left for an upload" in log
    assert "Traceback" not in log and "unhandled error" not in log
