"""The storage sweep run at worker start: it removes what an interrupted upload left
(temporary files, stored files no row refers to) and nothing an upload still holds.
(tests/e2e/test_load_faults.py kills real workers.)"""
import os
import subprocess
import sys

import pytest

from datahub.datasets.storage import TEMP_PREFIX, LocalStorage, sweep_storage
from tests.resources import create_dataset, upload


@pytest.fixture
def config_overrides(tmp_path):
    return {"STORAGE_PATH": str(tmp_path / "storage")}


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
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys; f = open(sys.argv[1], 'wb'); fcntl.flock(f, fcntl.LOCK_EX); "
        "print('locked', flush=True); sys.stdin.read()"), live],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b"locked\n"
        assert storage.sweep(lambda key: False) == [TEMP_PREFIX + "dead"]
        assert names(storage) == [TEMP_PREFIX + "live"]
    finally:
        holder.kill()
        holder.wait()
    assert storage.sweep(lambda key: False) == [TEMP_PREFIX + "live"]


def test_sweep_storage_keeps_the_files_of_datasets(app, client, actors):
    editor = actors["editor"]
    dataset = create_dataset(client, editor.headers, "kept")
    assert upload(client, editor.headers, dataset["id"], b"kept").status_code == 200
    [kept] = os.listdir(app.config["STORAGE_PATH"])
    orphan = LocalStorage(app.config["STORAGE_PATH"]).save([b"orphan"])
    orphan.release()
    assert sweep_storage(app) == [orphan.key]
    assert os.listdir(app.config["STORAGE_PATH"]) == [kept]
    assert client.get(f"/api/v1/datasets/{dataset['id']}/file",
                      headers=editor.headers).data == b"kept"


def test_sweep_storage_never_fails_the_worker_start(app, monkeypatch):
    def broken(self, is_referenced):
        raise OSError("disk on fire")

    monkeypatch.setattr(LocalStorage, "sweep", broken)
    assert sweep_storage(app) == []
