"""The README's start command alone runs pipelines: gunicorn's master starts one worker
process (never a web worker) and starts it again when it is killed, also mid-run."""

import os
import signal
import time

import pytest

from datahub.app.extensions import db
from datahub.datasets.models import DatasetVersion
from datahub.pipelines.models import Run
from datahub.pipelines.worker import STALE_ERROR
from tests.e2e.conftest import start_gunicorn, stop_gunicorn
from tests.pipelines.helpers import create_pipeline, source, start, wait_for
from tests.processes import children
from tests.resources import actors  # noqa: F401  (fixture)

pytestmark = pytest.mark.e2e

STALE_AFTER = 3
HEAVY = [
    {
        "op": "sql",
        "query": "SELECT count(*) AS n FROM input a, input b, input c, "
        "input d WHERE a.n + b.n + c.n + d.n = 7",
    }
]


def worker_processes(server):
    return [
        pid
        for pid, command in children(server.process.pid).items()
        if b"flask" in command and b"worker" in command
    ]


def wait_for_worker(server, not_pid=None, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = [pid for pid in worker_processes(server) if pid != not_pid]
        if pids:
            return pids
        time.sleep(0.1)
    pytest.fail("no worker process:\n" + server.log())


def executed_by(app, run_id):
    with app.app_context():
        value = db.session.get(Run, run_id).worker
        db.session.remove()
    return int(value.split(":")[1])


@pytest.fixture
def server(app, database_url, tmp_path):
    server = start_gunicorn(
        database_url,
        tmp_path,
        2,
        extra_env={
            "DATAHUB_STORAGE_PATH": app.config["STORAGE_PATH"],
            "DATAHUB_PIPELINE_POLL_SECONDS": "0.2",
            "DATAHUB_PIPELINE_STALE_AFTER_SECONDS": str(STALE_AFTER),
        },
    )
    yield server
    stop_gunicorn(server)


def test_runs_execute_in_the_supervised_worker_process_never_a_web_worker(
    app, client, actors, server
):
    editor = actors["editor"].headers
    (worker,) = wait_for_worker(server)
    web = set(children(server.process.pid)) - {worker}
    assert len(web) == 2
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    run = start(client, editor, pipeline["id"])
    assert (
        wait_for(client, editor, pipeline["id"], run["id"], {"succeeded", "failed"}, 30)["status"]
        == "succeeded"
    )
    assert executed_by(app, run["id"]) == worker


def test_a_worker_killed_mid_run_is_started_again_and_its_run_fails_as_stale(
    app, client, actors, server
):
    editor = actors["editor"].headers
    text = "n\n" + "".join(f"{i}\n" for i in range(3000))
    read = source(client, editor, text)
    heavy = create_pipeline(client, editor, read["id"], HEAVY)
    (worker,) = wait_for_worker(server)
    run = start(client, editor, heavy["id"])
    wait_for(client, editor, heavy["id"], run["id"], {"running"}, 30)
    deadline = time.monotonic() + 10  # claimed first, then its inputs, then the process
    while (
        not (
            query := [
                pid for pid, command in children(worker).items() if b"datahub.app.jobs" in command
            ]
        )
        and time.monotonic() < deadline
    ):
        time.sleep(0.05)
    assert query, "the run's query has a process of its own"
    time.sleep(0.5)  # into the query
    os.kill(worker, signal.SIGKILL)
    (again,) = wait_for_worker(server, not_pid=worker)
    deadline = time.monotonic() + 5  # the query's process follows its worker
    while any(os.path.exists(f"/proc/{pid}") for pid in query) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(os.path.exists(f"/proc/{pid}") for pid in query)
    run = wait_for(client, editor, heavy["id"], run["id"], {"failed"}, STALE_AFTER + 20)
    assert run["error"] == STALE_ERROR.format(seconds=STALE_AFTER)
    # The killed run made no version and left nothing in storage; the version it read is
    # recorded, and every stored file belongs to a version.
    assert run["inputs"] == [{"dataset_id": read["id"], "version": 1}]
    assert run["output"] is None
    with app.app_context():
        keys = set(db.session.scalars(db.select(DatasetVersion.file_key)))
        db.session.remove()
    assert set(os.listdir(app.config["STORAGE_PATH"])) == keys
    light = create_pipeline(
        client, editor, source(client, editor, name="light")["id"], name="light", output="light out"
    )
    after = start(client, editor, light["id"])
    assert (
        wait_for(client, editor, light["id"], after["id"], {"succeeded", "failed"}, 30)["status"]
        == "succeeded"
    )
    assert executed_by(app, after["id"]) == again
