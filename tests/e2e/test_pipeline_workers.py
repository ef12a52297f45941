"""``flask --app datahub worker`` as a real process against the test database: killed
with SIGKILL mid-run, and a running run cancelled."""

import csv
import hashlib
import io
import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone

import pytest

from datahub.pipelines.worker import STALE_ERROR
from tests.conftest import TEST_SECRET
from tests.e2e.conftest import ROOT
from tests.pipelines.helpers import (
    PIPELINES,
    create_pipeline,
    get_run,
    source,
    start,
    wait_for,
)
from tests.processes import popen
from tests.resources import actors  # noqa: F401  (fixture)

pytestmark = pytest.mark.e2e

STALE_AFTER = 3
ROWS = 200_000
# A self-join of 200k rows on a condition no hash join can use: minutes of DuckDB's time.
HEAVY = [
    {"op": "sql", "query": "SELECT count(*) AS n FROM input a, input b WHERE a.score + b.score = 7"}
]
LIGHT = [{"op": "sort", "columns": ["score"]}, {"op": "limit", "count": 3}]


@pytest.fixture
def config_overrides():
    return {"PIPELINE_STALE_AFTER_SECONDS": STALE_AFTER}


@pytest.fixture
def big_source(client, actors):
    rng = random.Random(3)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "score", "word"])
    writer.writerows([i, rng.randint(0, 10**6), f"w{rng.randint(0, 999)}"] for i in range(ROWS))
    return source(client, actors["editor"].headers, out.getvalue(), name="big")


@pytest.fixture
def start_worker(app, database_url, tmp_path):
    """Start ``flask --app datahub worker`` processes (``settings``: more DATAHUB_
    settings); all are stopped at the end."""
    processes = []

    def start_one(**settings):
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("DATAHUB_")},
            "DATAHUB_SQLALCHEMY_DATABASE_URI": database_url,
            "DATAHUB_STORAGE_PATH": app.config["STORAGE_PATH"],
            "DATAHUB_INSTANCE_PATH": str(tmp_path / "instance"),
            "DATAHUB_SECRET_KEY": TEST_SECRET,
            "DATAHUB_JWT_SECRET_KEY": TEST_SECRET,
            "DATAHUB_PIPELINE_EMBEDDED_WORKER": "false",
            "DATAHUB_PIPELINE_STALE_AFTER_SECONDS": str(STALE_AFTER),
            "DATAHUB_PIPELINE_HEARTBEAT_SECONDS": "0.5",
            "DATAHUB_PIPELINE_POLL_SECONDS": "0.2",
            **{f"DATAHUB_{name}": str(value) for name, value in settings.items()},
        }
        log = open(tmp_path / f"worker-{len(processes)}.log", "wb")
        process = popen(
            [sys.executable, "-m", "flask", "--app", "datahub", "worker"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        processes.append(process)
        return process

    yield start_one
    for process in processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_worker_killed_mid_run(app, client, actors, big_source, start_worker):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, big_source["id"], HEAVY)
    first = start_worker()
    run = start(client, editor, pipeline["id"])
    wait_for(client, editor, pipeline["id"], run["id"], {"running"}, 30)
    time.sleep(1.0)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    run = get_run(client, editor, pipeline["id"], run["id"])
    assert run["status"] == "running", run  # mid-run when it died
    response = client.post(f"{PIPELINES}{pipeline['id']}/runs", headers=editor)
    assert response.get_json() == {"detail": "Pipeline is already running"}

    start_worker()  # finds the stale heartbeat (at start-up or a moment later)
    run = wait_for(client, editor, pipeline["id"], run["id"], {"failed"}, STALE_AFTER + 20)
    assert run["error"] == STALE_ERROR.format(seconds=STALE_AFTER)
    assert run["finished_at"] is not None and run["output_dataset_id"] is None

    assert (
        client.patch(
            f"{PIPELINES}{pipeline['id']}", json={"steps": LIGHT}, headers=editor
        ).status_code
        == 200
    )
    again = start(client, editor, pipeline["id"])
    again = wait_for(client, editor, pipeline["id"], again["id"], {"succeeded", "failed"}, 90)
    assert again["status"] == "succeeded", again
    assert (again["rows_in"], again["rows_out"]) == (ROWS, 3)
    storage = app.config["STORAGE_PATH"]
    assert not [n for n in os.listdir(storage) if n.startswith(".upload-")]


def test_cancel_stops_a_running_run_and_keeps_the_previous_output(
    app, client, actors, big_source, start_worker
):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, big_source["id"], LIGHT, output="result")
    start_worker()
    first = start(client, editor, pipeline["id"])
    first = wait_for(client, editor, pipeline["id"], first["id"], {"succeeded", "failed"}, 90)
    assert first["status"] == "succeeded", first
    output_url = f"/api/v1/datasets/{first['output_dataset_id']}"
    before = client.get(output_url, headers=editor).get_json()
    before_bytes = client.get(f"{output_url}/file", headers=editor).data

    client.patch(f"{PIPELINES}{pipeline['id']}", json={"steps": HEAVY}, headers=editor)
    heavy = start(client, editor, pipeline["id"])
    wait_for(client, editor, pipeline["id"], heavy["id"], {"running"}, 30)
    time.sleep(1.0)
    response = client.post(f"{PIPELINES}{pipeline['id']}/runs/{heavy['id']}/cancel", headers=editor)
    cancelled_at = datetime.now(timezone.utc)
    assert response.status_code == 200
    assert response.get_json()["status"] == "cancelled"

    # The one worker takes another run only once it has let go of the cancelled one.
    other = create_pipeline(
        client,
        editor,
        big_source["id"],
        [{"op": "limit", "count": 1}],
        name="probe",
        output="probe out",
    )
    probe = start(client, editor, other["id"])
    probe = wait_for(client, editor, other["id"], probe["id"], {"succeeded", "failed"}, 30)
    assert probe["status"] == "succeeded"
    # Taken within seconds (its own run time, which load stretches, is not counted).
    assert (datetime.fromisoformat(probe["started_at"]) - cancelled_at).total_seconds() < 5

    heavy = get_run(client, editor, pipeline["id"], heavy["id"])
    assert (heavy["status"], heavy["error"], heavy["output_dataset_id"]) == (
        "cancelled",
        "cancelled by a user",
        None,
    )
    # The same dataset and version (its schema may have been read by the worker meanwhile).
    after = client.get(output_url, headers=editor).get_json()
    assert {**after, "schema": None} == {**before, "schema": None}
    after_bytes = client.get(f"{output_url}/file", headers=editor).data
    assert after_bytes == before_bytes
    assert hashlib.sha256(after_bytes).hexdigest() == before["file"]["sha256"]
    storage = app.config["STORAGE_PATH"]
    assert not [n for n in os.listdir(storage) if n.startswith(".upload-")]
