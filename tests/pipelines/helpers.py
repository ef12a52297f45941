"""Helpers for the pipeline tests: a source dataset with a CSV, pipelines, runs."""

import contextlib
import csv
import io
import threading
import time

import pytest
import redis

from datahub.pipelines import worker
from tests import workers
from tests.resources import create_dataset, upload

PIPELINES = "/api/v1/pipelines/"
BROKER = workers.redis_url(0)  # the Celery tests' Redis database (this test worker's)


@pytest.fixture
def broker():
    """The Celery tests' broker database, emptied (this test worker's own)."""
    client = redis.Redis.from_url(BROKER)
    client.flushdb()
    yield client
    client.close()


PEOPLE = (
    "name,city,age\r\n"
    "Ann,Oslo,34\r\n"
    "Bob,Bergen,9\r\n"
    "Cid,Oslo,100\r\n"
    "Dee,Tromsø,34\r\n"
    "Ann,Oslo,34\r\n"
)


def source(client, headers, text=PEOPLE, name="people"):
    dataset = create_dataset(client, headers, name)
    response = upload(client, headers, dataset["id"], text.encode("utf-8"))
    assert response.status_code == 200, response.get_json()
    return dataset


def create_pipeline(
    client, headers, source_id, steps=(), name="pipe", output="pipe output", **fields
):
    body = {
        "name": name,
        "source_dataset_id": source_id,
        "steps": list(steps),
        "output_dataset_name": output,
        **fields,
    }
    response = client.post(PIPELINES, json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def start(client, headers, pipeline_id):
    response = client.post(f"{PIPELINES}{pipeline_id}/runs", headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def get_run(client, headers, pipeline_id, run_id):
    response = client.get(f"{PIPELINES}{pipeline_id}/runs/{run_id}", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def run_now(app, client, headers, pipeline_id):
    """Queue a run, execute it in this thread, and answer the finished run."""
    run = start(client, headers, pipeline_id)
    assert worker.run_once(app) == run["id"]
    return get_run(client, headers, pipeline_id, run["id"])


def output_rows(client, headers, run):
    response = client.get(f"/api/v1/datasets/{run['output_dataset_id']}/file", headers=headers)
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.data.decode("utf-8"))))


def wait_for(client, headers, pipeline_id, run_id, statuses, timeout):
    """The run once its status is one of ``statuses``; fails after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        run = get_run(client, headers, pipeline_id, run_id)
        if run["status"] in statuses:
            return run
        assert time.monotonic() < deadline, run
        time.sleep(0.05)


# A step that keeps DuckDB busy for minutes on a few thousand rows (a triple cross join):
# what cancel, timeout and shutdown tests interrupt.
SLOW = [{"op": "sql", "query": "SELECT sum(a.n * b.n + c.n) AS s FROM input a, input b, input c"}]


def slow_source(client, headers, rows=3000, name="slow"):
    return source(client, headers, "n\r\n" + "".join(f"{i}\r\n" for i in range(rows)), name=name)


@contextlib.contextmanager
def background_worker(app, concurrency=1):
    """A worker claiming runs in threads of the test process (each run's query still in a
    process of its own), stopped on exit: as ``flask --app datahub worker`` does."""
    shutdown = threading.Event()
    runner = worker.Worker(app, shutdown=shutdown)
    thread = threading.Thread(target=runner.run_forever, args=(concurrency,), daemon=True)
    thread.start()
    try:
        yield runner
    finally:
        shutdown.set()
        from datahub.platform import wakeups

        wakeups.notify(app.instance_path)
        thread.join(30)
        assert not thread.is_alive(), "the worker did not stop"
