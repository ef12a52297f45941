"""OpenLineage RunEvents, sent to a receiver process on loopback through
openlineage-python's HTTP transport: START and COMPLETE for a run, FAIL with the error for
a failed one, START and COMPLETE for a reused one; a receiver that is down or refusing
never fails a run."""

import json
import sys
import time
import uuid

import pytest

from tests import processes
from tests.pipelines.helpers import create_pipeline, run_now, source


@pytest.fixture
def receiver(tmp_path):
    """``(url, events())``: a receiver process and the events it has received."""
    port_file, log = tmp_path / "port", tmp_path / "events.jsonl"
    process = processes.popen(
        [sys.executable, "-m", "tests.receivers.http_receiver", str(port_file), str(log)]
    )
    try:
        deadline = time.monotonic() + 10
        while not port_file.exists():
            assert time.monotonic() < deadline, "the receiver did not start"
            assert process.poll() is None, "the receiver ended"
            time.sleep(0.05)

        def events():
            if not log.exists():
                return []
            return [json.loads(line) for line in log.read_text().splitlines()]

        yield f"http://127.0.0.1:{port_file.read_text()}", events
    finally:
        processes.stop(process)


@pytest.fixture
def config_overrides(receiver):
    return {"OPENLINEAGE_URL": receiver[0], "OPENLINEAGE_NAMESPACE": "test-hub"}


def test_a_run_sends_start_and_complete_with_its_versions(app, client, actors, receiver):
    headers = actors["editor"].headers
    people = source(client, headers)
    pipeline = create_pipeline(client, headers, people["id"], output="copy")
    run = run_now(app, client, headers, pipeline["id"])
    assert run["status"] == "succeeded"
    events = receiver[1]()
    assert [event["path"] for event in events] == ["/api/v1/lineage"] * 2
    start, complete = (event["body"] for event in events)
    assert (start["eventType"], complete["eventType"]) == ("START", "COMPLETE")
    run_uuid = start["run"]["runId"]
    assert uuid.UUID(run_uuid) and complete["run"]["runId"] == run_uuid
    job = {"namespace": "test-hub", "name": f"pipelines/{pipeline['id']}"}
    assert {k: start["job"][k] for k in job} == job == {k: complete["job"][k] for k in job}
    source_name = f"datasets/{people['id']}@1"
    assert [(d["namespace"], d["name"]) for d in start["inputs"]] == [("test-hub", source_name)]
    assert [(d["namespace"], d["name"]) for d in complete["outputs"]] == [
        ("test-hub", f"datasets/{run['output_dataset_id']}@1")
    ]
    assert start["producer"] and start["schemaURL"].startswith("https://openlineage.io/spec/")
    # A reused run is a run too: START and COMPLETE, the same output version.
    again = run_now(app, client, headers, pipeline["id"])
    assert again["reused_run_id"] == run["id"]
    start, complete = (event["body"] for event in receiver[1]()[2:])
    assert (start["eventType"], complete["eventType"]) == ("START", "COMPLETE")
    assert complete["outputs"][0]["name"] == f"datasets/{run['output_dataset_id']}@1"
    assert complete["run"]["runId"] != run_uuid


def test_a_failed_run_sends_fail_with_its_error(app, client, actors, receiver):
    headers = actors["editor"].headers
    people = source(client, headers)
    steps = [{"op": "sql", "query": "SELECT CAST(name AS INTEGER) FROM input"}]
    pipeline = create_pipeline(client, headers, people["id"], steps, output="broken")
    run = run_now(app, client, headers, pipeline["id"])
    assert run["status"] == "failed"
    start, fail = (event["body"] for event in receiver[1]())
    assert (start["eventType"], fail["eventType"]) == ("START", "FAIL")
    assert fail["outputs"] == []
    assert fail["run"]["facets"]["errorMessage"]["message"] == run["error"]


@pytest.mark.parametrize("config_overrides", [{"OPENLINEAGE_URL": "http://127.0.0.1:9"}])
def test_an_unreachable_receiver_never_fails_a_run(app, client, actors, caplog):
    headers = actors["editor"].headers
    people = source(client, headers)
    pipeline = create_pipeline(client, headers, people["id"], output="copy")
    assert run_now(app, client, headers, pipeline["id"])["status"] == "succeeded"
    assert "OpenLineage START event of run" in caplog.text
