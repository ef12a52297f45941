"""The queued runs quota (``QUOTA_QUEUED_RUNS``): 429 with Retry-After, through HTTP."""

import pytest

from datahub.pipelines import worker
from datahub.quotas import RUNS_RETRY_AFTER_SECONDS
from tests.pipelines.helpers import PIPELINES, create_pipeline, source, start
from tests.resources import at_once

TOO_MANY = {"detail": "Too many queued runs"}
ALREADY_RUNNING = {"detail": "Pipeline is already running"}


@pytest.fixture
def config_overrides():
    return {"QUOTA_QUEUED_RUNS": 2}


def pipelines(client, headers, count, prefix="p"):
    dataset = source(client, headers, name=f"{prefix} source")
    return [
        create_pipeline(
            client, headers, dataset["id"], name=f"{prefix}{i}", output=f"{prefix} out {i}"
        )
        for i in range(count)
    ]


def post_run(client, headers, pipeline):
    return client.post(f"{PIPELINES}{pipeline['id']}/runs", headers=headers)


def queued_runs(client, headers):
    return client.get("/api/v1/auth/me/usage", headers=headers).get_json()["queued_runs"]


def test_queued_runs_quota_at_its_boundary(app, client, actors):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    first, second, third = pipelines(client, editor, 3)
    start(client, editor, first["id"])
    start(client, editor, second["id"])
    assert queued_runs(client, editor) == 2
    response = post_run(client, editor, third)
    assert (response.status_code, response.get_json()) == (429, TOO_MANY)
    assert response.mimetype == "application/json"
    assert response.headers["Retry-After"] == str(RUNS_RETRY_AFTER_SECONDS)
    # A second run of a pipeline that has one is still the 409, not the quota's 429.
    response = post_run(client, editor, first)
    assert (response.status_code, response.get_json()) == (409, ALREADY_RUNNING)
    # Another owner's runs do not count.
    start(client, other, pipelines(client, other, 1, prefix="o")[0]["id"])
    # A run that finishes (or is cancelled) makes room.
    assert worker.run_once(app) is not None
    start(client, editor, third["id"])
    response = post_run(client, editor, first)
    assert (response.status_code, response.get_json()) == (429, TOO_MANY)


def test_runs_started_by_an_admin_count_against_the_pipeline_owner(client, actors):
    editor, admin = actors["editor"].headers, actors["admin"].headers
    first, second, third = pipelines(client, editor, 3)
    start(client, admin, first["id"])
    start(client, admin, second["id"])
    assert queued_runs(client, editor) == 2
    assert queued_runs(client, admin) == 0
    response = post_run(client, admin, third)
    assert (response.status_code, response.get_json()) == (429, TOO_MANY)
    # The owner cancels one of them: room for the admin's.
    run_id = client.get(f"{PIPELINES}{second['id']}/runs", headers=editor).get_json()["items"][0][
        "id"
    ]
    assert (
        client.post(f"{PIPELINES}{second['id']}/runs/{run_id}/cancel", headers=editor).status_code
        == 200
    )
    start(client, admin, third["id"])


def test_without_a_queued_runs_quota_there_is_no_limit(app, client, actors):
    app.config["QUOTA_QUEUED_RUNS"] = None
    editor = actors["editor"].headers
    for pipeline in pipelines(client, editor, 4):
        start(client, editor, pipeline["id"])
    assert queued_runs(client, editor) == 4


def test_concurrent_starts_queue_exactly_the_quota(app, client, actors):
    editor = actors["editor"].headers
    targets = pipelines(client, editor, 6)
    results = at_once(len(targets), lambda i: post_run(app.test_client(), editor, targets[i]))
    codes = sorted(response.status_code for response in results)
    assert codes == [201] * 2 + [429] * 4, [r.get_json() for r in results]
    assert queued_runs(client, editor) == 2


def test_an_output_over_the_owner_s_storage_quota_fails_and_the_previous_stays(app, client, actors):
    from tests.pipelines.helpers import output_rows, run_now

    editor = actors["editor"].headers
    text = "n\n" + "".join(f"{i}\n" for i in range(100))  # 291 bytes
    pipeline = create_pipeline(
        client, editor, source(client, editor, text)["id"], [{"op": "limit", "count": 1}]
    )
    first = run_now(app, client, editor, pipeline["id"])
    assert first["status"] == "succeeded"  # 291 + 4 bytes stored
    app.config["QUOTA_STORAGE_BYTES"] = 600
    assert (
        client.patch(f"{PIPELINES}{pipeline['id']}", headers=editor, json={"steps": []}).status_code
        == 200
    )
    run = run_now(app, client, editor, pipeline["id"])  # about 291 + 291 - 4 freed: fits
    assert run["status"] == "succeeded", run
    used = client.get("/api/v1/auth/me/usage", headers=editor).get_json()["storage_bytes"]
    assert 500 < used <= 600
    assert (
        client.patch(
            f"{PIPELINES}{pipeline['id']}",
            headers=editor,
            json={"steps": [{"op": "sql", "query": "SELECT a.n FROM input a, input b LIMIT 200"}]},
        ).status_code
        == 200
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == (
        "failed",
        "Storage quota exceeded (QUOTA_STORAGE_BYTES is 600 bytes)",
    )
    assert len(output_rows(client, editor, first)) == 101  # the previous output stays
    assert client.get("/api/v1/auth/me/usage", headers=editor).get_json()["storage_bytes"] == used


def test_a_run_that_would_create_a_dataset_over_the_quota_fails(app, client, actors):
    from tests.pipelines.helpers import run_now

    editor = actors["editor"].headers
    (pipeline,) = pipelines(client, editor, 1)
    app.config["QUOTA_DATASETS"] = 1  # the source is the one
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == (
        "failed",
        "Dataset quota exceeded (QUOTA_DATASETS is 1)",
    )
    app.config["QUOTA_DATASETS"] = 2
    assert run_now(app, client, editor, pipeline["id"])["status"] == "succeeded"
