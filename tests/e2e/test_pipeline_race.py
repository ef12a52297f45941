"""Twelve POSTs of a run at once against gunicorn with four workers (separate processes,
separate connections): the partial unique index lets exactly one through."""

import json

import pytest

from tests.e2e.test_concurrency import all_at_once, api, request  # noqa: F401  (fixture)

# Bursts over several gunicorn workers can take most of PostgreSQL's 100 connections: the
# modules that do run one at a time, on one pytest-xdist worker (python -m tests).
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("many_connections")]


@pytest.fixture
def gunicorn_workers():
    return 4


@pytest.fixture
def gunicorn_env():
    # No embedded worker: a run must stay queued while the others race against it.
    return {"DATAHUB_PIPELINE_EMBEDDED_WORKER": "false"}


def test_twelve_concurrent_runs_give_one_201(api):  # noqa: F811
    base, headers = api
    status, body = request("POST", f"{base}/datasets/", {"name": "source"}, headers)
    assert status == 201, body
    status, body = request(
        "POST",
        f"{base}/pipelines/",
        {
            "name": "contested",
            "source_dataset_id": json.loads(body)["id"],
            "output_dataset_name": "out",
        },
        headers,
    )
    assert status == 201, body
    runs = f"{base}/pipelines/{json.loads(body)['id']}/runs"
    for _ in range(3):
        results = all_at_once(12, lambda i: request("POST", runs, headers=headers))
        assert sorted(status for status, _ in results) == [201] + [409] * 11, results
        assert all(
            json.loads(body) == {"detail": "Pipeline is already running"}
            for status, body in results
            if status == 409
        )
        [created] = [json.loads(body) for status, body in results if status == 201]
        assert created["status"] == "queued"
        status, body = request("GET", runs, headers=headers)
        assert [run["status"] for run in json.loads(body)["items"]].count("queued") == 1
        status, body = request("POST", f"{runs}/{created['id']}/cancel", headers=headers)
        assert (status, json.loads(body)["status"]) == (200, "cancelled")
    status, body = request("GET", runs, headers=headers)
    assert json.loads(body)["total"] == 3
