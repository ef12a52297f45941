"""Which runs keep the versions they read, through HTTP: a running run and a succeeded
one do; a failed or cancelled run (another user's, say) keeps nothing, though its
``inputs`` still show what it read while that version exists."""

import time

import pytest

from datahub.pipelines import worker
from tests.pipelines.helpers import (
    SLOW,
    background_worker,
    create_pipeline,
    get_run,
    run_now,
    slow_source,
    wait_for,
)
from tests.resources import create_dataset, upload

URL = "/api/v1/datasets/"
# Fails when DuckDB executes it (a name is no integer), not when the pipeline is saved.
FAILING = [{"op": "sql", "query": "SELECT CAST(name AS INTEGER) AS n FROM input"}]


@pytest.fixture
def config_overrides(tmp_path):
    return {"STORAGE_PATH": str(tmp_path / "storage")}


def put(client, headers, dataset_id, data):
    response = upload(client, headers, dataset_id, data, content_type="text/csv")
    assert response.status_code == 200, response.get_json()


def versions(client, headers, dataset_id):
    response = client.get(f"{URL}{dataset_id}/versions", headers=headers)
    assert response.status_code == 200, response.get_json()
    return [item["version"] for item in response.get_json()["items"]]


def failed_run_of_another_user(app, client, actors, dataset_id):
    other = actors["other_editor"].headers
    pipeline = create_pipeline(client, other, dataset_id, FAILING, output="theirs")
    run = run_now(app, client, other, pipeline["id"])
    assert run["status"] == "failed", run
    assert run["inputs"] == [{"dataset_id": dataset_id, "version": 1}]
    return pipeline, run


def test_another_users_failed_run_does_not_keep_my_version(app, client, actors):
    owner = actors["editor"].headers
    dataset = create_dataset(client, owner, "mine")
    put(client, owner, dataset["id"], b"name\nAnn\n")
    pipeline, run = failed_run_of_another_user(app, client, actors, dataset["id"])
    put(client, owner, dataset["id"], b"name\nBob\n")
    deleted = client.delete(f"{URL}{dataset['id']}/versions/1", headers=owner)
    assert (deleted.status_code, deleted.get_data()) == (204, b""), deleted.get_json()
    assert versions(client, owner, dataset["id"]) == [2]
    # The failed run is still there; the version it read is gone from its inputs.
    other = actors["other_editor"].headers
    assert get_run(client, other, pipeline["id"], run["id"])["inputs"] == []


def test_retention_passes_a_failed_runs_reads_by(app, client, actors):
    app.config["VERSIONS_KEEP"] = 1
    owner = actors["editor"].headers
    dataset = create_dataset(client, owner, "mine")
    put(client, owner, dataset["id"], b"name\nAnn\n")
    failed_run_of_another_user(app, client, actors, dataset["id"])
    put(client, owner, dataset["id"], b"name\nBob\n")
    worker.Worker(app).run_once()  # its sweep applies VERSIONS_KEEP
    assert versions(client, owner, dataset["id"]) == [2]


def test_a_running_run_keeps_its_input_until_it_is_cancelled(app, client, actors):
    owner, other = actors["editor"].headers, actors["other_editor"].headers
    dataset = slow_source(client, owner)
    pipeline = create_pipeline(client, other, dataset["id"], SLOW, output="slow copy")
    put(client, owner, dataset["id"], b"n\n1\n")  # version 2: the run is pinned to 1
    patched = client.patch(
        f"/api/v1/pipelines/{pipeline['id']}", json={"source_version": 1}, headers=other
    )
    assert patched.status_code == 200, patched.get_json()
    url = f"{URL}{dataset['id']}/versions/1"
    with background_worker(app):
        response = client.post(f"/api/v1/pipelines/{pipeline['id']}/runs", headers=other)
        run = wait_for(client, other, pipeline["id"], response.get_json()["id"], {"running"}, 30)
        wait_for_inputs(client, other, pipeline["id"], run["id"])
        used = client.delete(url, headers=owner)
        assert (used.status_code, used.get_json()) == (409, {"detail": "Version is used by a run"})
        cancel = f"/api/v1/pipelines/{pipeline['id']}/runs/{run['id']}/cancel"
        assert client.post(cancel, headers=other).status_code == 200
        wait_for(client, other, pipeline["id"], run["id"], {"cancelled"}, 30)
    assert client.delete(url, headers=owner).status_code == 204


def wait_for_inputs(client, headers, pipeline_id, run_id):
    """A run is claimed before it records its reads: wait for them."""
    for _ in range(600):
        if get_run(client, headers, pipeline_id, run_id)["inputs"]:
            return
        time.sleep(0.05)
    raise AssertionError("the run recorded no inputs")
