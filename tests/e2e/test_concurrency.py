"""Concurrent requests against a real gunicorn with four workers (separate processes,
each with its own database connections): the database, not the process, keeps names
unique and files consistent."""
import hashlib
import json
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture
def gunicorn_workers():
    return 4


def request(method, url, body=None, headers=None, data=None):
    headers = dict(headers or {})
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture
def api(gunicorn_server):
    status, body = request("POST", gunicorn_server.url + "/api/v1/auth/login", {
        "email": "admin@example.com", "password": gunicorn_server.admin_password()})
    assert status == 200, body
    token = json.loads(body)["access_token"]
    return gunicorn_server.url + "/api/v1", {"Authorization": f"Bearer {token}"}


def all_at_once(count, call):
    """Run ``call(i)`` in ``count`` threads released together."""
    barrier = threading.Barrier(count)

    def run(i):
        barrier.wait(timeout=30)
        return call(i)

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


def test_forty_concurrent_creates_all_succeed(api):
    base, headers = api
    results = all_at_once(40, lambda i: request("POST", f"{base}/datasets/",
                                                {"name": f"parallel {i}"}, headers))
    assert [status for status, _ in results] == [201] * 40, results
    ids = {json.loads(body)["id"] for _, body in results}
    assert len(ids) == 40
    status, body = request("GET", f"{base}/datasets/?limit=100", headers=headers)
    assert json.loads(body)["total"] == 40


def test_sixteen_concurrent_creates_of_one_name_give_one_201(api):
    base, headers = api
    results = all_at_once(16, lambda i: request("POST", f"{base}/datasets/",
                                                {"name": "Contested" if i % 2 else "CONTESTED"},
                                                headers))
    statuses = sorted(status for status, _ in results)
    assert statuses == [201] + [409] * 15, results
    assert all(json.loads(body) == {"detail": "Name already exists"}
               for status, body in results if status == 409)
    status, body = request("GET", f"{base}/datasets/?q=contested", headers=headers)
    assert json.loads(body)["total"] == 1


def test_sixteen_concurrent_collection_creates_of_one_name(api):
    base, headers = api
    results = all_at_once(16, lambda i: request("POST", f"{base}/collections/",
                                                {"name": "Group"}, headers))
    assert sorted(status for status, _ in results) == [201] + [409] * 15, results


def test_concurrent_uploads_leave_one_consistent_file(api, gunicorn_server):
    base, headers = api
    status, body = request("POST", f"{base}/datasets/", {"name": "target"}, headers)
    dataset_id = json.loads(body)["id"]
    payloads = [bytes([65 + i]) * (200_000 + i) for i in range(8)]
    results = all_at_once(8, lambda i: request(
        "PUT", f"{base}/datasets/{dataset_id}/file", data=payloads[i],
        headers={**headers, "Content-Type": "application/octet-stream"}))
    assert [status for status, _ in results] == [200] * 8, results
    status, body = request("GET", f"{base}/datasets/{dataset_id}", headers=headers)
    file = json.loads(body)["file"]
    status, content = request("GET", f"{base}/datasets/{dataset_id}/file", headers=headers)
    assert content in payloads
    assert len(content) == file["size_bytes"]
    storage = gunicorn_server.instance_path / "storage"
    assert hashlib.sha256(content).hexdigest() == file["sha256"]
    assert len(list(storage.iterdir())) == 1  # every replaced file was removed, no temp left
