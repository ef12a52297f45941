"""A full disk during an upload: 507 ``Insufficient storage``, the previous file and row
kept, no temporary file left, and no traceback in the log."""

import io
import logging
import os

import pytest

from tests.resources import create_dataset, upload
from tests.small_disk import mounted_tmpfs, unmount, used_bytes

DISK = 256 * 1024
FILE_LIMIT = 4 * 1024 * 1024  # the limit allows far more than the disk holds


# Room for the folder and one file: the old file fits, a second one (the temporary file
# of the next upload) finds no inode; or room for 256 KiB, and the next upload is bigger.
@pytest.fixture(params=["size=256k", "nr_inodes=2"], ids=["no space", "no inode"])
def small_disk(request, tmp_path):
    path = mounted_tmpfs(tmp_path / "small", request.param)
    yield path
    unmount(path)


@pytest.fixture
def config_overrides(small_disk):
    return {"MAX_CONTENT_LENGTH": FILE_LIMIT, "STORAGE_PATH": str(small_disk)}


def stream_put(client, url, headers, body, content_type, chunked):
    environ = {
        "wsgi.input": io.BytesIO(body),
        "wsgi.input_terminated": True,
        "CONTENT_TYPE": content_type,
    }
    if chunked:
        headers = {**headers, "Transfer-Encoding": "chunked"}
    else:
        environ["CONTENT_LENGTH"] = str(len(body))
    return client.put(url, headers=headers, environ_overrides=environ)


def multipart_body(content, boundary="b0undary"):
    return (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    ), f"multipart/form-data; boundary={boundary}"


@pytest.mark.parametrize("how", ["raw", "multipart", "chunked raw", "chunked multipart"])
def test_a_full_disk_is_507_and_keeps_the_old_file(
    client, actors, small_disk, how, caplog, request
):
    editor = actors["editor"]
    dataset = create_dataset(client, editor.headers, "big")
    url = f"/api/v1/datasets/{dataset['id']}/file"
    assert (
        upload(
            client, editor.headers, dataset["id"], b"old,file\n", content_type="text/csv"
        ).status_code
        == 200
    )
    before = client.get(f"/api/v1/datasets/{dataset['id']}", headers=editor.headers).get_json()
    files_before = sorted(os.listdir(small_disk))
    used_before = used_bytes(small_disk)

    content = os.urandom(2 * DISK)
    if how.endswith("multipart"):
        body, content_type = multipart_body(content)
    else:
        body, content_type = content, "application/octet-stream"
    with caplog.at_level(logging.INFO):
        response = stream_put(
            client, url, editor.headers, body, content_type, chunked=how.startswith("chunked")
        )

    assert response.status_code == 507
    assert response.mimetype == "application/json"
    assert response.get_json() == {"detail": "Insufficient storage"}
    after = client.get(f"/api/v1/datasets/{dataset['id']}", headers=editor.headers).get_json()
    assert after == before
    download = client.get(url, headers=editor.headers)
    assert (download.status_code, download.data) == (200, b"old,file\n")
    assert sorted(os.listdir(small_disk)) == files_before  # no temporary file left
    assert used_bytes(small_disk) == used_before
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.name for r in errors] == ["datahub.storage"]
    assert "no space left" in errors[0].getMessage() and errors[0].exc_info is None

    if "inode" in request.node.callspec.id:
        return  # the old file holds the only inode, as before
    # The space is back: a file that fits is stored.
    assert (
        upload(client, editor.headers, dataset["id"], b"new", content_type="text/csv").status_code
        == 200
    )
    assert client.get(url, headers=editor.headers).data == b"new"
