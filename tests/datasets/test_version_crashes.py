"""Retention and crashes, on the local folder and on S3: a process that dies between the
commit that removes versions and the deletion of their objects leaves objects that nothing
refers to, and the storage sweep at the next worker start removes exactly those; an
object that a kept version still refers to is never deleted."""

import pytest

from datahub.datasets import versions
from datahub.datasets.storage import sweep_storage
from tests.resources import create_dataset

URL = "/api/v1/datasets/"


@pytest.fixture
def config_overrides(backend_config):
    return {**backend_config, "VERSIONS_KEEP": 1, "S3_SWEEP_AFTER_SECONDS": 0}


@pytest.fixture
def editor(actors):
    return actors["editor"]


def put(client, headers, dataset, data):
    response = client.put(
        f"{URL}{dataset['id']}/file", data=data, headers=headers, content_type="text/csv"
    )
    assert response.status_code == 200, response.get_json()


def kept(client, headers, dataset):
    body = client.get(f"{URL}{dataset['id']}/versions", headers=headers).get_json()
    return [item["version"] for item in body["items"]]


class Killed(BaseException):
    """What the process's death looks like to the code that was running."""


def test_a_prune_killed_before_its_deletes_leaves_what_the_next_sweep_removes(
    app, client, editor, stored, monkeypatch
):
    dataset = create_dataset(client, editor.headers, "pruned")
    for content in (b"a\n1\n", b"a\n2\n", b"a\n3\n", b"a\n4\n"):
        put(client, editor.headers, dataset, content)
    assert len(stored()) == 4

    def killed(_key):
        raise Killed()

    monkeypatch.setattr(versions, "delete_quietly", killed)
    with app.app_context(), pytest.raises(Killed):
        versions.prune_versions(1)
    monkeypatch.undo()
    # The versions are gone (committed), their objects not yet.
    assert kept(client, editor.headers, dataset) == [4]
    assert len(stored()) == 4
    removed = sweep_storage(app)
    assert len(removed) == 3
    assert len(stored()) == 1
    download = client.get(f"{URL}{dataset['id']}/file", headers=editor.headers)
    assert (download.status_code, download.data) == (200, b"a\n4\n")
    assert sweep_storage(app) == []  # nothing more: the kept version's object stays


def test_retention_never_deletes_an_object_a_kept_version_shares(app, client, editor, stored):
    dataset = create_dataset(client, editor.headers, "shared")
    put(client, editor.headers, dataset, b"x\n1\n")
    put(client, editor.headers, dataset, b"x\n2\n")
    restored = client.post(f"{URL}{dataset['id']}/versions/1/restore", headers=editor.headers)
    assert restored.status_code == 201
    assert len(stored()) == 2
    with app.app_context():
        assert versions.prune_versions(1) == 2
    assert kept(client, editor.headers, dataset) == [3]
    assert len(stored()) == 1  # version 2's bytes went; version 1's are version 3's
    download = client.get(f"{URL}{dataset['id']}/file", headers=editor.headers)
    assert (download.status_code, download.data) == (200, b"x\n1\n")
    assert sweep_storage(app) == []
