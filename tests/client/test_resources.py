"""datahub_client's resource methods against a real gunicorn: streamed transfers with
progress, renewal of an expired token in the middle of an upload, typed errors."""

import hashlib
import io
import os
import threading
import time

import pytest

from datahub_client import Client, ConflictError, NotFoundError, ValidationError

pytestmark = pytest.mark.e2e


def test_datasets_and_collections(client, unique):
    assert client.users_me()["roles"] == ["admin"]
    name, daily, other = unique("Rain"), unique("daily"), unique("Other")
    dataset = client.dataset_create(name, description="mm per day", tags=["weather"])
    assert client.dataset_get(dataset["id"])["description"] == "mm per day"
    changed = client.dataset_update(dataset["id"], tags=["weather", daily])
    assert changed["tags"] == ["weather", daily]
    with pytest.raises(ConflictError) as error:
        client.dataset_create(name.upper())
    assert (error.value.status, error.value.detail) == (409, "Name already exists")
    for number in range(3):
        client.dataset_create(f"{other} {number}")
    assert client.datasets_list(tag=daily)["total"] == 1
    assert [d["name"] for d in client.datasets_iter(q=other.lower())] == [
        f"{other} 0",
        f"{other} 1",
        f"{other} 2",
    ]

    by_name = client.datasets_list(q=other.lower(), sort="-name")
    assert [d["name"] for d in by_name["items"]] == [f"{other} {n}" for n in (2, 1, 0)]
    assert {d["name"]: d["capabilities"] for d in by_name["items"]} == {
        f"{other} {n}": {"write": True, "manage": True} for n in range(3)
    }
    with pytest.raises(ValidationError) as error:
        client.datasets_list(sort="size")
    assert error.value.status == 422
    assert error.value.detail[0]["loc"] == ["query", "sort"]

    weather = unique("Weather")
    collection = client.collection_create(weather, dataset_ids=[dataset["id"]])
    assert collection["dataset_ids"] == [dataset["id"]]
    assert client.collection_remove(collection["id"], dataset["id"])["dataset_ids"] == []
    assert client.collection_add(collection["id"], dataset["id"])["dataset_ids"] == [dataset["id"]]
    assert client.collections_list(q=weather[2:].lower())["total"] == 1  # a part, any case
    [listed] = client.collections_list(q=weather, sort="-updated_at")["items"]
    assert listed["capabilities"] == {"write": True, "manage": True}
    client.dataset_delete(dataset["id"])
    assert client.collection_get(collection["id"])["dataset_ids"] == []
    client.collection_delete(collection["id"])
    with pytest.raises(NotFoundError) as error:
        client.dataset_get(dataset["id"])
    assert error.value.detail == "Dataset not found"


def test_upload_from_a_file_object_and_download_with_progress(client, tmp_path, unique):
    dataset = client.dataset_create(unique("Blob"))
    content = os.urandom(200 * 1024 + 7)
    sent = []
    answer = client.dataset_upload(
        dataset["id"],
        io.BytesIO(content),
        filename="blob.bin",
        progress=lambda done, total: sent.append((done, total)),
    )
    assert answer["file"]["sha256"] == hashlib.sha256(content).hexdigest()
    assert answer["file"]["content_type"] == "application/octet-stream"
    assert len(sent) >= 4 and sent[-1] == (len(content), len(content))  # chunk by chunk
    received = []
    path = client.dataset_download(
        dataset["id"],
        tmp_path / "copy.bin",
        progress=lambda done, total: received.append((done, total)),
    )
    assert open(path, "rb").read() == content
    assert len(received) >= 4 and received[-1] == (len(content), len(content))


# Three seconds, not one: ``exp`` is whole seconds, so a token of a one-second lifetime
# can be expired a few milliseconds after it is issued (the renewed one included).
@pytest.mark.parametrize("gunicorn_env", [{"DATAHUB_JWT_ACCESS_TOKEN_EXPIRES": "3"}])
def test_an_upload_with_an_expired_token_is_renewed_and_sent_again_whole(
    gunicorn_env, client, tmp_path
):
    dataset = client.dataset_create("Late")
    source = tmp_path / "late.csv"
    source.write_bytes(b"a,b\n" * 50000)
    time.sleep(3.5)
    old_token = client.access_token
    answer = client.dataset_upload(dataset["id"], source)
    assert client.access_token != old_token
    assert answer["file"]["filename"] == "late.csv"
    assert answer["file"]["content_type"] == "text/csv"
    assert answer["file"]["sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()


def test_a_new_client_with_only_the_refresh_cookie_refreshes_first(client, server):
    seen = []
    resumed = Client(
        server.url,
        refresh_token=client.refresh_cookie,
        on_refresh_cookie=lambda name, value: seen.append((name, value)),
    )
    assert resumed.me()["email"] == "admin@example.com"
    assert len(seen) == 1 and seen[0][0] == "__Secure-refresh_token"
    assert seen[0][1] == resumed.refresh_cookie != client.refresh_cookie  # rotated


def test_upload_from_a_pipe(client, unique):
    dataset = client.dataset_create(unique("Piped"))
    content = os.urandom(150 * 1024)
    read_end, write_end = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(write_end, content), os.close(write_end)))
    writer.start()
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        answer = client.dataset_upload(dataset["id"], pipe, filename="piped.bin")
    writer.join()
    assert answer["file"]["size_bytes"] == len(content)
    assert answer["file"]["sha256"] == hashlib.sha256(content).hexdigest()


def test_download_without_overwrite_keeps_an_existing_file(client, tmp_path, unique):
    name = unique("Twice")
    dataset = client.dataset_create(name)
    content = os.urandom(500 * 1024)  # more than is read with the answer's headers
    client.dataset_upload(dataset["id"], io.BytesIO(content), filename="twice.bin")
    folder = tmp_path / "downloads"
    folder.mkdir()
    (folder / "twice.bin").write_bytes(b"mine")
    with pytest.raises(FileExistsError) as error:
        client.dataset_download(dataset["id"], folder, overwrite=False)
    assert error.value.filename == str(folder / "twice.bin")
    assert (folder / "twice.bin").read_bytes() == b"mine"
    assert client.dataset_get(dataset["id"])["name"] == name  # the connection pool is sound
    path = client.dataset_download(dataset["id"], folder)  # overwrite=True: as before
    assert open(path, "rb").read() == content and os.listdir(folder) == ["twice.bin"]
