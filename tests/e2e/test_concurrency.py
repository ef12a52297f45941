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

# Bursts over several gunicorn workers can take most of PostgreSQL's 100 connections: the
# modules that do run one at a time, on one pytest-xdist worker (python -m tests).
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("many_connections")]


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
    status, body = request(
        "POST",
        gunicorn_server.url + "/api/v1/auth/login",
        {"email": "admin@example.com", "password": gunicorn_server.admin_password()},
    )
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
    results = all_at_once(
        40, lambda i: request("POST", f"{base}/datasets/", {"name": f"parallel {i}"}, headers)
    )
    assert [status for status, _ in results] == [201] * 40, results
    ids = {json.loads(body)["id"] for _, body in results}
    assert len(ids) == 40
    status, body = request("GET", f"{base}/datasets/?limit=100", headers=headers)
    assert json.loads(body)["total"] == 40


def test_sixteen_concurrent_creates_of_one_name_give_one_201(api):
    base, headers = api
    results = all_at_once(
        16,
        lambda i: request(
            "POST", f"{base}/datasets/", {"name": "Contested" if i % 2 else "CONTESTED"}, headers
        ),
    )
    statuses = sorted(status for status, _ in results)
    assert statuses == [201] + [409] * 15, results
    assert all(
        json.loads(body) == {"detail": "Name already exists"}
        for status, body in results
        if status == 409
    )
    status, body = request("GET", f"{base}/datasets/?q=contested", headers=headers)
    assert json.loads(body)["total"] == 1


def test_sixteen_concurrent_collection_creates_of_one_name(api):
    base, headers = api
    results = all_at_once(
        16, lambda i: request("POST", f"{base}/collections/", {"name": "Group"}, headers)
    )
    assert sorted(status for status, _ in results) == [201] + [409] * 15, results


def test_concurrent_uploads_make_eight_consistent_versions(api, gunicorn_server):
    base, headers = api
    status, body = request("POST", f"{base}/datasets/", {"name": "target"}, headers)
    dataset_id = json.loads(body)["id"]
    payloads = [bytes([65 + i]) * (200_000 + i) for i in range(8)]
    results = all_at_once(
        8,
        lambda i: request(
            "PUT",
            f"{base}/datasets/{dataset_id}/file",
            data=payloads[i],
            headers={**headers, "Content-Type": "application/octet-stream"},
        ),
    )
    assert [status for status, _ in results] == [200] * 8, results
    status, body = request("GET", f"{base}/datasets/{dataset_id}", headers=headers)
    file = json.loads(body)["file"]
    status, content = request("GET", f"{base}/datasets/{dataset_id}/file", headers=headers)
    assert content in payloads
    assert len(content) == file["size_bytes"]
    storage = gunicorn_server.instance_path / "storage"
    assert hashlib.sha256(content).hexdigest() == file["sha256"]
    # Eight versions numbered 1 to 8, the newest current, each its own stored file; no
    # temporary file left.
    status, body = request("GET", f"{base}/datasets/{dataset_id}/versions", headers=headers)
    listed = json.loads(body)["items"]
    assert [item["version"] for item in listed] == list(range(8, 0, -1))
    assert listed[0]["sha256"] == file["sha256"]
    assert {item["size_bytes"] for item in listed} == {len(payload) for payload in payloads}
    assert len(list(storage.iterdir())) == 8


def test_two_admins_demoting_each_other_at_once_leave_one_admin(api):
    base, headers = api
    status, body = request(
        "POST",
        f"{base}/users/",
        {"email": "second@example.com", "password": "second admin password", "roles": ["admin"]},
        headers,
    )
    assert status == 201, body
    second_id = json.loads(body)["id"]
    status, body = request(
        "POST",
        base + "/auth/login",
        {"email": "second@example.com", "password": "second admin password"},
    )
    second = {"Authorization": f"Bearer {json.loads(body)['access_token']}"}
    status, body = request("GET", base + "/auth/me", headers=headers)
    first_id = json.loads(body)["id"]

    admins = {first_id: headers, second_id: second}
    for _ in range(5):
        # Each admin demotes the other, at the same moment.
        moves = [(first_id, second_id), (second_id, first_id)]
        results = all_at_once(
            2,
            lambda i: request(
                "PATCH", f"{base}/users/{moves[i][1]}", {"roles": ["viewer"]}, admins[moves[i][0]]
            ),
        )
        # One wins. The other is refused: 409 when its check ran while the winner's change
        # was in flight (it waited on the lock), or 403 when it started after the winner
        # committed (it is no longer an admin; SQLite serialises whole write requests).
        [refused] = [(status, json.loads(body)) for status, body in results if status != 200]
        assert refused in [
            (409, {"detail": "The last active admin cannot be removed, deactivated or demoted"}),
            (403, {"detail": "Forbidden"}),
        ], results
        winner, loser = moves[0] if results[0][0] == 200 else moves[1]
        status, body = request("GET", f"{base}/users/?limit=100", headers=admins[winner])
        roles = {user["id"]: user["roles"] for user in json.loads(body)["items"]}
        assert sorted([roles[first_id], roles[second_id]]) == [["admin"], ["viewer"]]
        # The one left an admin promotes the other again for the next round.
        status, body = request(
            "PATCH", f"{base}/users/{loser}", {"roles": ["admin"]}, admins[winner]
        )
        assert status == 200, body
