"""Dataset versions through datahub_client and the ``datahub`` command against a real
gunicorn: uploads with a message, the list (page after page), a version's file, pinning,
restore, delete (``force`` for a version a run read) and the errors."""

import hashlib
import io
import json
import os
import re

import pytest

from datahub_client import ConflictError, NotFoundError

pytestmark = pytest.mark.e2e

RAIN = [b"date,mm\n2024-01-01,3\n", b"date,mm\n2024-01-01,4\n", b"date,mm\n2024-01-01,5\n"]


@pytest.fixture(scope="module")
def module_pipeline_worker():
    return True  # a run reads a version


def sha256(content):
    return hashlib.sha256(content).hexdigest()


def test_upload_list_download_pin_restore_and_delete_versions(client, tmp_path, unique):
    dataset_id = client.dataset_create(unique("Rain"))["id"]
    first = client.dataset_upload(
        dataset_id, io.BytesIO(RAIN[0]), filename="rain.csv", message="first"
    )
    assert first["current_version"] == 1
    client.dataset_upload(dataset_id, io.BytesIO(RAIN[1]), filename="rain.csv")
    source = tmp_path / "rain v3.csv"
    source.write_bytes(RAIN[2])
    third = client.dataset_upload(dataset_id, source, message="checked & corrected?")
    assert third["current_version"] == 3

    versions = list(client.dataset_versions_iter(dataset_id))
    assert [(v["version"], v["message"]) for v in versions] == [
        (3, "checked & corrected?"),
        (2, None),
        (1, "first"),
    ]
    page = client.dataset_versions_list(dataset_id, limit=1, offset=1)
    assert [v["version"] for v in page["items"]] == [2] and page["total"] == 3
    one = client.dataset_version_get(dataset_id, 1)
    assert (one["sha256"], one["size_bytes"], one["filename"], one["pinned"]) == (
        sha256(RAIN[0]),
        len(RAIN[0]),
        "rain.csv",
        False,
    )

    path = client.dataset_download(dataset_id, tmp_path / "v1.csv", version=1)
    assert open(path, "rb").read() == RAIN[0]
    folder = tmp_path / "downloads"
    folder.mkdir()
    path = client.dataset_download(dataset_id, folder, version=3)  # the version's file name
    assert path == str(folder / "rain v3.csv") and open(path, "rb").read() == RAIN[2]
    with pytest.raises(FileExistsError):
        client.dataset_download(dataset_id, folder, version=3, overwrite=False)

    pinned = client.dataset_version_update(dataset_id, 1, pinned=True, message="as published")
    assert (pinned["version"], pinned["pinned"], pinned["message"]) == (1, True, "as published")
    cleared = client.dataset_version_update(dataset_id, 1, message=None)  # pinned as it was
    assert (cleared["pinned"], cleared["message"]) == (True, None)
    assert client.dataset_version_update(dataset_id, 1, pinned=False)["pinned"] is False

    restored = client.dataset_version_restore(dataset_id, 1)
    assert (restored["version"], restored["message"], restored["sha256"]) == (
        4,
        "Restored from version 1",
        sha256(RAIN[0]),
    )
    restored = client.dataset_version_restore(dataset_id, 2, message="back to 4 mm")
    assert (restored["version"], restored["message"]) == (5, "back to 4 mm")
    assert client.dataset_get(dataset_id)["current_version"] == 5
    path = client.dataset_download(dataset_id, tmp_path / "current.csv")
    assert open(path, "rb").read() == RAIN[1]

    with pytest.raises(ConflictError) as error:
        client.dataset_version_delete(dataset_id, 5)
    assert (error.value.status, error.value.detail) == (409, "Version is current")
    assert client.dataset_version_delete(dataset_id, 3) is None
    assert [v["version"] for v in client.dataset_versions_iter(dataset_id)] == [5, 4, 2, 1]
    with pytest.raises(NotFoundError) as error:
        client.dataset_version_get(dataset_id, 3)
    assert error.value.detail == "Version not found"
    with pytest.raises(NotFoundError) as error:
        client.dataset_download(dataset_id, tmp_path / "gone.csv", version=3)
    assert error.value.detail == "Version not found"
    assert not (tmp_path / "gone.csv").exists()


def test_versions_iter_walks_every_page(client, unique):
    dataset_id = client.dataset_create(unique("Many"))["id"]
    for _ in range(101):  # the same bytes each time: new versions, no new storage
        client.dataset_upload(dataset_id, io.BytesIO(b"x\n1\n"), filename="x.csv")
    numbers = [v["version"] for v in client.dataset_versions_iter(dataset_id)]
    assert numbers == list(range(101, 0, -1))


def test_a_version_a_run_read_is_deleted_only_with_force(client, unique):
    source_id = client.dataset_create(unique("cities"))["id"]
    client.dataset_upload(
        source_id, io.BytesIO(b"city,temp\nOslo,3\nBergen,7\n"), filename="cities.csv"
    )
    pipeline = client._json(
        "POST",
        "/api/v1/pipelines/",
        json_body={
            "name": unique("oslo only"),
            "source_dataset_id": source_id,
            "output_dataset_name": unique("oslo"),
            "steps": [{"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"}],
        },
    )
    run = client.pipeline_run(pipeline["id"])
    run = client.run_wait(pipeline["id"], run["id"], poll=0.2, timeout=60)
    assert run["status"] == "succeeded", run["error"]
    assert run["inputs"] == [{"dataset_id": source_id, "version": 1}]
    output = client.dataset_version_get(run["output"]["dataset_id"], run["output"]["version"])
    assert output["run_id"] == run["id"]

    client.dataset_upload(source_id, io.BytesIO(b"city,temp\nOslo,4\n"), filename="cities.csv")
    with pytest.raises(ConflictError) as error:
        client.dataset_version_delete(source_id, 1)
    assert error.value.detail == "Version is used by a run"
    client.dataset_version_delete(source_id, 1, force=True)  # an admin may
    assert [v["version"] for v in client.dataset_versions_iter(source_id)] == [2]


def test_the_command_lists_downloads_pins_and_restores_versions(datahub, tmp_path, unique):
    created = datahub("--json", "datasets", "create", unique("Rain"))
    dataset_id = str(json.loads(created.stdout)["id"])
    source = tmp_path / "rain.csv"
    source.write_bytes(RAIN[0])
    result = datahub("datasets", "upload", dataset_id, str(source), "--message", "first one")
    assert (result.exit_code, result.stderr) == (0, "")
    header, row = result.stdout.splitlines()
    assert header.split() == ["ID", "NAME", "TAGS", "FILE", "SIZE", "VERSION", "SHA256"]
    assert row.split()[-2:] == ["1", sha256(RAIN[0])]
    source.write_bytes(RAIN[1])
    uploaded = json.loads(datahub("--json", "datasets", "upload", dataset_id, str(source)).stdout)
    assert uploaded["current_version"] == 2

    result = datahub("datasets", "versions", dataset_id)
    assert (result.exit_code, result.stderr) == (0, "2 of 2 (offset 0)\n")
    header, second, first = result.stdout.splitlines()
    assert header.split() == [
        "VERSION",
        "CREATED",
        "FILE",
        "SIZE",
        "RUN",
        "PINNED",
        "STATE",
        "MESSAGE",
    ]
    assert second.split()[:1] + second.split()[2:] == [
        "2",
        "rain.csv",
        "21",
        "B",
        "-",
        "-",
        "published",
        "-",
    ]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", second.split()[1])  # UTC
    assert first.split()[2:] == ["rain.csv", "21", "B", "-", "-", "published", "first", "one"]
    listed = json.loads(
        datahub("--json", "datasets", "versions", dataset_id, "--offset", "1").stdout
    )
    assert [v["version"] for v in listed["items"]] == [1] and listed["total"] == 2

    target = tmp_path / "v1.csv"
    result = datahub("datasets", "download", dataset_id, str(target), "--version", "1")
    assert (result.exit_code, result.stdout) == (0, f"Saved 21 bytes to {target}\n")
    assert target.read_bytes() == RAIN[0]
    result = datahub("--json", "datasets", "download", dataset_id, str(target), "--version", "2")
    assert result.exit_code == 1 and "already exists (use --force" in result.stderr
    result = datahub(
        "--json", "datasets", "download", dataset_id, str(target), "--version", "2", "-f"
    )
    assert json.loads(result.stdout) == {
        "dataset_id": int(dataset_id),
        "path": str(target),
        "size_bytes": 21,
        "version": 2,
    }
    assert target.read_bytes() == RAIN[1]

    result = datahub("datasets", "pin", dataset_id, "1", "--message", "as published")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].split()[-4:] == ["yes", "published", "as", "published"]
    pinned = json.loads(datahub("--json", "datasets", "versions", dataset_id).stdout)["items"][1]
    assert (pinned["pinned"], pinned["message"]) == (True, "as published")
    unpinned = json.loads(datahub("--json", "datasets", "unpin", dataset_id, "1").stdout)
    assert (unpinned["pinned"], unpinned["message"]) == (False, "as published")

    result = datahub("datasets", "restore", dataset_id, "1")
    assert result.exit_code == 0, result.stderr
    row = result.stdout.splitlines()[1].split()
    assert (row[0], row[-4:]) == ("3", ["Restored", "from", "version", "1"])
    restored = json.loads(
        datahub("--json", "datasets", "restore", dataset_id, "2", "--message", "4 mm").stdout
    )
    assert (restored["version"], restored["message"]) == (4, "4 mm")
    current = tmp_path / "current.csv"
    assert datahub("datasets", "download", dataset_id, str(current)).exit_code == 0
    assert current.read_bytes() == RAIN[1]

    for args in (
        ["datasets", "restore", dataset_id, "99"],
        ["datasets", "pin", dataset_id, "99"],
        ["datasets", "download", dataset_id, str(tmp_path / "none.csv"), "--version", "99"],
    ):
        result = datahub(*args)
        assert (result.exit_code, result.stdout, result.stderr) == (
            1,
            "",
            "Error: Version not found\n",
        )
    assert not os.path.exists(tmp_path / "none.csv")
    result = datahub("datasets", "versions", "424242")
    assert (result.exit_code, result.stderr) == (1, "Error: Dataset not found\n")
