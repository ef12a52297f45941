"""Runs and versions through HTTP: a run over unchanged inputs and an unchanged pipeline
reuses the earlier run's output; a pipeline may pin its source's version and a join's."""

from tests.pipelines.helpers import PIPELINES, create_pipeline, run_now, source

URL = "/api/v1/datasets/"


def put(client, headers, dataset_id, data):
    response = client.put(
        f"{URL}{dataset_id}/file", data=data, headers=headers, content_type="text/csv"
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def versions(client, headers, dataset_id):
    body = client.get(f"{URL}{dataset_id}/versions", headers=headers).get_json()
    return [item["version"] for item in body["items"]]


def test_an_unchanged_run_is_reused_and_a_change_computes_again(app, client, actors):
    headers = actors["editor"].headers
    people = source(client, headers)
    steps = [{"op": "filter", "column": "age", "operator": "ge", "value": 18}]
    pipeline = create_pipeline(client, headers, people["id"], steps, output="adults")
    first = run_now(app, client, headers, pipeline["id"])
    assert (first["status"], first["reused_run_id"]) == ("succeeded", None)
    output = first["output_dataset_id"]
    second = run_now(app, client, headers, pipeline["id"])
    assert second["status"] == "succeeded", second
    assert second["reused_run_id"] == first["id"]
    assert (second["output"], second["rows_in"], second["rows_out"]) == (
        first["output"],
        first["rows_in"],
        first["rows_out"],
    )
    assert second["inputs"] == first["inputs"]
    assert versions(client, headers, output) == [1]  # no new version
    # A reuse of a reuse names the run that computed.
    assert run_now(app, client, headers, pipeline["id"])["reused_run_id"] == first["id"]
    # A new input version: computed again.
    put(client, headers, people["id"], b"name,city,age\nEve,Oslo,50\n")
    third = run_now(app, client, headers, pipeline["id"])
    assert (third["reused_run_id"], third["output"]["version"], third["rows_out"]) == (None, 2, 1)
    # A changed definition: computed again.
    changed = client.patch(
        f"{PIPELINES}{pipeline['id']}", json={"output_format": "parquet"}, headers=headers
    )
    assert changed.status_code == 200
    assert run_now(app, client, headers, pipeline["id"])["reused_run_id"] is None
    # The output changed by hand since: computed again, not reused.
    before = run_now(app, client, headers, pipeline["id"])
    assert before["reused_run_id"] is not None
    put(client, headers, output, b"edited,by,hand\n")
    again = run_now(app, client, headers, pipeline["id"])
    assert again["reused_run_id"] is None and again["output"]["version"] == 5


def test_a_pinned_source_version_is_read_whatever_is_current(app, client, actors):
    headers = actors["editor"].headers
    people = source(client, headers)
    put(client, headers, people["id"], b"name,city,age\nEve,Oslo,50\n")
    pipeline = create_pipeline(client, headers, people["id"], output="pinned", source_version=1)
    assert pipeline["source_version"] == 1
    run = run_now(app, client, headers, pipeline["id"])
    assert run["inputs"] == [{"dataset_id": people["id"], "version": 1}]
    assert run["rows_in"] == 5  # version 1's rows, not the current version's one
    unpinned = client.patch(
        f"{PIPELINES}{pipeline['id']}", json={"source_version": None}, headers=headers
    )
    assert unpinned.get_json()["source_version"] is None
    run = run_now(app, client, headers, pipeline["id"])
    assert run["inputs"] == [{"dataset_id": people["id"], "version": 2}]
    assert run["rows_in"] == 1


def test_a_pinned_join_version_is_read(app, client, actors):
    headers = actors["editor"].headers
    people = source(client, headers)
    cities = source(client, headers, "city,country\nOslo,Norway\n", name="cities")
    put(client, headers, cities["id"], b"city,country\nBergen,Norway\n")
    steps = [{"op": "join", "dataset_id": cities["id"], "version": 1, "on": ["city"]}]
    pipeline = create_pipeline(client, headers, people["id"], steps, output="joined")
    run = run_now(app, client, headers, pipeline["id"])
    assert run["status"] == "succeeded", run
    assert run["inputs"] == [
        {"dataset_id": people["id"], "version": 1},
        {"dataset_id": cities["id"], "version": 1},
    ]
    assert run["rows_out"] == 3  # the three Oslo rows match version 1's Oslo


def test_a_pin_to_a_version_that_does_not_exist_is_422(client, actors):
    headers = actors["editor"].headers
    people = source(client, headers)
    body = {
        "name": "p",
        "source_dataset_id": people["id"],
        "source_version": 2,
        "output_dataset_name": "o",
    }
    response = client.post(PIPELINES, json=body, headers=headers)
    assert response.status_code == 422
    assert response.get_json()["detail"] == [
        {
            "loc": ["body", "source_version"],
            "msg": "version not found",
            "type": "value_error.version_not_found",
        }
    ]
    steps = [{"op": "join", "dataset_id": people["id"], "version": 7, "on": ["name"]}]
    response = client.post(
        PIPELINES, json={**body, "source_version": 1, "steps": steps}, headers=headers
    )
    assert response.status_code == 422
    assert response.get_json()["detail"][0]["loc"] == ["body", "steps", 0, "version"]
    wrong = client.post(PIPELINES, json={**body, "source_version": "1"}, headers=headers)
    assert wrong.status_code == 422
