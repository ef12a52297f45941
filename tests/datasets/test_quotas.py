"""The storage quota (``QUOTA_STORAGE_BYTES``, 507) and the dataset quota
(``QUOTA_DATASETS``, 403), through HTTP, on the local folder and on S3."""

import io
import threading

import pytest

from tests.datasets.test_files import GeneratedStream, pattern, put_stream
from tests.resources import at_once, create_dataset, upload

URL = "/api/v1/datasets/"
QUOTA = 100
OVER_STORAGE = {"detail": "Storage quota exceeded"}
OVER_DATASETS = {"detail": "Dataset quota exceeded"}


@pytest.fixture
def config_overrides(backend_config):
    return {"QUOTA_STORAGE_BYTES": QUOTA, "MAX_CONTENT_LENGTH": 10 * QUOTA, **backend_config}


@pytest.fixture
def editor(actors):
    return actors["editor"]


def file_url(dataset):
    return f"{URL}{dataset['id']}/file"


def usage(client, headers):
    response = client.get("/api/v1/auth/me/usage", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_uploads_fill_the_quota_exactly_and_not_a_byte_more(client, editor, stored):
    first, second, third = (create_dataset(client, editor.headers, name) for name in "abc")
    assert upload(client, editor.headers, first["id"], b"x" * 60).status_code == 200
    assert upload(client, editor.headers, second["id"], b"y" * 40).status_code == 200
    assert usage(client, editor.headers)["storage_bytes"] == QUOTA
    files = stored()
    response = upload(client, editor.headers, third["id"], b"z")
    assert (response.status_code, response.get_json()) == (507, OVER_STORAGE)
    assert response.mimetype == "application/json"
    assert client.get(f"{URL}{third['id']}", headers=editor.headers).get_json()["file"] is None
    assert stored() == files  # no partial file, no temporary file
    # Freeing room (deleting a dataset and its file) lets an upload in again.
    assert client.delete(f"{URL}{second['id']}", headers=editor.headers).status_code == 204
    assert upload(client, editor.headers, third["id"], b"z" * 40).status_code == 200
    assert usage(client, editor.headers)["storage_bytes"] == QUOTA


def test_kept_versions_count_once_per_stored_object(client, editor, stored):
    dataset = create_dataset(client, editor.headers)
    versions = f"{URL}{dataset['id']}/versions/"
    half = b"o" * (QUOTA // 2)
    assert upload(client, editor.headers, dataset["id"], half).status_code == 200
    # The same bytes again: a new version, no new object, no more bytes counted.
    again = upload(client, editor.headers, dataset["id"], half)
    assert (again.status_code, again.get_json()["current_version"]) == (200, 2)
    assert len(stored()) == 1
    assert usage(client, editor.headers)["storage_bytes"] == QUOTA // 2
    assert upload(client, editor.headers, dataset["id"], b"n" * (QUOTA // 2)).status_code == 200
    # Earlier versions stay, and count: the quota is full.
    files = stored()
    response = upload(client, editor.headers, dataset["id"], b"m")
    assert (response.status_code, response.get_json()) == (507, OVER_STORAGE)
    assert stored() == files
    # Deleting version 1 frees nothing (version 2 has its bytes); deleting 2 as well does.
    assert client.delete(f"{versions}1", headers=editor.headers).status_code == 204
    assert (stored(), usage(client, editor.headers)["storage_bytes"]) == (files, QUOTA)
    assert client.delete(f"{versions}2", headers=editor.headers).status_code == 204
    assert usage(client, editor.headers)["storage_bytes"] == QUOTA // 2
    assert len(stored()) == 1
    assert upload(client, editor.headers, dataset["id"], b"m").status_code == 200
    assert client.get(file_url(dataset), headers=editor.headers).data == b"m"


@pytest.mark.parametrize("how", ["raw", "multipart", "chunked", "declared length"])
def test_an_upload_over_the_quota_is_cut_early_and_leaves_nothing(client, editor, stored, how):
    """Each way a body comes in: 507 with the old file intact, nothing left in storage,
    and a large body is not read to its end."""
    dataset = create_dataset(client, editor.headers)
    assert upload(client, editor.headers, dataset["id"], b"old").status_code == 200
    before = client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()
    files = stored()
    stream = None
    content = b"z" * (QUOTA + 1)  # over the quota even without the old file's 3 bytes
    if how == "raw":
        response = upload(client, editor.headers, dataset["id"], content)
    elif how == "multipart":
        response = client.put(
            file_url(dataset),
            headers=editor.headers,
            content_type="multipart/form-data",
            data={"file": (io.BytesIO(content), "a.csv", "text/csv")},
        )
    elif how == "chunked":  # 5 MB with no Content-Length: cut while reading
        stream = GeneratedStream(pattern(5 * 1024 * 1024))
        response = put_stream(
            client, file_url(dataset), stream, editor.headers, "application/octet-stream"
        )
    else:  # a declared length over the room left (within MAX_CONTENT_LENGTH): refused
        # before a byte is read
        stream = GeneratedStream(pattern(5 * QUOTA))
        response = put_stream(
            client,
            file_url(dataset),
            stream,
            editor.headers,
            "application/octet-stream",
            content_length=5 * QUOTA,
        )
    assert (response.status_code, response.get_json()) == (507, OVER_STORAGE)
    if how == "chunked":
        assert stream.sent <= 256 * 1024  # stopped near the room left, not at 5 MB
    elif stream is not None:
        assert stream.sent == 0
    assert client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json() == before
    assert client.get(file_url(dataset), headers=editor.headers).data == b"old"
    assert stored() == files


def test_max_content_length_still_answers_400_when_the_quota_has_room(client, editor, app):
    app.config["QUOTA_STORAGE_BYTES"] = 100 * QUOTA  # more than MAX_CONTENT_LENGTH
    dataset = create_dataset(client, editor.headers)
    response = upload(client, editor.headers, dataset["id"], b"z" * (10 * QUOTA + 1))
    assert (response.status_code, response.get_json()) == (400, {"detail": "File too large"})
    assert upload(client, editor.headers, dataset["id"], b"z" * (10 * QUOTA)).status_code == 200


def test_an_admin_upload_counts_against_the_owner(client, actors, stored):
    editor, admin = actors["editor"], actors["admin"]
    dataset = create_dataset(client, editor.headers)
    assert upload(client, admin.headers, dataset["id"], b"a" * 70).status_code == 200
    assert usage(client, editor.headers)["storage_bytes"] == 70
    assert usage(client, admin.headers)["storage_bytes"] == 0
    own = create_dataset(client, admin.headers, "admin's")
    assert upload(client, admin.headers, own["id"], b"b" * QUOTA).status_code == 200
    other = create_dataset(client, editor.headers, "second")
    response = upload(client, admin.headers, other["id"], b"c" * 31)
    assert (response.status_code, response.get_json()) == (507, OVER_STORAGE)
    assert upload(client, admin.headers, other["id"], b"c" * 30).status_code == 200


def test_without_a_storage_quota_there_is_no_limit(client, editor, app):
    app.config["QUOTA_STORAGE_BYTES"] = None
    dataset = create_dataset(client, editor.headers)
    for name in "ab":
        other = create_dataset(client, editor.headers, name)
        assert upload(client, editor.headers, other["id"], b"z" * 10 * QUOTA).status_code == 200
    assert upload(client, editor.headers, dataset["id"], b"z" * 10 * QUOTA).status_code == 200
    assert usage(client, editor.headers)["storage_bytes"] == 30 * QUOTA


class WaitingBody(io.RawIOBase):
    """A body whose first read waits until every upload has reached it: all of them have
    passed the check made before streaming, and only the commit's check is left."""

    def __init__(self, content, barrier):
        self.content, self.barrier = content, barrier

    def readable(self):
        return True

    def readinto(self, buffer):
        if self.barrier is not None:
            self.barrier.wait(30)
            self.barrier = None
        n = min(len(buffer), len(self.content))
        buffer[:n], self.content = self.content[:n], self.content[n:]
        return n


def test_concurrent_uploads_of_one_owner_cannot_both_pass(app, client, editor, stored):
    datasets = [create_dataset(client, editor.headers, f"d{i}") for i in range(4)]
    barrier = threading.Barrier(len(datasets))  # the bodies wait for one another

    def upload_one(i):
        body = WaitingBody(b"q" * 40, barrier)  # each fits alone; two fit together
        return put_stream(
            app.test_client(),
            file_url(datasets[i]),
            body,
            editor.headers,
            "application/octet-stream",
            content_length=40,
        )

    results = at_once(len(datasets), upload_one)
    codes = sorted(response.status_code for response in results)
    assert codes == [200, 200, 507, 507], [r.get_json() for r in results]
    assert usage(client, editor.headers)["storage_bytes"] == 80
    assert len(stored()) == 2  # the refused files are gone


# --- the dataset quota ---------------------------------------------------------------------


def test_dataset_quota_at_its_boundary(client, actors, app):
    app.config["QUOTA_DATASETS"] = 2
    editor, other = actors["editor"], actors["other_editor"]
    first = create_dataset(client, editor.headers, "one")
    create_dataset(client, editor.headers, "two")
    response = client.post(URL, json={"name": "three"}, headers=editor.headers)
    assert (response.status_code, response.get_json()) == (403, OVER_DATASETS)
    assert response.mimetype == "application/json"
    assert client.get(f"{URL}?owner=me", headers=editor.headers).get_json()["total"] == 2
    create_dataset(client, other.headers, "someone else's")  # a quota per user
    assert client.delete(f"{URL}{first['id']}", headers=editor.headers).status_code == 204
    create_dataset(client, editor.headers, "three")
    app.config["QUOTA_DATASETS"] = None
    create_dataset(client, editor.headers, "four")
    assert usage(client, editor.headers)["datasets"] == 3


def test_concurrent_creations_make_exactly_the_quota(app, client, editor):
    app.config["QUOTA_DATASETS"] = 3
    results = at_once(
        8, lambda i: app.test_client().post(URL, json={"name": f"ds {i}"}, headers=editor.headers)
    )
    codes = sorted(response.status_code for response in results)
    assert codes == [201] * 3 + [403] * 5, [r.get_json() for r in results]
    assert all(r.get_json() == OVER_DATASETS for r in results if r.status_code == 403)
    assert client.get(f"{URL}?owner=me", headers=editor.headers).get_json()["total"] == 3
