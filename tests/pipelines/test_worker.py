"""The worker's building blocks in-process: claiming, stale heartbeats, shutdown."""

import hashlib
import os
import threading
import time
from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.pipelines import worker
from datahub.pipelines.models import Run
from datahub.platform.database import utcnow
from tests.pipelines.helpers import (
    background_worker,
    create_pipeline,
    get_run,
    run_now,
    source,
    start,
    wait_for,
)


@pytest.fixture
def config_overrides():
    return {"PIPELINE_STALE_AFTER_SECONDS": 30}


def test_each_queued_run_is_claimed_once_oldest_first(app, client, actors):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    runs = [
        start(client, editor, create_pipeline(client, editor, dataset["id"], name=f"p{i}")["id"])[
            "id"
        ]
        for i in range(3)
    ]
    with app.app_context():
        claimed = [worker.claim(f"w{i}") for i in range(4)]
        assert claimed == runs + [None]
        rows = db.session.scalars(sa.select(Run).order_by(Run.id)).all()
        assert [(r.status, r.worker) for r in rows] == [
            ("running", "w0"),
            ("running", "w1"),
            ("running", "w2"),
        ]
        assert all(r.heartbeat_at is not None and r.started_at is not None for r in rows)


def test_stale_running_runs_are_failed_and_the_pipeline_can_run_again(app, client, actors):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    fresh_pipeline = create_pipeline(
        client, editor, source(client, editor, name="b")["id"], name="fresh"
    )
    stale = start(client, editor, pipeline["id"])
    fresh = start(client, editor, fresh_pipeline["id"])
    with app.app_context():
        assert worker.claim("dead") == stale["id"]
        assert worker.claim("alive") == fresh["id"]
        db.session.execute(
            sa.update(Run)
            .where(Run.id == stale["id"])
            .values(heartbeat_at=utcnow() - timedelta(seconds=31))
        )
        db.session.commit()
        assert worker.reap_stale(app) == 1
    run = get_run(client, editor, pipeline["id"], stale["id"])
    assert (run["status"], run["error"]) == (
        "failed",
        "the worker running this run stopped responding (no heartbeat for 30 s)",
    )
    assert run["finished_at"] is not None
    assert get_run(client, editor, fresh_pipeline["id"], fresh["id"])["status"] == "running"
    again = start(client, editor, pipeline["id"])
    assert worker.run_once(app) == again["id"]
    assert get_run(client, editor, pipeline["id"], again["id"])["status"] == "succeeded"


def test_a_worker_shutting_down_fails_its_run(app, client, actors):
    editor = actors["editor"].headers
    text = "n\r\n" + "".join(f"{i}\r\n" for i in range(5000))
    pipeline = create_pipeline(client, editor, source(client, editor, text)["id"])
    run = start(client, editor, pipeline["id"])
    shutdown = threading.Event()
    shutdown.set()  # already asked to stop: the first check ends the run
    assert worker.Worker(app, shutdown=shutdown).run_once() == run["id"]
    run = get_run(client, editor, pipeline["id"], run["id"])
    assert (run["status"], run["error"]) == ("failed", worker.SHUTDOWN_ERROR)
    assert run["output_dataset_id"] is None


def test_a_background_worker_executes_a_queued_run_at_once(app, client, actors):
    """Queuing a run wakes the idle workers of this host: the run starts long before the
    next poll."""
    app.config["PIPELINE_POLL_SECONDS"] = 30
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    with background_worker(app):
        time.sleep(0.5)  # idle, waiting on its poll
        run = start(client, editor, pipeline["id"])
        run = wait_for(client, editor, pipeline["id"], run["id"], {"succeeded", "failed"}, 10)
    assert run["status"] == "succeeded"


def test_a_run_shows_where_its_time_went(app, client, actors):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    pipeline = create_pipeline(client, editor, dataset["id"], [{"op": "limit", "count": 1}])
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "succeeded", run
    timings = run["timings"]
    assert list(timings) == [
        "claim",
        "plan",
        "job_start",
        "compile",
        "query",
        "row_counts",
        "job_end",
        "write",
        "hash",
        "store",
        "publish",
        "events",
    ]
    assert all(isinstance(ms, float | int) and ms >= 0 for ms in timings.values())
    assert timings["query"] > 0 and timings["compile"] > 0
    took = (
        datetime.fromisoformat(run["finished_at"]) - datetime.fromisoformat(run["started_at"])
    ).total_seconds() * 1000
    assert sum(timings.values()) - timings["claim"] <= took + 50  # nobody's moments aside

    # A run answered by an earlier one's output: only what it did.
    again = run_now(app, client, editor, pipeline["id"])
    assert again["reused_run_id"] == run["id"]
    assert list(again["timings"]) == ["claim", "plan", "events"]


def test_the_output_is_hashed_as_it_is_written_and_moved_into_storage(app, client, actors):
    editor = actors["editor"].headers
    text = "n,word\n" + "".join(f"{i},{'w' * (i % 50)}{i}\n" for i in range(80_000))
    dataset = source(client, editor, text, name="many rows")
    pipeline = create_pipeline(client, editor, dataset["id"], [{"op": "sort", "columns": ["n"]}])
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "succeeded", run
    output = client.get(f"/api/v1/datasets/{run['output_dataset_id']}", headers=editor)
    stored = output.get_json()["file"]
    data = client.get(f"/api/v1/datasets/{run['output_dataset_id']}/file", headers=editor).data
    assert len(data) > 2 * 2**20  # more than one read of the file as it grows
    assert (stored["size_bytes"], stored["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())
    # Nothing but the stored files is left in storage.
    names = os.listdir(app.config["STORAGE_PATH"])
    assert not [name for name in names if name.startswith(".upload-")]
