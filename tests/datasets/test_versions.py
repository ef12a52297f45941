"""Dataset versions through HTTP, on the local folder and on S3: every upload, run output
and restore is a numbered, immutable version; identical bytes are stored once; the
current version and versions a run read are kept; retention keeps the newest."""

import hashlib

import pytest

from datahub.pipelines import worker
from tests.pipelines.helpers import create_pipeline, run_now
from tests.resources import create_dataset

URL = "/api/v1/datasets/"
VERSION_FIELDS = [
    "version",
    "sha256",
    "size_bytes",
    "filename",
    "content_type",
    "format",
    "created_at",
    "created_by",
    "run_id",
    "message",
    "pinned",
    "state",
]


@pytest.fixture
def config_overrides(backend_config):
    return {**backend_config}


@pytest.fixture
def editor(actors):
    return actors["editor"]


@pytest.fixture
def dataset(client, editor):
    return create_dataset(client, editor.headers, "versioned")


def versions_url(dataset, suffix=""):
    return f"{URL}{dataset['id']}/versions{suffix}"


def put(client, headers, dataset, data, **query):
    response = client.put(
        f"{URL}{dataset['id']}/file",
        data=data,
        headers=headers,
        content_type="text/csv",
        query_string=query,
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def listed(client, headers, dataset, **query):
    response = client.get(versions_url(dataset), headers=headers, query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_every_upload_is_a_version_listed_newest_first(client, editor, actors, dataset):
    first = put(client, editor.headers, dataset, b"a,b\n1,2\n", filename="one.csv")
    assert first["current_version"] == 1
    second = put(client, editor.headers, dataset, b"a,b\n3,4\n", message="fixed row 1")
    assert (second["current_version"], second["file"]["sha256"]) == (
        2,
        hashlib.sha256(b"a,b\n3,4\n").hexdigest(),
    )
    page = listed(client, actors["viewer"].headers, dataset)
    assert (page["total"], page["limit"], page["offset"]) == (2, 20, 0)
    newest, oldest = page["items"]
    assert list(newest) == VERSION_FIELDS
    assert (newest["version"], newest["message"], oldest["version"]) == (2, "fixed row 1", 1)
    assert oldest == {
        "version": 1,
        "sha256": hashlib.sha256(b"a,b\n1,2\n").hexdigest(),
        "size_bytes": 8,
        "filename": "one.csv",
        "content_type": "text/csv",
        "format": "csv",
        "created_at": oldest["created_at"],
        "created_by": editor.id,
        "run_id": None,
        "message": None,
        "pinned": False,
        "state": "published",
    }
    assert listed(client, editor.headers, dataset, limit=1, offset=1)["items"] == [oldest]
    one = client.get(versions_url(dataset, "/1"), headers=editor.headers)
    assert (one.status_code, one.get_json()) == (200, oldest)


def test_a_versions_file_downloads_as_the_datasets_does(client, editor, dataset):
    put(client, editor.headers, dataset, b"0123456789", filename="digits.txt")
    put(client, editor.headers, dataset, b"later")
    url = versions_url(dataset, "/1/file")
    response = client.get(url, headers=editor.headers)
    etag = f'"{hashlib.sha256(b"0123456789").hexdigest()}"'
    assert (response.status_code, response.data) == (200, b"0123456789")
    assert response.headers["ETag"] == etag
    assert response.headers["Content-Type"] == "text/csv"
    assert response.headers["Content-Disposition"] == "attachment; filename=digits.txt"
    unchanged = client.get(url, headers={**editor.headers, "If-None-Match": etag})
    assert (unchanged.status_code, unchanged.data) == (304, b"")
    part = client.get(url, headers={**editor.headers, "Range": "bytes=2-4"})
    assert (part.status_code, part.data) == (206, b"234")
    assert client.get(f"{URL}{dataset['id']}/file", headers=editor.headers).data == b"later"


def test_unknown_versions_and_datasets_are_404_and_bad_numbers_422(client, editor, dataset):
    put(client, editor.headers, dataset, b"x")
    for path in ("/2", "/2/file", "/2/preview", "/0", "/99999999999"):
        response = client.get(versions_url(dataset, path), headers=editor.headers)
        assert (response.status_code, response.get_json()) == (
            404,
            {"detail": "Version not found"},
        ), path
    gone = client.get(f"{URL}999999/versions/1", headers=editor.headers)
    assert (gone.status_code, gone.get_json()) == (404, {"detail": "Dataset not found"})
    bad = client.get(versions_url(dataset, "/one"), headers=editor.headers)
    assert bad.status_code == 422
    assert bad.get_json()["detail"][0]["loc"] == ["path", "version"]
    unauthenticated = client.get(versions_url(dataset))
    assert (unauthenticated.status_code, unauthenticated.get_json()) == (
        401,
        {"detail": "Not authenticated"},
    )


def test_identical_bytes_are_stored_once_and_restore_copies_nothing(
    client, editor, dataset, stored
):
    put(client, editor.headers, dataset, b"same bytes")
    objects = stored()
    assert len(objects) == 1
    assert put(client, editor.headers, dataset, b"same bytes")["current_version"] == 2
    assert stored() == objects
    put(client, editor.headers, dataset, b"other bytes")
    assert len(stored()) == 2
    objects = stored()
    response = client.post(versions_url(dataset, "/1/restore"), headers=editor.headers)
    assert response.status_code == 201, response.get_json()
    restored = response.get_json()
    assert response.headers["Location"] == versions_url(dataset, "/4")
    assert (restored["version"], restored["message"], restored["created_by"]) == (
        4,
        "Restored from version 1",
        editor.id,
    )
    assert stored() == objects  # no bytes copied
    current = client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()
    assert (current["current_version"], current["file"]["sha256"]) == (4, restored["sha256"])
    assert client.get(f"{URL}{dataset['id']}/file", headers=editor.headers).data == b"same bytes"
    noted = client.post(
        versions_url(dataset, "/3/restore"),
        headers=editor.headers,
        query_string={"message": "back to other"},
    )
    assert (noted.status_code, noted.get_json()["message"]) == (201, "back to other")


def test_pin_and_message_are_all_that_change(client, editor, actors, dataset):
    put(client, editor.headers, dataset, b"x")
    url = versions_url(dataset, "/1")
    response = client.patch(url, json={"pinned": True, "message": "keep"}, headers=editor.headers)
    assert response.status_code == 200, response.get_json()
    assert (response.get_json()["pinned"], response.get_json()["message"]) == (True, "keep")
    cleared = client.patch(url, json={"message": None}, headers=actors["admin"].headers)
    assert (cleared.get_json()["pinned"], cleared.get_json()["message"]) == (True, None)
    refused = client.patch(url, json={"sha256": "0" * 64}, headers=editor.headers)
    assert refused.status_code == 422
    assert refused.get_json()["detail"][0]["msg"] == "extra fields not permitted"
    for who in ("viewer", "other_editor"):
        response = client.patch(url, json={"pinned": False}, headers=actors[who].headers)
        assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"}), who
        response = client.post(versions_url(dataset, "/1/restore"), headers=actors[who].headers)
        assert response.status_code == 403, who
    assert client.get(url, headers=editor.headers).get_json()["pinned"] is True


def test_delete_keeps_the_current_version_and_numbers_never_repeat(
    client, editor, actors, dataset, stored
):
    put(client, editor.headers, dataset, b"one")
    put(client, editor.headers, dataset, b"two")
    current = client.delete(versions_url(dataset, "/2"), headers=editor.headers)
    assert (current.status_code, current.get_json()) == (409, {"detail": "Version is current"})
    other = client.delete(versions_url(dataset, "/1"), headers=actors["other_editor"].headers)
    assert other.status_code == 403
    assert len(stored()) == 2
    deleted = client.delete(versions_url(dataset, "/1"), headers=editor.headers)
    assert (deleted.status_code, deleted.data) == (204, b"")
    assert len(stored()) == 1  # its bytes were no other version's
    assert client.get(versions_url(dataset, "/1"), headers=editor.headers).status_code == 404
    assert put(client, editor.headers, dataset, b"three")["current_version"] == 3
    assert [item["version"] for item in listed(client, editor.headers, dataset)["items"]] == [3, 2]


def test_a_version_a_run_read_is_kept_unless_an_admin_forces(
    app, client, editor, actors, dataset, stored
):
    put(client, editor.headers, dataset, b"name,age\nAnn,34\n")
    pipeline = create_pipeline(client, editor.headers, dataset["id"], output="adults")
    run = run_now(app, client, editor.headers, pipeline["id"])
    assert run["status"] == "succeeded", run
    assert run["inputs"] == [{"dataset_id": dataset["id"], "version": 1}]
    assert run["output"] == {"dataset_id": run["output_dataset_id"], "version": 1}
    output = {"id": run["output_dataset_id"]}
    made = listed(client, editor.headers, output)["items"]
    assert [(v["version"], v["run_id"], v["format"], v["created_by"]) for v in made] == [
        (1, run["id"], "csv", editor.id)
    ]
    put(client, editor.headers, dataset, b"name,age\nBob,9\n")
    url = versions_url(dataset, "/1")
    used = client.delete(url, headers=editor.headers)
    assert (used.status_code, used.get_json()) == (409, {"detail": "Version is used by a run"})
    forced = client.delete(url, headers=editor.headers, query_string={"force": "true"})
    assert (forced.status_code, forced.get_json()) == (403, {"detail": "Forbidden"})
    admin = client.delete(url, headers=actors["admin"].headers, query_string={"force": "true"})
    assert admin.status_code == 204
    # A second run over unchanged bytes: a new output version, the same stored object.
    before = len(stored())
    second = run_now(app, client, editor.headers, pipeline["id"])
    assert second["inputs"] == [{"dataset_id": dataset["id"], "version": 2}]
    assert second["output"] == {"dataset_id": output["id"], "version": 2}
    assert len(stored()) == before + 1  # the new output's bytes differ (Bob, not Ann)


def test_retention_keeps_the_newest_the_pinned_and_those_runs_read(
    app, client, editor, dataset, stored
):
    app.config["VERSIONS_KEEP"] = 2
    for number in range(1, 6):
        put(client, editor.headers, dataset, f"v\n{number}\n".encode())
    client.patch(versions_url(dataset, "/1"), json={"pinned": True}, headers=editor.headers)
    pipeline = create_pipeline(client, editor.headers, dataset["id"], output="copy")
    # The run reads version 5; then two more uploads make it old.
    assert run_now(app, client, editor.headers, pipeline["id"])["status"] == "succeeded"
    put(client, editor.headers, dataset, b"v\n6\n")
    put(client, editor.headers, dataset, b"v\n7\n")
    worker.Worker(app).run_once()  # its sweep applies VERSIONS_KEEP
    kept = [item["version"] for item in listed(client, editor.headers, dataset)["items"]]
    assert kept == [7, 6, 5, 1]
    # The removed versions' objects are gone: 4 versions kept, and the run's output.
    assert len(stored()) == 5
    for number in (2, 3, 4):
        response = client.get(versions_url(dataset, f"/{number}/file"), headers=editor.headers)
        assert response.status_code == 404


def test_a_version_previews_its_own_bytes_and_knows_its_format(client, editor, dataset):
    put(client, editor.headers, dataset, b"city,temp\nOslo,-3\n")
    put(client, editor.headers, dataset, b'{"city": "Bergen"}\n')
    put(client, editor.headers, dataset, b"\x00\x01binary")
    response = client.get(versions_url(dataset, "/1/preview"), headers=editor.headers)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["rows"] == [["Oslo", -3]]
    formats = [item["format"] for item in listed(client, editor.headers, dataset)["items"]]
    assert formats == [None, "jsonl", "csv"]
    binary = client.get(versions_url(dataset, "/3/preview"), headers=editor.headers)
    assert (binary.status_code, binary.get_json()) == (
        422,
        {"detail": "Dataset file is not tabular"},
    )


def test_deleting_a_dataset_removes_every_versions_bytes(client, editor, dataset, stored):
    for content in (b"a", b"b", b"a"):
        put(client, editor.headers, dataset, content)
    assert len(stored()) == 2
    assert client.delete(f"{URL}{dataset['id']}", headers=editor.headers).status_code == 204
    assert stored() == []
    gone = client.get(versions_url(dataset), headers=editor.headers)
    assert (gone.status_code, gone.get_json()) == (404, {"detail": "Dataset not found"})
