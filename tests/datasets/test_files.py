"""Uploading and downloading a dataset's file."""

import hashlib
import io
import tracemalloc

import pytest

from tests.resources import create_dataset, upload

URL = "/api/v1/datasets/"
LIMIT = 1024


@pytest.fixture
def config_overrides(backend_config):
    # A small limit, and a storage of each test's own to look into (each test runs on the
    # local folder and on S3).
    return {"MAX_CONTENT_LENGTH": LIMIT, **backend_config}


@pytest.fixture
def editor(actors):
    return actors["editor"]


@pytest.fixture
def dataset(client, editor):
    return create_dataset(client, editor.headers, "files")


@pytest.fixture
def storage(stored):
    return stored


def file_url(dataset):
    return f"{URL}{dataset['id']}/file"


def multipart(
    client, headers, dataset, content, filename="data.csv", content_type="text/csv", **extra_fields
):
    data = {**extra_fields, "file": (io.BytesIO(content), filename, content_type)}
    return client.put(
        file_url(dataset), data=data, headers=headers, content_type="multipart/form-data"
    )


class GeneratedStream(io.RawIOBase):
    """A request body made on the fly (nothing held in memory), optionally failing."""

    def __init__(self, pieces, fail_after=None):
        self._pieces = iter(pieces)
        self._current = b""
        self.sent = 0
        self._fail_after = fail_after

    def readable(self):
        return True

    def readinto(self, buffer):
        if self._fail_after is not None and self.sent >= self._fail_after:
            raise ConnectionResetError("client went away")
        while not self._current:
            try:
                self._current = next(self._pieces)
            except StopIteration:
                return 0
        n = min(len(buffer), len(self._current))
        if self._fail_after is not None:
            n = min(n, self._fail_after - self.sent)
        buffer[:n] = self._current[:n]
        self._current = self._current[n:]
        self.sent += n
        return n


def put_stream(client, url, stream, headers, content_type, content_length=None):
    """PUT a body read from ``stream`` as the server reads it: with the given
    Content-Length, or chunked (no length) when it is None."""
    environ = {"wsgi.input": stream, "wsgi.input_terminated": True, "CONTENT_TYPE": content_type}
    if content_length is None:
        headers = {**headers, "Transfer-Encoding": "chunked"}
    else:
        environ["CONTENT_LENGTH"] = str(content_length)
    return client.put(url, headers=headers, environ_overrides=environ)


def pattern(size, chunk=64 * 1024):
    block = bytes(range(256)) * (chunk // 256)
    while size > 0:
        yield block[:size]
        size -= len(block)


def sha256_of(size):
    digest = hashlib.sha256()
    for piece in pattern(size):
        digest.update(piece)
    return digest.hexdigest()


# --- round trips -----------------------------------------------------------------------


def test_multipart_round_trip(client, editor, dataset, storage):
    content = b"city,temp\nOslo,3\n"
    response = multipart(client, editor.headers, dataset, content, note="ignored")
    assert response.status_code == 200
    body = response.get_json()
    assert body["id"] == dataset["id"] and body["name"] == dataset["name"]
    file = body["file"]
    assert file["filename"] == "data.csv"
    assert file["content_type"] == "text/csv"
    assert file["size_bytes"] == len(content)
    assert file["sha256"] == hashlib.sha256(content).hexdigest()
    assert file["uploaded_at"] == body["updated_at"]

    download = client.get(file_url(dataset), headers=editor.headers)
    assert download.status_code == 200
    assert download.data == content
    assert download.headers["Content-Type"].startswith("text/csv")
    assert download.headers["Content-Length"] == str(len(content))
    assert download.headers["ETag"] == f'"{file["sha256"]}"'
    assert download.headers["Content-Disposition"] == "attachment; filename=data.csv"
    assert download.headers["Accept-Ranges"] == "bytes"
    assert download.headers["X-Content-Type-Options"] == "nosniff"
    [name] = storage()
    assert name != "data.csv" and len(name) == 32  # a server-generated name


def test_multipart_is_recognised_in_any_letter_case(client, editor, dataset):
    """Media types are case-insensitive: ``Multipart/Form-Data`` is multipart, not a raw
    body stored whole with its framing."""
    content = b"city,temp\nOslo,3\n"
    body = (
        b'--xY\r\nContent-Disposition: form-data; name="file"; filename="data.csv"\r\n'
        b"Content-Type: text/csv\r\n\r\n" + content + b"\r\n--xY--\r\n"
    )
    response = client.put(
        file_url(dataset),
        data=body,
        headers={**editor.headers, "Content-Type": "Multipart/Form-Data; boundary=xY"},
    )
    assert response.status_code == 200
    assert response.get_json()["file"]["content_type"] == "text/csv"
    assert response.get_json()["file"]["size_bytes"] == len(content)
    assert client.get(file_url(dataset), headers=editor.headers).data == content


def test_raw_round_trip_keeps_content_type_and_filename(client, editor, dataset):
    content = b'{"a": 1}'
    response = client.put(
        f"{file_url(dataset)}?filename=report.json",
        data=content,
        content_type="application/json",
        headers=editor.headers,
    )
    assert response.status_code == 200
    file = response.get_json()["file"]
    assert (file["filename"], file["content_type"], file["size_bytes"]) == (
        "report.json",
        "application/json",
        len(content),
    )
    assert file["sha256"] == hashlib.sha256(content).hexdigest()
    download = client.get(file_url(dataset), headers=editor.headers)
    assert download.data == content
    assert download.headers["Content-Type"] == "application/json"


def test_raw_without_name_or_type_gets_defaults(client, editor, dataset):
    response = client.put(file_url(dataset), data=b"\x00\x01", headers=editor.headers)
    assert response.status_code == 200
    file = response.get_json()["file"]
    assert file["filename"] == f"dataset-{dataset['id']}"
    assert file["content_type"] == "application/octet-stream"


# --- empty and form-encoded bodies ------------------------------------------------------

OLD = b"city,temp\nOslo,3\n"
EMPTY_FILE = {"detail": "File is empty"}
FORM_ENCODED = {
    "detail": "Send the file raw (curl --data-binary with its Content-Type) or as "
    "multipart/form-data, not form-encoded"
}


@pytest.fixture
def with_old_file(client, editor, dataset, storage):
    """The dataset with a file; returns a check that nothing about it has changed."""
    assert (
        upload(
            client,
            editor.headers,
            dataset["id"],
            OLD,
            content_type="text/csv",
            query_string={"filename": "old.csv"},
        ).status_code
        == 200
    )
    before = client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()
    stored = storage()

    def unchanged():
        assert client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json() == before
        download = client.get(file_url(dataset), headers=editor.headers)
        assert download.status_code == 200
        assert download.data == OLD
        assert hashlib.sha256(download.data).hexdigest() == before["file"]["sha256"]
        assert download.headers["ETag"] == f'"{before["file"]["sha256"]}"'
        assert download.headers["Content-Type"].startswith("text/csv")
        assert storage() == stored  # the old file, and no temporary file left

    return unchanged


def empty_multipart(boundary="b0undary"):
    return [
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="a.csv"\r\nContent-Type: text/csv\r\n\r\n'.encode(),
        f"\r\n--{boundary}--\r\n".encode(),
    ], f"multipart/form-data; boundary={boundary}"


@pytest.mark.parametrize(
    "how",
    [
        "no body",
        "Content-Length: 0",
        "chunked, no bytes",
        "multipart, empty part",
        "multipart, empty part and other fields",
        "chunked multipart, empty part",
    ],
)
def test_an_empty_file_is_400_and_the_old_file_stays(client, editor, dataset, with_old_file, how):
    url, headers = file_url(dataset), editor.headers
    if how == "no body":
        response = client.put(url, headers=headers)
    elif how == "Content-Length: 0":
        response = put_stream(client, url, io.BytesIO(b""), headers, "text/csv", content_length=0)
    elif how == "chunked, no bytes":
        response = put_stream(client, url, GeneratedStream([]), headers, "text/csv")
    elif how == "multipart, empty part":
        response = multipart(client, headers, dataset, b"")
    elif how == "multipart, empty part and other fields":
        response = multipart(client, headers, dataset, b"", note="not the file")
    else:
        pieces, content_type = empty_multipart()
        response = put_stream(client, url, GeneratedStream(pieces), headers, content_type)
    assert response.status_code == 400
    assert response.get_json() == EMPTY_FILE
    with_old_file()


def test_an_empty_file_is_400_on_a_dataset_without_a_file(client, editor, dataset, storage):
    response = upload(client, editor.headers, dataset["id"], b"")
    assert (response.status_code, response.get_json()) == (400, EMPTY_FILE)
    assert client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()["file"] is None
    assert storage() == []


def test_a_one_byte_file_is_a_file(client, editor, dataset):
    for response in (
        upload(client, editor.headers, dataset["id"], b"\n"),
        multipart(client, editor.headers, dataset, b"\n"),
    ):
        assert response.status_code == 200
        assert response.get_json()["file"]["size_bytes"] == 1
        assert response.get_json()["file"]["sha256"] == hashlib.sha256(b"\n").hexdigest()


@pytest.mark.parametrize(
    "content_type",
    [
        "application/x-www-form-urlencoded",
        "application/x-www-form-urlencoded; charset=utf-8",
        "Application/X-WWW-Form-URLEncoded",
    ],
)
@pytest.mark.parametrize("body", [b"city,tempOslo,3", b""], ids=["body", "empty"])
def test_a_form_encoded_body_is_415_and_the_old_file_stays(
    client, editor, dataset, with_old_file, content_type, body
):
    response = client.put(
        file_url(dataset),
        data=body,
        headers=editor.headers,
        environ_overrides={"CONTENT_TYPE": content_type},
    )
    assert response.status_code == 415
    assert response.get_json() == FORM_ENCODED
    assert response.headers["Content-Type"] == "application/json"
    with_old_file()


def test_curl_d_at_file_is_refused_before_the_body_is_read(client, editor, dataset, with_old_file):
    # What curl -d @file sends: the file's lines run together, form-encoded.
    response = client.put(file_url(dataset), data={"city,tempOslo,3": ""}, headers=editor.headers)
    assert (response.status_code, response.get_json()) == (415, FORM_ENCODED)
    stream = GeneratedStream([b"city,tempOslo,3"] * 10)
    response = put_stream(
        client, file_url(dataset), stream, editor.headers, "application/x-www-form-urlencoded"
    )
    assert (response.status_code, response.get_json()) == (415, FORM_ENCODED)
    assert stream.sent == 0
    with_old_file()


@pytest.mark.parametrize(
    "content_type",
    [
        "text/csv",
        "application/octet-stream",
        "application/json",
        "text/plain",
        "application/xml",
        "multipart/mixed",
        "application/x-www-form-urlencoded-csv",
        "x-custom/anything",
    ],
)
def test_other_content_types_are_stored_raw_with_their_type(client, editor, dataset, content_type):
    content = b"a=1&b=2\ncity,temp\n"
    response = upload(client, editor.headers, dataset["id"], content, content_type=content_type)
    assert response.status_code == 200
    file = response.get_json()["file"]
    assert (file["content_type"], file["size_bytes"]) == (content_type, len(content))
    download = client.get(file_url(dataset), headers=editor.headers)
    assert download.data == content
    assert download.headers["Content-Type"].split(";")[0] == content_type


def test_a_new_upload_keeps_the_previous_file_as_a_version(client, editor, dataset, storage):
    assert upload(client, editor.headers, dataset["id"], b"one").status_code == 200
    [first] = storage()
    response = upload(client, editor.headers, dataset["id"], b"two")
    assert (response.status_code, response.get_json()["current_version"]) == (200, 2)
    assert sorted(storage()) == sorted([first, *(set(storage()) - {first})])
    assert len(storage()) == 2
    assert client.get(file_url(dataset), headers=editor.headers).data == b"two"
    old = client.get(f"/api/v1/datasets/{dataset['id']}/versions/1/file", headers=editor.headers)
    assert (old.status_code, old.data) == (200, b"one")


def test_download_without_a_file_is_404(client, editor, dataset):
    response = client.get(file_url(dataset), headers=editor.headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "File not found"})


# --- conditional and range requests ----------------------------------------------------


def test_range_request_is_206_with_the_right_bytes(client, editor, dataset):
    content = bytes(range(200))
    upload(client, editor.headers, dataset["id"], content)
    response = client.get(file_url(dataset), headers={**editor.headers, "Range": "bytes=10-19"})
    assert response.status_code == 206
    assert response.data == content[10:20]
    assert response.headers["Content-Range"] == "bytes 10-19/200"
    assert response.headers["Content-Length"] == "10"
    tail = client.get(file_url(dataset), headers={**editor.headers, "Range": "bytes=-5"})
    assert (tail.status_code, tail.data) == (206, content[-5:])


def test_unsatisfiable_range_is_416_json(client, editor, dataset):
    upload(client, editor.headers, dataset["id"], b"short")
    response = client.get(file_url(dataset), headers={**editor.headers, "Range": "bytes=50-60"})
    assert response.status_code == 416
    assert response.get_json() == {"detail": "Requested Range Not Satisfiable"}
    assert response.headers["Content-Range"] == "bytes */5"


def test_if_none_match_is_304(client, editor, dataset):
    body = upload(client, editor.headers, dataset["id"], b"cache me").get_json()
    etag = f'"{body["file"]["sha256"]}"'
    response = client.get(file_url(dataset), headers={**editor.headers, "If-None-Match": etag})
    assert response.status_code == 304
    assert response.data == b""
    assert response.headers["ETag"] == etag
    other = client.get(file_url(dataset), headers={**editor.headers, "If-None-Match": '"nope"'})
    assert (other.status_code, other.data) == (200, b"cache me")


def test_if_range_with_a_stale_etag_sends_everything(client, editor, dataset):
    upload(client, editor.headers, dataset["id"], b"0123456789")
    response = client.get(
        file_url(dataset), headers={**editor.headers, "Range": "bytes=0-1", "If-Range": '"stale"'}
    )
    assert (response.status_code, response.data) == (200, b"0123456789")


PAST = "Wed, 21 Oct 2015 07:28:00 GMT"
FUTURE = "Fri, 01 Jan 2100 00:00:00 GMT"
SIXTEEN = b"0123456789abcdef"


@pytest.mark.parametrize(
    "headers, status, body",
    [
        # Preconditions come before the Range (RFC 9110 13.2.2).
        ({"If-None-Match": "*", "Range": "bytes=4-4"}, 304, b""),
        ({"If-None-Match": "ETAG", "Range": "bytes=4-4"}, 304, b""),
        ({"If-None-Match": '"other"', "Range": "bytes=4-4"}, 206, b"4"),
        ({"If-Modified-Since": FUTURE, "Range": "bytes=4-4"}, 304, b""),
        ({"If-Unmodified-Since": PAST}, 412, None),
        ({"If-Unmodified-Since": PAST, "Range": "bytes=0-1"}, 412, None),
        ({"If-Unmodified-Since": FUTURE, "Range": "bytes=0-1"}, 206, b"01"),
        ({"If-Match": '"other"'}, 412, None),
        ({"If-Match": "W/ETAG"}, 412, None),  # If-Match compares strongly
        ({"If-Match": '"other"', "If-None-Match": "*"}, 412, None),
        ({"If-Match": "ETAG", "If-Unmodified-Since": PAST}, 200, SIXTEEN),  # If-Match wins
        ({"If-Match": "*", "Range": "bytes=-2"}, 206, b"ef"),
        ({"If-None-Match": '"other"', "If-Modified-Since": FUTURE}, 200, SIXTEEN),
        # Several ranges: the whole file, not a 416.
        ({"Range": "bytes=0-1,2-3"}, 200, SIXTEEN),
        ({"Range": "bytes=0-1,1-3"}, 200, SIXTEEN),
        ({"Range": "bytes=4-4"}, 206, b"4"),
        # If-Range compares strongly: a weak ETag never matches.
        ({"Range": "bytes=0-1", "If-Range": "W/ETAG"}, 200, SIXTEEN),
        ({"Range": "bytes=0-1", "If-Range": "ETAG"}, 206, b"01"),
        ({"Range": "bytes=0-1", "If-Range": PAST}, 200, SIXTEEN),
        ({"Range": "bytes=0-1", "If-Range": "LAST_MODIFIED"}, 206, b"01"),
        ({"If-Range": '"stale"'}, 200, SIXTEEN),
    ],
)
def test_preconditions_come_before_the_range(client, editor, dataset, headers, status, body):
    """Every combination answers a body of its Content-Length (on both backends)."""
    upload(client, editor.headers, dataset["id"], SIXTEEN)
    plain = client.get(file_url(dataset), headers=editor.headers)
    values = {
        "ETAG": plain.headers["ETag"],
        "W/ETAG": "W/" + plain.headers["ETag"],
        "LAST_MODIFIED": plain.headers["Last-Modified"],
    }
    headers = {name: values.get(value, value) for name, value in headers.items()}
    response = client.get(file_url(dataset), headers={**editor.headers, **headers})
    assert response.status_code == status
    if status == 412:
        assert response.get_json() == {"detail": "Precondition Failed"}
    else:
        assert response.data == body
    if status != 304:
        assert response.headers["Content-Length"] == str(len(response.data))
    if status == 206:
        start = SIXTEEN.index(body)
        assert response.headers["Content-Range"] == f"bytes {start}-{start + len(body) - 1}/16"
    else:
        assert "Content-Range" not in response.headers
    head = client.head(file_url(dataset), headers={**editor.headers, **headers})
    assert head.status_code == status and head.data == b""


@pytest.mark.parametrize(
    "content_type",
    [
        "text/csv; charset=ISO-8859-1",
        "text/csv",
        "text/plain",
        "text/csv;charset=utf-8",
    ],
)
def test_a_text_content_type_is_sent_back_unchanged(client, editor, dataset, content_type):
    """No "; charset=utf-8" added to a text/* type: clients would decode by it."""
    upload(
        client, editor.headers, dataset["id"], "Tromsø".encode("latin-1"), content_type=content_type
    )
    download = client.get(file_url(dataset), headers=editor.headers)
    assert download.headers.getlist("Content-Type") == [content_type]
    ranged = client.get(file_url(dataset), headers={**editor.headers, "Range": "bytes=0-1"})
    assert (ranged.status_code, ranged.headers["Content-Type"]) == (206, content_type)


# --- the size limit --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["raw", "multipart"])
def test_exactly_the_limit_is_accepted_without_content_length(client, editor, dataset, kind):
    content = b"q" * LIMIT
    if kind == "multipart":
        pieces = [
            b'--B\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n',
            content,
            b"\r\n--B--\r\n",
        ]
        content_type = "multipart/form-data; boundary=B"
    else:
        pieces, content_type = [content], "application/octet-stream"
    response = put_stream(
        client, file_url(dataset), GeneratedStream(pieces), editor.headers, content_type
    )
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["file"]["size_bytes"] == LIMIT
    assert client.get(file_url(dataset), headers=editor.headers).data == content


def test_exactly_the_limit_is_accepted_raw_and_multipart(client, editor, dataset):
    content = b"x" * LIMIT
    response = upload(client, editor.headers, dataset["id"], content)
    assert response.status_code == 200
    assert response.get_json()["file"]["size_bytes"] == LIMIT
    # The multipart body is larger than the limit; only the file counts.
    response = multipart(client, editor.headers, dataset, b"y" * LIMIT)
    assert response.status_code == 200
    assert response.get_json()["file"]["size_bytes"] == LIMIT
    assert client.get(file_url(dataset), headers=editor.headers).data == b"y" * LIMIT


@pytest.mark.parametrize("how", ["raw", "multipart", "chunked raw", "chunked multipart"])
def test_one_byte_over_the_limit_is_400_and_the_old_file_stays(
    client, editor, dataset, storage, how
):
    assert upload(client, editor.headers, dataset["id"], b"old").status_code == 200
    before = client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()
    stored = storage()
    content = b"z" * (LIMIT + 1)
    if how == "raw":
        response = upload(client, editor.headers, dataset["id"], content)
    elif how == "multipart":
        response = multipart(client, editor.headers, dataset, content)
    else:
        # No Content-Length: the limit is enforced while reading.
        boundary = "b0undary"
        if how == "chunked multipart":
            pieces = [
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                f'filename="a.bin"\r\n\r\n'.encode(),
                content,
                f"\r\n--{boundary}--\r\n".encode(),
            ]
            content_type = f"multipart/form-data; boundary={boundary}"
        else:
            pieces, content_type = [content], "application/octet-stream"
        stream = GeneratedStream(pieces)
        response = put_stream(client, file_url(dataset), stream, editor.headers, content_type)
        assert stream.sent <= LIMIT + 64 * 1024 + 1024  # stopped reading near the limit
    assert response.status_code == 400
    assert response.get_json() == {"detail": "File too large"}
    assert client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json() == before
    assert client.get(file_url(dataset), headers=editor.headers).data == b"old"
    assert storage() == stored


def test_a_body_far_over_the_limit_is_refused_before_reading(client, editor, dataset, storage):
    stream = GeneratedStream(pattern(100 * LIMIT))
    response = put_stream(
        client,
        file_url(dataset),
        stream,
        editor.headers,
        "application/octet-stream",
        content_length=100 * LIMIT,
    )
    assert (response.status_code, response.get_json()) == (400, {"detail": "File too large"})
    assert stream.sent == 0
    assert storage() == []


# --- failures leave nothing behind -----------------------------------------------------


def test_truncated_raw_body_leaves_nothing(client, editor, dataset, storage):
    upload(client, editor.headers, dataset["id"], b"old")
    stored = storage()
    response = put_stream(
        client,
        file_url(dataset),
        io.BytesIO(b"only part"),
        editor.headers,
        "text/plain",
        content_length=500,
    )
    assert response.status_code == 400
    assert response.get_json() == {"detail": "Request body ended before its Content-Length"}
    assert storage() == stored
    assert client.get(file_url(dataset), headers=editor.headers).data == b"old"


def test_stream_error_mid_upload_leaves_nothing(client, editor, dataset, storage):
    stream = GeneratedStream(pattern(LIMIT), fail_after=300)
    response = put_stream(
        client, file_url(dataset), stream, editor.headers, "text/plain", content_length=LIMIT
    )
    assert response.status_code == 400
    assert response.get_json() == {"detail": "Request body ended before its Content-Length"}
    assert storage() == []
    assert client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()["file"] is None


def test_truncated_multipart_body_leaves_nothing(client, editor, dataset, storage):
    boundary = "xyz"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n'
        "partial data without the closing boundary"
    ).encode()
    response = client.put(
        file_url(dataset),
        data=body,
        headers=editor.headers,
        content_type=f"multipart/form-data; boundary={boundary}",
    )
    assert (response.status_code, response.get_json()) == (
        400,
        {"detail": "Malformed multipart body"},
    )
    assert storage() == []
    assert client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()["file"] is None


def test_multipart_without_a_file_field_is_422(client, editor, dataset, storage):
    response = client.put(
        file_url(dataset),
        data={"other": (io.BytesIO(b"x"), "x.txt")},
        headers=editor.headers,
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            {"loc": ["body", "file"], "msg": "field required", "type": "value_error.missing"}
        ]
    }
    assert storage() == []


def test_multipart_without_boundary_is_400(client, editor, dataset):
    response = client.put(
        file_url(dataset), data=b"--x--", content_type="multipart/form-data", headers=editor.headers
    )
    assert (response.status_code, response.get_json()) == (
        400,
        {"detail": "Malformed multipart body: no boundary"},
    )


def test_upload_to_a_dataset_deleted_meanwhile_leaves_nothing(
    client, editor, dataset, storage, app, monkeypatch
):
    from datahub.app.extensions import db
    from datahub.platform.storage import get_storage

    with app.app_context():
        backend_class = type(get_storage())
    real_save = backend_class.save

    def save_then_delete_row(self, chunks, max_size=None):
        stored = real_save(self, chunks, max_size)
        db.session.execute(db.text("DELETE FROM datasets WHERE id = :id"), {"id": dataset["id"]})
        db.session.commit()
        return stored

    monkeypatch.setattr(backend_class, "save", save_then_delete_row)
    response = upload(client, editor.headers, dataset["id"], b"late")
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    assert storage() == []


# --- file names ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sent, kept, disposition",
    [
        ("../../etc/passwd", "passwd", "attachment; filename=passwd"),
        (
            "données été.csv",
            "données été.csv",
            "attachment; filename=\"donnees ete.csv\"; filename*=UTF-8''donn%C3%A9es%20%C3%A9t%C3%A9.csv",
        ),
        ("..", "dataset-{id}", "attachment; filename=dataset-{id}"),
    ],
)
def test_client_file_names_are_metadata_only(
    client, editor, dataset, storage, sent, kept, disposition
):
    kept = kept.format(id=dataset["id"])
    disposition = disposition.format(id=dataset["id"])
    response = multipart(client, editor.headers, dataset, b"data", filename=sent)
    assert response.status_code == 200
    assert response.get_json()["file"]["filename"] == kept
    [name] = storage()
    assert len(name) == 32 and all(c in "0123456789abcdef" for c in name)
    download = client.get(file_url(dataset), headers=editor.headers)
    assert download.headers["Content-Disposition"] == disposition


@pytest.mark.parametrize(
    "sent, kept, disposition",
    [
        ("../../x/y.csv", "y.csv", "attachment; filename=y.csv"),
        ("..\\..\\boot.ini", "boot.ini", "attachment; filename=boot.ini"),
        (
            'résumé "final".txt',
            'résumé "final".txt',
            'attachment; filename="resume \\"final\\".txt"; '
            "filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.txt",
        ),
    ],
)
def test_raw_upload_filename_parameter_is_cleaned(client, editor, dataset, sent, kept, disposition):
    response = client.put(
        file_url(dataset), query_string={"filename": sent}, data=b"d", headers=editor.headers
    )
    assert response.get_json()["file"]["filename"] == kept
    download = client.get(file_url(dataset), headers=editor.headers)
    assert download.headers["Content-Disposition"] == disposition


# --- content types -------------------------------------------------------------------

MEDIA_TYPE_ERROR = {
    "msg": "value is not a valid media type (RFC 9110)",
    "type": "value_error.media_type",
}
BAD_MEDIA_TYPES = [
    "text/csv\x00",
    "text/\x01csv",
    "text/csv; charset=utf-8\x1b[2J",
    "text/csv\x7f",
    "text/csv\x85",
    'text/csv; q="\x0b"',
    "text/csv\tx",
    "textcsv",
    "text/csv;a=b c",
    "tëxt/csv",
    "/csv",
    "text/",
]


@pytest.mark.parametrize("content_type", BAD_MEDIA_TYPES)
@pytest.mark.parametrize("how", ["raw", "multipart"])
def test_an_invalid_content_type_is_422_and_the_old_file_stays(
    client, editor, dataset, storage, how, content_type
):
    assert (
        upload(client, editor.headers, dataset["id"], b"old", content_type="text/plain").status_code
        == 200
    )
    before = client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json()
    stored = storage()
    if how == "raw":
        # Through the environ: werkzeug's test client would refuse some of these headers.
        response = client.put(
            file_url(dataset),
            data=b"new",
            headers=editor.headers,
            environ_overrides={"CONTENT_TYPE": content_type},
        )
        loc = ["header", "Content-Type"]
    else:
        boundary = "b0undary"
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="a.csv"\r\nContent-Type: {content_type}\r\n\r\nnew\r\n'
            f"--{boundary}--\r\n"
        ).encode()
        response = client.put(
            file_url(dataset),
            data=body,
            headers=editor.headers,
            content_type=f"multipart/form-data; boundary={boundary}",
        )
        loc = ["body", "file", "Content-Type"]
    assert response.status_code == 422
    assert response.get_json() == {"detail": [{"loc": loc, **MEDIA_TYPE_ERROR}]}
    assert client.get(f"{URL}{dataset['id']}", headers=editor.headers).get_json() == before
    download = client.get(file_url(dataset), headers=editor.headers)
    assert (download.status_code, download.data) == (200, b"old")
    assert storage() == stored


@pytest.mark.parametrize("how", ["raw", "multipart"])
def test_a_content_type_over_255_characters_is_422(client, editor, dataset, storage, how):
    content_type = "text/csv; note=" + "x" * 241
    assert len(content_type) == 256
    if how == "raw":
        response = upload(client, editor.headers, dataset["id"], b"new", content_type=content_type)
        loc = ["header", "Content-Type"]
    else:
        response = multipart(client, editor.headers, dataset, b"new", content_type=content_type)
        loc = ["body", "file", "Content-Type"]
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            {
                "loc": loc,
                "msg": "ensure this value has at most 255 characters",
                "type": "value_error.any_str.max_length",
            }
        ]
    }
    assert storage() == []


@pytest.mark.parametrize(
    "content_type",
    [
        "text/csv",
        "text/csv; charset=utf-8",
        'text/plain;format="flowed \\"x\\""',
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "text/csv\t;\tcharset=utf-8",
        "x-custom/y+z; a=b;",
    ],
)
@pytest.mark.parametrize("how", ["raw", "multipart"])
def test_valid_content_types_are_kept_and_sent_back(client, editor, dataset, how, content_type):
    if how == "raw":
        response = upload(client, editor.headers, dataset["id"], b"new", content_type=content_type)
    else:
        response = multipart(client, editor.headers, dataset, b"new", content_type=content_type)
    assert response.status_code == 200
    assert response.get_json()["file"]["content_type"] == content_type
    download = client.get(file_url(dataset), headers=editor.headers)
    assert download.status_code == 200 and download.data == b"new"


# --- bounded memory --------------------------------------------------------------------


@pytest.mark.parametrize("config_overrides", [{"MAX_CONTENT_LENGTH": 64 * 1024 * 1024}])
@pytest.mark.parametrize("kind", ["raw", "multipart"])
def test_memory_does_not_grow_with_file_size(client, editor, dataset, kind, config_overrides):
    peaks = {}
    for size in (4 * 1024 * 1024, 48 * 1024 * 1024):
        if kind == "multipart":
            pieces = [
                b'--B\r\nContent-Disposition: form-data; name="file"; filename="big.bin"'
                b"\r\nContent-Type: application/x-big\r\n\r\n",
                *pattern(size),
                b"\r\n--B--\r\n",
            ]
            content_type = "multipart/form-data; boundary=B"
        else:
            pieces, content_type = pattern(size), "application/x-big"
        tracemalloc.start()
        try:
            response = put_stream(
                client, file_url(dataset), GeneratedStream(pieces), editor.headers, content_type
            )
            peaks[size] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert response.status_code == 200, response.get_json()
        file = response.get_json()["file"]
        assert (file["size_bytes"], file["sha256"]) == (size, sha256_of(size))
        assert file["content_type"] == "application/x-big"
    # Twelve times the data, yet the peak stays small and about the same.
    assert max(peaks.values()) < 2 * 1024 * 1024, peaks
    assert peaks[48 * 1024 * 1024] < peaks[4 * 1024 * 1024] + 512 * 1024, peaks


@pytest.mark.parametrize(
    "content_type, file_name",
    [
        ("text/csv\x00", "ok.csv"),
        ("text/csv\r\nX-Injected: 1", "ok.csv"),
        ("text/\x85", "ok.csv"),
        ("text/csv", "out\x1c\n.csv"),
        ("text/csv", "\x00"),
    ],
)
def test_values_stored_before_the_checks_still_download(
    app, client, editor, dataset, content_type, file_name
):
    """Rows written before content types and names were checked: the download sends
    application/octet-stream and a cleaned name instead of failing with a 500."""
    from datahub.app.extensions import db

    assert upload(client, editor.headers, dataset["id"], b"kept").status_code == 200
    with app.app_context():
        db.session.execute(
            db.text(
                "UPDATE datasets SET file_content_type = :type, file_name = :name WHERE id = :id"
            ),
            {
                "type": content_type.replace("\x00", "\x01")
                if db.engine.name == "postgresql"
                else content_type,
                "name": file_name.replace("\x00", "") or "x",
                "id": dataset["id"],
            },
        )
        db.session.commit()
    response = client.get(file_url(dataset), headers=editor.headers)
    assert (response.status_code, response.data) == (200, b"kept")
    assert "X-Injected" not in response.headers
    if content_type != "text/csv":
        assert response.headers["Content-Type"] == "application/octet-stream"
    assert not any(ord(c) < 32 for c in response.headers["Content-Disposition"])
