"""GET /api/v1/auth/me/usage, and how the quotas are documented."""

import pytest

from datahub.pipelines import worker
from tests.pipelines.helpers import PEOPLE, create_pipeline, source, start
from tests.resources import actors, create_dataset, upload  # noqa: F401  (fixture)

USAGE = "/api/v1/auth/me/usage"


def usage(client, headers):
    response = client.get(USAGE, headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_usage_of_a_new_user_with_the_default_limits(client, actors):
    for role in ("viewer", "nobody", "editor", "admin"):  # any role
        assert usage(client, actors[role].headers) == {
            "storage_bytes": 0,
            "datasets": 0,
            "queued_runs": 0,
            "limits": {"storage_bytes": None, "datasets": None, "queued_runs": 5},
        }


@pytest.mark.parametrize(
    "config_overrides",
    [{"QUOTA_STORAGE_BYTES": 10**12, "QUOTA_DATASETS": 7, "QUOTA_QUEUED_RUNS": None}],
)
def test_usage_counts_what_the_caller_owns(app, client, actors):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    first = source(client, editor)
    create_dataset(client, editor, "no file yet")
    second = create_dataset(client, editor, "second")
    assert upload(client, editor, second["id"], b"x" * 1000).status_code == 200
    assert upload(client, editor, second["id"], b"y" * 10).status_code == 200  # version 2
    create_dataset(client, other, "someone else's")
    pipelines = [
        create_pipeline(client, editor, first["id"], name=f"p{i}", output=f"o{i}") for i in range(3)
    ]
    for pipeline in pipelines:
        start(client, editor, pipeline["id"])
    assert worker.run_once(app) is not None  # one run done: its output is a new dataset
    body = usage(client, editor)
    mine = client.get("/api/v1/datasets/?owner=me", headers=editor).get_json()["items"]
    sizes = {d["name"]: d["file"] and d["file"]["size_bytes"] for d in mine}
    assert sizes["people"] == len(PEOPLE.encode("utf-8")) and sizes["second"] == 10
    assert sizes["no file yet"] is None and sizes["o0"] > 0  # the run's output
    assert body == {
        "storage_bytes": sizes["people"] + 1000 + 10 + sizes["o0"],  # both versions count
        "datasets": 4,
        "queued_runs": 2,
        "limits": {"storage_bytes": 10**12, "datasets": 7, "queued_runs": None},
    }
    assert usage(client, other) == {
        "storage_bytes": 0,
        "datasets": 1,
        "queued_runs": 0,
        "limits": {"storage_bytes": 10**12, "datasets": 7, "queued_runs": None},
    }


def test_usage_needs_a_bearer_token(client):
    response = client.get(USAGE)
    assert (response.status_code, response.get_json()) == (401, {"detail": "Not authenticated"})


def test_usage_and_the_quota_answers_are_documented(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    operation = spec["paths"][USAGE]["get"]
    assert operation["operationId"] == "get_my_usage"
    assert operation["security"] == [{"bearerAuth": []}]
    assert {"200", "401", "503"} <= set(operation["responses"])
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    usage_schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    assert set(usage_schema["required"]) == {"storage_bytes", "datasets", "queued_runs", "limits"}
    limits = spec["components"]["schemas"]["UsageLimits"]["properties"]
    assert all(limits[key]["nullable"] for key in ("storage_bytes", "datasets", "queued_runs"))

    paths = spec["paths"]
    upload_responses = paths["/api/v1/datasets/{dataset_id}/file"]["put"]["responses"]
    assert "Storage quota exceeded" in upload_responses["507"]["description"]
    create_responses = paths["/api/v1/datasets/"]["post"]["responses"]
    assert "Dataset quota exceeded" in create_responses["403"]["description"]
    run_responses = paths["/api/v1/pipelines/{pipeline_id}/runs"]["post"]["responses"]
    assert "Too many queued runs" in run_responses["429"]["description"]
    assert "Retry-After" in run_responses["429"]["headers"]
