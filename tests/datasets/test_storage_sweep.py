"""The storage sweep run at worker start: it removes what an interrupted upload left
(temporary files, stored files no row refers to) and nothing an upload still holds.
(tests/e2e/test_load_faults.py kills real workers.)"""

import os
import subprocess
import sys

import pytest

from datahub.datasets.storage import sweep_storage
from datahub.platform.storage import get_storage
from datahub.platform.storage.local import TEMP_PREFIX, LocalStorage
from datahub.platform.storage.s3 import S3Storage, new_key
from tests.processes import popen
from tests.resources import create_dataset, upload


@pytest.fixture
def config_overrides(backend_config):
    # The app-level tests run on both backends; on S3 with no grace period.
    return {**backend_config, "S3_SWEEP_AFTER_SECONDS": 0}


@pytest.fixture
def storage(tmp_path):
    return LocalStorage(tmp_path / "storage")


def names(storage):
    return sorted(os.listdir(storage.root))


def test_a_file_being_stored_is_left_alone_until_released(storage):
    stored = storage.save([b"data"])
    assert storage.sweep(lambda key: False) == []
    assert names(storage) == [stored.key]
    stored.release()
    assert storage.sweep(lambda key: False) == [stored.key]
    assert names(storage) == []


def test_referenced_files_stay_and_other_names_are_not_touched(storage):
    stored = storage.save([b"data"])
    stored.release()
    with open(os.path.join(storage.root, "README"), "w") as other:
        other.write("not ours")
    assert storage.sweep(lambda key: key == stored.key) == []
    assert names(storage) == sorted([stored.key, "README"])


def test_a_dead_uploaders_temporary_file_goes_a_live_ones_stays(storage):
    os.makedirs(storage.root)
    dead = os.path.join(storage.root, TEMP_PREFIX + "dead")
    open(dead, "wb").close()  # no lock: its process is gone
    # Another process holds the lock of its temporary file, as an uploading worker does.
    live = os.path.join(storage.root, TEMP_PREFIX + "live")
    holder = popen(
        [
            sys.executable,
            "-c",
            (
                "import fcntl, sys; f = open(sys.argv[1], 'wb'); fcntl.flock(f, fcntl.LOCK_EX); "
                "print('locked', flush=True); sys.stdin.read()"
            ),
            live,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout.readline() == b"locked\n"
        assert storage.sweep(lambda key: False) == [TEMP_PREFIX + "dead"]
        assert names(storage) == [TEMP_PREFIX + "live"]
    finally:
        holder.kill()
        holder.wait()
    assert storage.sweep(lambda key: False) == [TEMP_PREFIX + "live"]


def test_sweep_storage_keeps_the_files_of_datasets(app, client, actors, stored):
    editor = actors["editor"]
    dataset = create_dataset(client, editor.headers, "kept")
    assert upload(client, editor.headers, dataset["id"], b"kept").status_code == 200
    [kept] = stored()
    with app.app_context():
        orphan = get_storage().save([b"orphan"])  # its worker died before the commit
    orphan.release()
    assert stored() == sorted([kept, orphan.key])
    assert sweep_storage(app) == [orphan.key]
    assert stored() == [kept]
    assert (
        client.get(f"/api/v1/datasets/{dataset['id']}/file", headers=editor.headers).data == b"kept"
    )


def test_sweep_storage_never_fails_the_worker_start(app, monkeypatch, caplog):
    def broken(self, is_referenced):
        raise OSError("disk on fire")

    with app.app_context():
        monkeypatch.setattr(type(get_storage()), "sweep", broken)
    assert sweep_storage(app) == []
    assert "disk on fire" in caplog.text


def test_sweep_storage_with_s3_unreachable_never_fails_the_worker_start(app, caplog, backend):
    from datahub.platform.errors import StorageUnavailable

    if backend == "local":
        return  # only S3 can be unreachable
    with app.app_context():
        storage = get_storage()
        storage.endpoint_url = "http://127.0.0.1:9"  # the discard port: nothing listens
        assert storage._client is None  # so the client is made with that endpoint
        with pytest.raises(StorageUnavailable):
            storage.sweep(lambda key: False)
    assert sweep_storage(app) == []
    assert "could not sweep the storage" in caplog.text


# --- S3: no locks across hosts, so a grace period -----------------------------------------


def s3_storage(s3_server, prefix, sweep_after):
    return S3Storage(
        s3_server.bucket,
        prefix,
        endpoint_url=s3_server.url,
        part_size=5 * 1024 * 1024,
        sweep_after=sweep_after,
    )


def start_multipart_upload(s3_server, prefix):
    """What a worker killed mid-upload leaves: an incomplete upload with a part, under a
    key made as S3Storage makes them (it starts with the time)."""
    name = new_key()
    key = f"{prefix}/{name}"
    client = s3_server.client()
    upload_id = client.create_multipart_upload(Bucket=s3_server.bucket, Key=key)["UploadId"]
    client.upload_part(
        Bucket=s3_server.bucket, Key=key, UploadId=upload_id, PartNumber=1, Body=b"x" * 1024
    )
    return name


def test_s3_sweep_leaves_everything_younger_than_the_grace_period(s3_server, s3_prefix):
    storage = s3_storage(s3_server, s3_prefix, sweep_after=3600)
    stored = storage.save([b"orphan"])  # killed between storing and the commit
    upload = start_multipart_upload(s3_server, s3_prefix)
    before = s3_server.listing(s3_prefix)
    assert storage.sweep(lambda key: False) == []
    assert s3_server.listing(s3_prefix) == before == [stored.key, ".upload-" + upload]


def test_s3_sweep_removes_old_orphans_and_incomplete_uploads(s3_server, s3_prefix):
    storage = s3_storage(s3_server, s3_prefix, sweep_after=0)
    kept, orphan = storage.save([b"kept"]), storage.save([b"orphan"])
    upload = start_multipart_upload(s3_server, s3_prefix)
    client = s3_server.client()
    client.put_object(Bucket=s3_server.bucket, Key=f"{s3_prefix}/README", Body=b"not ours")
    client.put_object(Bucket=s3_server.bucket, Key=f"{s3_prefix}-other/{'cd' * 16}", Body=b"x")
    try:
        assert sorted(storage.sweep(lambda key: key == kept.key)) == sorted([orphan.key, upload])
        assert s3_server.listing(s3_prefix) == sorted([kept.key, "README"])
        assert s3_server.objects(f"{s3_prefix}-other") == ["cd" * 16]  # another prefix
    finally:
        s3_server.empty(f"{s3_prefix}-other")


@pytest.mark.parametrize("other_sweeps", ["before listing its parts", "before aborting it"])
def test_two_s3_sweeps_at_once_pass_over_what_the_other_aborted(s3_server, s3_prefix, other_sweeps):
    """Every worker of every host sweeps as it starts: an upload the other sweep aborted
    between this one's listing and its own abort is no error."""
    other = s3_storage(s3_server, s3_prefix, sweep_after=0)

    class Raced(S3Storage):
        def _last_activity(self, key, upload):
            if other_sweeps == "before listing its parts":
                assert other.sweep(lambda key: False) == [key]
            newest = super()._last_activity(key, upload)
            if other_sweeps == "before aborting it":
                assert other.sweep(lambda key: False) == [key]
            return newest

    storage = Raced(s3_server.bucket, s3_prefix, endpoint_url=s3_server.url, sweep_after=0)
    start_multipart_upload(s3_server, s3_prefix)
    assert storage.sweep(lambda key: False) == []
    assert s3_server.uploads(s3_prefix) == []
