"""Files on S3 (a real moto server): multipart uploads that leave nothing behind when they
fail, ranged downloads that fetch only their bytes, presigned downloads, an unreachable
S3, and the readers that need a local file (preview, pipelines). The tests every backend
passes are in test_files.py (parametrized over ``backend``)."""

import hashlib
import logging
import time
import tracemalloc
import urllib.request

import pytest

from datahub.datasets.storage import delete_quietly
from datahub.pipelines.execute import NO_ROOM_FOR_INPUTS
from datahub.platform.storage import get_storage
from datahub.platform.storage.s3 import S3Storage, new_key
from datahub.platform.storage.s3_transfer import Upload
from tests.datasets.test_files import GeneratedStream, pattern, put_stream, sha256_of
from tests.e2e.tcp_proxy import TcpProxy
from tests.pipelines.helpers import create_pipeline, run_now, source
from tests.resources import create_dataset, upload
from tests.small_disk import mounted_tmpfs, unmount
from tests.workers import free_port

MIB = 1024 * 1024
PART = 5 * MIB
LIMIT = 16 * MIB
CONCURRENCY = 2


@pytest.fixture
def config_overrides(s3_server, s3_prefix):
    return s3_server.config(
        s3_prefix, S3_PART_SIZE=PART, S3_UPLOAD_CONCURRENCY=CONCURRENCY, MAX_CONTENT_LENGTH=LIMIT
    )


@pytest.fixture
def editor(actors):
    return actors["editor"]


@pytest.fixture
def dataset(client, editor):
    return create_dataset(client, editor.headers, "on s3")


@pytest.fixture
def listing(s3_server, s3_prefix):
    return lambda: s3_server.listing(s3_prefix)


def file_url(dataset):
    return f"/api/v1/datasets/{dataset['id']}/file"


def put_pattern(client, editor, dataset, size, fail_after=None):
    return put_stream(
        client,
        file_url(dataset),
        GeneratedStream(pattern(size), fail_after),
        editor.headers,
        "application/x-big",
        content_length=None if fail_after is None else size,
    )


def content_of(size):
    return b"".join(pattern(size))


def test_a_file_of_more_than_two_parts_is_one_object(
    client, editor, dataset, listing, s3_server, s3_prefix
):
    size = 2 * PART + 123_457
    response = put_pattern(client, editor, dataset, size)
    assert response.status_code == 200, response.get_json()
    file = response.get_json()["file"]
    assert (file["size_bytes"], file["sha256"]) == (size, sha256_of(size))
    [name] = listing()  # one object, no incomplete upload
    assert len(name) == 32
    head = s3_server.client().head_object(Bucket=s3_server.bucket, Key=f"{s3_prefix}/{name}")
    assert head["ContentLength"] == size
    assert head["ETag"].strip('"').endswith("-3")  # a multipart upload of three parts
    download = client.get(file_url(dataset), headers=editor.headers)
    assert download.status_code == 200 and download.data == content_of(size)


def test_a_file_under_one_part_is_a_single_put(
    client, editor, dataset, listing, s3_server, s3_prefix
):
    assert upload(client, editor.headers, dataset["id"], b"small").status_code == 200
    [name] = listing()
    head = s3_server.client().head_object(Bucket=s3_server.bucket, Key=f"{s3_prefix}/{name}")
    assert "-" not in head["ETag"]


@pytest.mark.parametrize("how", ["too large", "client gone", "storage error"])
def test_a_failed_multipart_upload_leaves_the_old_file_and_nothing_else(
    app, client, editor, dataset, listing, monkeypatch, how
):
    old = content_of(PART + 10)
    assert put_pattern(client, editor, dataset, PART + 10).status_code == 200
    before = client.get(f"/api/v1/datasets/{dataset['id']}", headers=editor.headers).get_json()
    kept = listing()
    if how == "too large":
        response = put_pattern(client, editor, dataset, LIMIT + 1)  # chunked: 3 parts first
        expected = (400, {"detail": "File too large"})
    elif how == "client gone":
        response = put_pattern(client, editor, dataset, 3 * PART, fail_after=2 * PART + 7)
        expected = (400, {"detail": "Request body ended before its Content-Length"})
    else:
        real_upload_part = None

        def failing_client_call(storage):
            nonlocal real_upload_part
            client_ = storage.client
            real_upload_part = client_.upload_part

            def upload_part(**kwargs):
                if kwargs["PartNumber"] == 2:
                    # An S3 that fails: the part goes to an endpoint nobody listens on.
                    dead = S3Storage(storage.bucket, endpoint_url=f"http://127.0.0.1:{free_port()}")
                    return dead.client.upload_part(**kwargs)
                return real_upload_part(**kwargs)

            monkeypatch.setattr(client_, "upload_part", upload_part)

        with app.app_context():
            failing_client_call(get_storage())
        response = put_pattern(client, editor, dataset, 3 * PART)
        expected = (503, {"detail": "Storage unavailable"})
    assert (response.status_code, response.get_json()) == expected
    assert listing() == kept  # the old object; no new object, no incomplete upload
    assert (
        client.get(f"/api/v1/datasets/{dataset['id']}", headers=editor.headers).get_json() == before
    )
    assert client.get(file_url(dataset), headers=editor.headers).data == old


def test_what_an_abort_could_not_remove_goes_once_s3_answers(s3_server, s3_prefix):
    """An object stored although its answer was lost, and a multipart upload with a part:
    S3 is cut before their abort, which cannot remove them then; once S3 answers again
    they are removed within seconds, not left for the sweep."""
    proxy = TcpProxy("127.0.0.1", int(s3_server.url.rsplit(":", 1)[1]))
    proxy.up()
    try:
        storage = S3Storage(
            s3_server.bucket, s3_prefix, endpoint_url=f"http://127.0.0.1:{proxy.port}"
        )
        stored = Upload(storage, storage.name(new_key()))
        stored.finish(b"stored, its answer lost")
        begun = Upload(storage, storage.name(new_key()))
        begun.send_part(b"a part")
        begun._wait_oldest()
        before = s3_server.listing(s3_prefix)
        assert len(before) == 2
        proxy.down()
        stored.abort()
        begun.abort()
        assert storage.cleanup.pending() == 2
        time.sleep(1.5)  # a round or two of tries while S3 is still cut
        assert s3_server.listing(s3_prefix) == before
        proxy.up()
        deadline = time.monotonic() + 30
        while storage.cleanup.pending() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert storage.cleanup.pending() == 0
        assert s3_server.listing(s3_prefix) == []
    finally:
        proxy.down()


def test_memory_is_bounded_by_the_part_size(client, editor, dataset):
    # Once first: making the boto3 client loads S3's service description (megabytes).
    assert upload(client, editor.headers, dataset["id"], b"warm-up").status_code == 200
    peaks = {}
    for size in (3 * PART, 3 * LIMIT // 4):
        tracemalloc.start()
        try:
            response = put_pattern(client, editor, dataset, size)
            peaks[size] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert response.status_code == 200, response.get_json()
    # The part being gathered and those being sent, whatever the file's size.
    assert max(peaks.values()) < (CONCURRENCY + 1) * PART + 2 * MIB, peaks


# --- ranged and conditional downloads ----------------------------------------------------


@pytest.fixture
def big(client, editor, dataset):
    size = 2 * PART + 999
    response = put_pattern(client, editor, dataset, size)
    assert response.status_code == 200
    return content_of(size), response.get_json()["file"]["sha256"]


@pytest.fixture
def gets(monkeypatch):
    """The byte ranges of the GetObject requests made."""
    made = []
    real = S3Storage.get

    def get(self, name, first=0, last=None):
        made.append((first, last))
        return real(self, name, first, last)

    monkeypatch.setattr(S3Storage, "get", get)
    return made


@pytest.mark.parametrize(
    "header, first, last",
    [
        ("bytes=7340032-7340131", 7340032, 7340131),  # inside the second part
        ("bytes=10485700-", 10485700, None),  # to the end
        ("bytes=-10", None, None),  # the last ten
    ],
)
def test_a_range_gets_only_its_bytes(client, editor, dataset, big, gets, header, first, last):
    content, sha256 = big
    response = client.get(file_url(dataset), headers={**editor.headers, "Range": header})
    assert response.status_code == 206
    if first is None:
        first, last = len(content) - 10, len(content) - 1
    last = len(content) - 1 if last is None else last
    assert response.data == content[first : last + 1]
    assert response.headers["Content-Range"] == f"bytes {first}-{last}/{len(content)}"
    assert response.headers["Content-Length"] == str(last - first + 1)
    assert response.headers["ETag"] == f'"{sha256}"'
    assert gets == [(first, last)]  # one GetObject of exactly these bytes


def test_conditional_downloads(client, editor, dataset, big, gets):
    content, sha256 = big
    etag = f'"{sha256}"'
    full = client.get(file_url(dataset), headers=editor.headers)
    assert (full.status_code, full.data) == (200, content)
    assert full.headers["ETag"] == etag and full.headers["Accept-Ranges"] == "bytes"
    gets.clear()
    cached = client.get(file_url(dataset), headers={**editor.headers, "If-None-Match": etag})
    assert (cached.status_code, cached.data, gets) == (304, b"", [])
    fresh = client.get(
        file_url(dataset), headers={**editor.headers, "Range": "bytes=5-9", "If-Range": etag}
    )
    assert (fresh.status_code, fresh.data) == (206, content[5:10])
    stale = client.get(
        file_url(dataset), headers={**editor.headers, "Range": "bytes=5-9", "If-Range": '"stale"'}
    )
    assert (stale.status_code, stale.data) == (200, content)
    beyond = client.get(
        file_url(dataset), headers={**editor.headers, "Range": f"bytes={len(content)}-"}
    )
    assert beyond.status_code == 416
    assert beyond.get_json() == {"detail": "Requested Range Not Satisfiable"}
    assert beyond.headers["Content-Range"] == f"bytes */{len(content)}"


# --- presigned downloads -------------------------------------------------------------


@pytest.fixture
def presigned_app(app):
    app.config.update(STORAGE_PRESIGNED_DOWNLOADS=True, STORAGE_PRESIGNED_EXPIRES=60)
    return app


@pytest.mark.parametrize(
    "name, content_type", [("data.csv", "text/csv"), ("données été.csv", "text/csv; charset=utf-8")]
)
def test_presigned_downloads(presigned_app, client, editor, dataset, name, content_type):
    content = b"city,temp\nOslo,3\n"
    assert (
        upload(
            client,
            editor.headers,
            dataset["id"],
            content,
            content_type=content_type,
            query_string={"filename": name},
        ).status_code
        == 200
    )
    presigned_app.config["STORAGE_PRESIGNED_DOWNLOADS"] = False
    ours = client.get(file_url(dataset), headers=editor.headers)
    presigned_app.config["STORAGE_PRESIGNED_DOWNLOADS"] = True
    response = client.get(file_url(dataset), headers=editor.headers)
    assert response.status_code == 302
    assert response.headers["Cache-Control"] == "no-store"
    with urllib.request.urlopen(response.headers["Location"], timeout=10) as s3:
        assert s3.read() == content
        assert s3.headers["Content-Type"] == ours.headers["Content-Type"]
        assert s3.headers["Content-Disposition"] == ours.headers["Content-Disposition"]
    # A revalidation is answered here, 304, not sent to S3 to get S3's own ETag.
    cached = client.get(
        file_url(dataset), headers={**editor.headers, "If-None-Match": ours.headers["ETag"]}
    )
    assert (cached.status_code, cached.headers["ETag"]) == (304, ours.headers["ETag"])
    # Permissions are checked first.
    assert client.get(file_url(dataset)).status_code == 401


# --- an unreachable S3 -----------------------------------------------------------------


def test_an_unreachable_s3_is_503_json_and_logged(app, client, editor, dataset, caplog):
    assert upload(client, editor.headers, dataset["id"], b"a,b\n1,2\n").status_code == 200
    before = client.get(f"/api/v1/datasets/{dataset['id']}", headers=editor.headers).get_json()
    live = app.extensions["datahub.storage"]
    etag = client.get(file_url(dataset), headers=editor.headers).headers["ETag"]
    app.extensions["datahub.storage"] = S3Storage(
        live.bucket, live.prefix, endpoint_url=f"http://127.0.0.1:{free_port()}"
    )
    # A revalidation needs no S3: still 304.
    assert (
        client.get(file_url(dataset), headers={**editor.headers, "If-None-Match": etag}).status_code
        == 304
    )
    unavailable = {"detail": "Storage unavailable"}
    with caplog.at_level(logging.ERROR, logger="datahub.storage"):
        for response in (
            upload(client, editor.headers, dataset["id"], b"new"),
            put_pattern(client, editor, dataset, PART + 1),
            client.get(file_url(dataset), headers=editor.headers),
            client.get(f"/api/v1/datasets/{dataset['id']}/preview", headers=editor.headers),
        ):
            assert (response.status_code, response.get_json()) == (503, unavailable)
            assert response.headers["Retry-After"] == "1"
    assert any("S3" in record.getMessage() for record in caplog.records)
    assert all(record.exc_info is None for record in caplog.records)
    app.extensions["datahub.storage"] = live
    after = client.get(f"/api/v1/datasets/{dataset['id']}", headers=editor.headers).get_json()
    assert after == before


def test_s3_lost_between_the_head_and_the_get_is_a_503(app, client, editor, dataset, s3_server):
    """A download asks S3 for the object's size (HEAD), then for its bytes: S3 lost in
    between is a 503 with Retry-After, not an error once the response has begun."""
    assert upload(client, editor.headers, dataset["id"], b"a,b\n1,2\n").status_code == 200
    proxy = TcpProxy("127.0.0.1", int(s3_server.url.rsplit(":", 1)[1]))
    proxy.up()
    with app.app_context():
        live = get_storage()
    storage = S3Storage(live.bucket, live.prefix, endpoint_url=f"http://127.0.0.1:{proxy.port}")
    opened = storage.open

    def open_then_cut(key):
        reader = opened(key)
        proxy.down()
        return reader

    storage.open = open_then_cut
    app.extensions["datahub.storage"] = storage
    try:
        for headers in ({}, {"Range": "bytes=2-"}):
            if headers:
                proxy.up()  # cut by the first download's open
            response = client.get(file_url(dataset), headers={**editor.headers, **headers})
            assert (response.status_code, response.get_json()) == (
                503,
                {"detail": "Storage unavailable"},
            )
            assert response.headers["Retry-After"] == "1"
    finally:
        app.extensions["datahub.storage"] = live
        proxy.down()


def test_a_file_whose_row_is_gone_is_removed_once_s3_answers(app, s3_server, s3_prefix):
    """A stored file to drop (its transaction failed, its version deleted) while S3 does
    not answer is removed once it does."""
    proxy = TcpProxy("127.0.0.1", int(s3_server.url.rsplit(":", 1)[1]))
    proxy.up()
    storage = S3Storage(s3_server.bucket, s3_prefix, endpoint_url=f"http://127.0.0.1:{proxy.port}")
    with app.app_context():
        live = get_storage()
    app.extensions["datahub.storage"] = storage
    try:
        stored = storage.save([b"a,b\n1,2\n"])
        assert s3_server.objects(s3_prefix) == [stored.key]
        proxy.down()
        with app.app_context():
            delete_quietly(stored.key)
        assert storage.cleanup.pending() == 1
        proxy.up()
        deadline = time.monotonic() + 30
        while storage.cleanup.pending() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert s3_server.objects(s3_prefix) == []
    finally:
        app.extensions["datahub.storage"] = live
        proxy.down()


# --- readers of local files: preview and pipelines -------------------------------------


def test_preview_reads_a_temporary_copy_and_removes_it(app, client, editor, dataset, tmp_path):
    app.config["PIPELINE_TEMP_DIR"] = str(tmp_path)
    assert (
        upload(
            client,
            editor.headers,
            dataset["id"],
            b"city,temp\nOslo,3\nBergen,5\n",
            content_type="text/csv",
        ).status_code
        == 200
    )
    response = client.get(
        f"/api/v1/datasets/{dataset['id']}/preview?limit=1", headers=editor.headers
    )
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["rows"] == [["Oslo", 3]]
    assert list(tmp_path.iterdir()) == []  # the copy is gone
    assert upload(client, editor.headers, dataset["id"], b"\x00\x01\x02").status_code == 200
    response = client.get(f"/api/v1/datasets/{dataset['id']}/preview", headers=editor.headers)
    assert response.status_code == 422


def test_a_missing_object_is_404(app, client, editor, dataset, s3_server, s3_prefix):
    body = upload(client, editor.headers, dataset["id"], b"a,b\n1,2\n").get_json()
    [name] = s3_server.objects(s3_prefix)
    s3_server.client().delete_object(Bucket=s3_server.bucket, Key=f"{s3_prefix}/{name}")
    assert body["file"] is not None
    response = client.get(file_url(dataset), headers=editor.headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "File not found"})
    response = client.get(f"/api/v1/datasets/{dataset['id']}/preview", headers=editor.headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset has no file"})


def test_a_pipeline_runs_on_s3_files(app, client, editor, listing, tmp_path):
    app.config["PIPELINE_TEMP_DIR"] = str(tmp_path)
    people = source(client, editor.headers)
    pipeline = create_pipeline(
        client,
        editor.headers,
        people["id"],
        steps=[
            {"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"},
            {"op": "select", "columns": ["name"]},
        ],
    )
    run = run_now(app, client, editor.headers, pipeline["id"])
    assert run["status"] == "succeeded", run
    output = client.get(file_url({"id": run["output_dataset_id"]}), headers=editor.headers)
    assert output.data.decode().splitlines() == ["name", "Ann", "Cid", "Ann"]
    assert len(listing()) == 2  # the source and the output, nothing else
    assert list(tmp_path.iterdir()) == []  # the run's folder and its copies are gone
    rerun = run_now(app, client, editor.headers, pipeline["id"])
    assert rerun["status"] == "succeeded"
    assert len(listing()) == 2  # the new output replaced the old one
    assert (
        hashlib.sha256(output.data).hexdigest()
        == client.get(
            f"/api/v1/datasets/{run['output_dataset_id']}", headers=editor.headers
        ).get_json()["file"]["sha256"]
    )


def test_a_run_whose_inputs_do_not_fit_the_temporary_folder_fails_clearly(
    app, client, editor, listing, tmp_path
):
    small = mounted_tmpfs(tmp_path / "small", "size=64k")
    try:
        app.config["PIPELINE_TEMP_DIR"] = str(small)
        big = source(client, editor.headers, "n\n" + "1234567\n" * 40_000, name="big")
        pipeline = create_pipeline(client, editor.headers, big["id"])
        run = run_now(app, client, editor.headers, pipeline["id"])
        assert (run["status"], run["error"]) == ("failed", NO_ROOM_FOR_INPUTS)
        assert run["output_dataset_id"] is None
        assert list(small.iterdir()) == []  # the partial copy and the run's folder are gone
        assert len(listing()) == 1  # the source only
    finally:
        unmount(small)


# --- configuration ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"STORAGE_URL": "http://bucket/prefix"}, "must be s3://bucket/prefix or file://"),
        ({"STORAGE_URL": "s3://"}, "does not name a valid S3 bucket"),
        ({"STORAGE_URL": "s3://Bad_Bucket/x"}, "does not name a valid S3 bucket"),
        ({"STORAGE_URL": "s3://key:secret@bucket/x"}, "no credentials"),
        ({"STORAGE_URL": "s3://bucket/a/../b"}, "the prefix has an empty, . or .. part"),
        ({"STORAGE_URL": "s3://bucket/x", "S3_PART_SIZE": 1024}, "S3_PART_SIZE must be at least"),
        ({"STORAGE_URL": "s3://bucket/x", "S3_PART_SIZE": 6 * 1024**3}, "at most 5368709120"),
        (
            {
                "STORAGE_URL": "s3://bucket/x",
                "S3_PART_SIZE": 5 * 1024**2,
                "MAX_CONTENT_LENGTH": 100 * 1024**3,
            },
            "use parts of at least 10737419 bytes",
        ),
        ({"STORAGE_URL": "s3://bucket/x", "S3_UPLOAD_CONCURRENCY": 0}, "at least 1"),
        (
            {"STORAGE_URL": "s3://bucket/x", "S3_ENDPOINT_URL": "127.0.0.1:9000"},
            "S3_ENDPOINT_URL must be an http",
        ),
    ],
)
def test_a_storage_setting_that_cannot_work_stops_the_start(base_config, settings, message):
    from datahub import create_app
    from datahub.platform.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match=message):
        create_app({**base_config, **settings})


@pytest.mark.parametrize("url", [None, "", "file:///var/lib/datahub/storage"])
def test_no_url_or_a_file_url_is_the_local_folder(base_config, url):
    from datahub import create_app
    from datahub.platform.storage.local import LocalStorage

    app = create_app({**base_config, "STORAGE_URL": url})
    with app.app_context():
        assert isinstance(get_storage(), LocalStorage)
        assert get_storage() is get_storage()  # one per app
