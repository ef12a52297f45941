"""Runs through Celery: ``flask --app datahub worker`` with DATAHUB_CELERY_BROKER_URL as a
real process, Redis as the broker (DB 5 of 127.0.0.1:6379, emptied before each test; a
private redis-server for the broker that is down), the test database, and runs created
through the API."""

import os
import re
import signal
import subprocess
import sys
import time

import pytest
import redis

from datahub import create_app
from datahub.app.extensions import db
from datahub.pipelines.tasks import QUEUE, TASK_NAME
from datahub.pipelines.worker import SHUTDOWN_ERROR, STALE_ERROR
from tests import processes
from tests.conftest import TEST_SECRET
from tests.e2e.conftest import ROOT
from tests.e2e.test_pipeline_workers import HEAVY, LIGHT, big_source  # noqa: F401  (fixture)
from tests.events.webhooks.helpers import LOOPBACK, create_webhook, deliveries, start_receiver
from tests.pipelines.helpers import (  # broker: a fixture
    BROKER,
    PIPELINES,
    broker,  # noqa: F401
    create_pipeline,
    get_run,
    source,
    start,
    wait_for,
)
from tests.processes import popen
from tests.resources import actors  # noqa: F401  (fixture)
from tests.workers import free_port

pytestmark = pytest.mark.e2e

STALE_AFTER = 3
READY = re.compile(r"worker (\S+): ready \(celery, concurrency (\d+)\)")


@pytest.fixture
def config_overrides():
    return {"CELERY_BROKER_URL": BROKER, "PIPELINE_STALE_AFTER_SECONDS": STALE_AFTER, **LOOPBACK}


class WorkerProcess:
    def __init__(self, process, log_path):
        self.process, self.log_path = process, log_path

    def log(self):
        return self.log_path.read_text(errors="replace")

    def claims(self, run_id):
        return len(re.findall(rf"claimed run {run_id}\b", self.log()))

    def noops(self, run_id):
        return len(re.findall(rf"run {run_id} is not queued", self.log()))


@pytest.fixture
def start_worker(app, database_url, tmp_path, broker):
    """Start Celery workers (``flask --app datahub worker``), each once it says it is
    ready; all are stopped at the end."""
    workers = []

    def start_one(broker_url=BROKER, redispatch=30, concurrency=1):
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("DATAHUB_")},
            "DATAHUB_SQLALCHEMY_DATABASE_URI": database_url,
            "DATAHUB_STORAGE_PATH": app.config["STORAGE_PATH"],
            "DATAHUB_INSTANCE_PATH": str(tmp_path / "instance"),
            "DATAHUB_SECRET_KEY": TEST_SECRET,
            "DATAHUB_JWT_SECRET_KEY": TEST_SECRET,
            "DATAHUB_CELERY_BROKER_URL": broker_url,
            "DATAHUB_CELERY_CONCURRENCY": str(concurrency),
            "DATAHUB_PIPELINE_REDISPATCH_SECONDS": str(redispatch),
            "DATAHUB_PIPELINE_STALE_AFTER_SECONDS": str(STALE_AFTER),
            "DATAHUB_PIPELINE_HEARTBEAT_SECONDS": "0.5",
            # Webhooks to the tests' receivers on loopback (test_webhooks_are_delivered_too).
            "DATAHUB_WEBHOOK_ALLOW_HTTP": "true",
            "DATAHUB_WEBHOOK_ALLOW_PRIVATE": "true",
        }
        log_path = tmp_path / f"celery-worker-{len(workers)}.log"
        with open(log_path, "wb") as log:
            process = popen(
                [sys.executable, "-m", "flask", "--app", "datahub", "worker"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        worker = WorkerProcess(process, log_path)
        workers.append(worker)
        deadline = time.monotonic() + 60  # it starts its warm job process first
        while not READY.search(worker.log()):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the worker did not get ready:\n" + worker.log())
            time.sleep(0.05)
        assert READY.search(worker.log()).group(2) == str(concurrency)
        return worker

    yield start_one
    for worker in workers:
        if worker.process.poll() is None:
            worker.process.terminate()
            try:
                worker.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()


def wait_until(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_run_is_sent_executed_once_and_a_second_one_is_409(client, actors, broker, start_worker):
    editor = actors["editor"].headers
    pipeline = create_pipeline(
        client,
        editor,
        source(client, editor)["id"],
        [{"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"}],
    )
    run = start(client, editor, pipeline["id"])
    assert run["status"] == "queued"
    assert broker.llen(QUEUE) == 1  # the task, sent once the row was committed
    response = client.post(f"{PIPELINES}{pipeline['id']}/runs", headers=editor)
    assert (response.status_code, response.get_json()) == (
        409,
        {"detail": "Pipeline is already running"},
    )
    assert broker.llen(QUEUE) == 1  # a refused run sends nothing

    worker = start_worker()
    run = wait_for(client, editor, pipeline["id"], run["id"], {"succeeded", "failed"}, 30)
    assert (run["status"], run["rows_in"], run["rows_out"]) == ("succeeded", 5, 3), run
    assert worker.claims(run["id"]) == 1
    again = start(client, editor, pipeline["id"])  # the pipeline is free again
    again = wait_for(client, editor, pipeline["id"], again["id"], {"succeeded", "failed"}, 30)
    assert again["status"] == "succeeded" and again["output_dataset_id"] == run["output_dataset_id"]


def test_a_message_delivered_three_times_executes_the_run_once(
    app, client, actors, broker, start_worker
):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    run = start(client, editor, pipeline["id"])
    for _ in range(2):  # the same task again, by hand, before any worker runs
        app.extensions["celery"].send_task(TASK_NAME, args=[run["id"]])
    assert broker.llen(QUEUE) == 3
    worker = start_worker(concurrency=3)  # three threads could take the three at once
    run = wait_for(client, editor, pipeline["id"], run["id"], {"succeeded", "failed"}, 30)
    assert run["status"] == "succeeded", run
    wait_until(lambda: worker.noops(run["id"]) == 2, 20, worker.log())
    assert worker.claims(run["id"]) == 1
    assert broker.llen(QUEUE) == 0
    runs = client.get(f"{PIPELINES}{pipeline['id']}/runs", headers=editor).get_json()
    assert runs["total"] == 1


def test_a_lost_message_is_sent_again(client, actors, broker, start_worker):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    run = start(client, editor, pipeline["id"])
    assert broker.delete(QUEUE) == 1  # the broker lost it (flushed, failed over)
    worker = start_worker(redispatch=1)
    run = wait_for(client, editor, pipeline["id"], run["id"], {"succeeded", "failed"}, 30)
    assert run["status"] == "succeeded", run
    assert "re-sent 1 queued run(s)" in worker.log()
    assert worker.claims(run["id"]) == 1


@pytest.fixture
def dead_broker(tmp_path):
    """A broker URL on a free port where nothing listens yet; ``start()`` starts a
    redis-server there (stopped at the end)."""
    port = free_port()
    processes = []

    class Broker:
        url = f"redis://127.0.0.1:{port}/0"

        @staticmethod
        def start():
            processes.append(
                popen(
                    [
                        "redis-server",
                        "--port",
                        str(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--dir",
                        str(tmp_path),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.STDOUT,
                )
            )
            client = redis.Redis(port=port)
            wait_until(lambda: _pings(client), 10, "redis-server did not start")

    yield Broker
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def _pings(client):
    try:
        return client.ping()
    except redis.ConnectionError:
        return False


def test_a_run_created_while_the_broker_is_down_runs_once_it_is_back(
    base_config, client, actors, dead_broker, start_worker
):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    down = create_app({**base_config, "CELERY_BROKER_URL": dead_broker.url})
    assert down.config["PIPELINE_EMBEDDED_WORKER"] is False
    response = down.test_client().post(f"{PIPELINES}{pipeline['id']}/runs", headers=editor)
    assert response.status_code == 201, response.get_json()
    run = response.get_json()
    time.sleep(1.0)
    assert get_run(client, editor, pipeline["id"], run["id"])["status"] == "queued"
    with down.app_context():
        db.engine.dispose()

    dead_broker.start()
    worker = start_worker(broker_url=dead_broker.url, redispatch=1)
    run = wait_for(client, editor, pipeline["id"], run["id"], {"succeeded", "failed"}, 30)
    assert run["status"] == "succeeded", run
    assert worker.claims(run["id"]) == 1


def test_a_worker_killed_mid_run_leaves_a_failed_run_never_a_second_execution(
    app, client, actors, big_source, start_worker
):  # noqa: F811
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, big_source["id"], HEAVY)
    first = start_worker(redispatch=1)
    run = start(client, editor, pipeline["id"])
    wait_for(client, editor, pipeline["id"], run["id"], {"running"}, 30)
    time.sleep(1.0)
    first.process.send_signal(signal.SIGKILL)
    first.process.wait(timeout=10)
    assert get_run(client, editor, pipeline["id"], run["id"])["status"] == "running"
    response = client.post(f"{PIPELINES}{pipeline['id']}/runs", headers=editor)
    assert response.get_json() == {"detail": "Pipeline is already running"}

    second = start_worker(redispatch=1)  # its sweep finds the stale heartbeat
    run = wait_for(client, editor, pipeline["id"], run["id"], {"failed"}, STALE_AFTER + 20)
    assert run["error"] == STALE_ERROR.format(seconds=STALE_AFTER)
    assert run["output_dataset_id"] is None
    assert first.claims(run["id"]) == 1 and second.claims(run["id"]) == 0
    # The dead worker's unacked message comes back (after CELERY_VISIBILITY_TIMEOUT): as
    # this copy of it, it finds the run failed and does nothing.
    app.extensions["celery"].send_task(TASK_NAME, args=[run["id"]])
    wait_until(lambda: second.noops(run["id"]) == 1, 20, second.log())
    assert get_run(client, editor, pipeline["id"], run["id"]) == run

    assert (
        client.patch(
            f"{PIPELINES}{pipeline['id']}", json={"steps": LIGHT}, headers=editor
        ).status_code
        == 200
    )
    again = start(client, editor, pipeline["id"])
    again = wait_for(client, editor, pipeline["id"], again["id"], {"succeeded", "failed"}, 60)
    assert again["status"] == "succeeded", again
    assert second.claims(again["id"]) == 1
    storage = app.config["STORAGE_PATH"]
    assert not [n for n in os.listdir(storage) if n.startswith(".upload-")]


def test_sigterm_fails_the_run_in_progress_as_shut_down_and_exits(
    client, actors, big_source, broker, start_worker
):  # noqa: F811
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, big_source["id"], HEAVY)
    worker = start_worker()
    run = start(client, editor, pipeline["id"])
    wait_for(client, editor, pipeline["id"], run["id"], {"running"}, 30)
    worker.process.send_signal(signal.SIGTERM)
    assert worker.process.wait(timeout=20) == 0, worker.log()
    run = get_run(client, editor, pipeline["id"], run["id"])
    assert (run["status"], run["error"]) == ("failed", SHUTDOWN_ERROR), run
    assert broker.llen(QUEUE) == 0  # its message was acked: nothing left to redeliver


def test_webhooks_are_delivered_too(client, actors, start_worker, tmp_path):
    """A Celery worker process delivers webhooks as the claim-loop worker does."""
    editor = actors["editor"].headers
    receiver = start_receiver(tmp_path / "receiver")
    webhook = create_webhook(client, editor, receiver)
    start_worker()
    dataset = source(client, editor)  # created, then its first version
    wait_until(lambda: len(receiver.received()) == 2, 20, "nothing arrived")
    received = sorted((m["event"]["type"], m["verified"], m["status"]) for m in receiver.received())
    assert received == [
        ("datahub.dataset.created", True, 204),
        ("datahub.dataset.version.created", True, 204),
    ]
    # A round's outcomes are recorded once all its messages are answered: just after the
    # receiver has them.
    wait_until(
        lambda: {d["status"] for d in deliveries(client, editor, webhook["id"])} == {"succeeded"},
        10,
        "the deliveries were not recorded as succeeded",
    )
    assert dataset["id"]
    processes.stop(receiver.process)
