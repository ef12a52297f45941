"""Webhooks delivered by the service's own worker process (the README's start command:
gunicorn's master supervises it): to the receiver example of the Events guide, which
checks every signature, and none lost when that process is killed mid-delivery."""

import os
import signal
import subprocess
import sys

import pytest

from tests import processes
from tests.e2e.conftest import ROOT, start_gunicorn, stop_gunicorn
from tests.e2e.load_helpers import ApiClient, call, wait_until
from tests.e2e.test_worker_process import wait_for_worker
from tests.events.webhooks.helpers import start_receiver
from tests.workers import free_port

pytestmark = pytest.mark.e2e

EXAMPLE = ROOT / "docs/guides/examples/webhook_receiver.py"


@pytest.fixture
def server(app, database_url, tmp_path):
    server = start_gunicorn(
        database_url,
        tmp_path,
        1,
        extra_env={
            "DATAHUB_STORAGE_PATH": app.config["STORAGE_PATH"],
            "DATAHUB_PIPELINE_EMBEDDED_WORKER": "true",
            "DATAHUB_WEBHOOK_ALLOW_HTTP": "true",
            "DATAHUB_WEBHOOK_ALLOW_PRIVATE": "true",
            "DATAHUB_WEBHOOK_TIMEOUT_SECONDS": "2",
            "DATAHUB_WEBHOOK_RETRY_SECONDS": "[1]",
        },
    )
    yield server
    stop_gunicorn(server)


def admin(server):
    client = ApiClient(server.url + "/api/v1", "admin@example.com", server.admin_password())
    assert client.login().status == 200
    return client


def create_webhook(client, url):
    reply = call(client.base, "POST", "/webhooks/", body={"url": url}, headers=client.auth())
    assert reply.status == 201, reply.body
    return reply.json()


def deliveries(client, webhook_id):
    reply = call(client.base, "GET", f"/webhooks/{webhook_id}/deliveries", headers=client.auth())
    return reply.json()["items"]


def waited(condition, timeout, what):
    """``condition()``'s answer once it is truthy; fails the test with ``what`` after
    ``timeout`` seconds."""
    found = wait_until(condition, timeout)
    assert found, what
    return found


def test_the_guide_s_receiver_gets_each_change_verified(server, tmp_path):
    client = admin(server)
    port = free_port()
    webhook = create_webhook(client, f"http://127.0.0.1:{port}/")
    output = tmp_path / "receiver.out"
    with open(output, "wb") as out:
        receiver = processes.popen(
            [sys.executable, str(EXAMPLE), str(port)],
            env={**os.environ, "WEBHOOK_SECRET": webhook["secret"]},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        waited(lambda: _listening(port), 10, "the receiver did not start")
        dataset_id = client.create("rain").json()["id"]
        assert client.upload(dataset_id, b"day,mm\n1,3\n").status == 200
        lines = waited(
            lambda: len(output.read_text().splitlines()) >= 2 and output.read_text().splitlines(),
            10,
            "the receiver printed nothing",
        )
        assert sorted(lines) == [  # messages are sent several at once: in any order
            f"datahub.dataset.created /api/v1/datasets/{dataset_id}",
            f"datahub.dataset.version.created /api/v1/datasets/{dataset_id}/versions/1",
        ]
        # A round's outcomes are recorded once all its messages are answered: just after
        # the receiver has them.
        waited(
            lambda: {d["response_status"] for d in deliveries(client, webhook["id"])} == {204},
            10,
            "the deliveries were not recorded as answered 204",
        )
    finally:
        processes.stop(receiver)


def test_killing_the_worker_mid_delivery_loses_nothing(server, tmp_path):
    client = admin(server)
    receiver = start_receiver(tmp_path / "receiver", mode="slow-first")
    webhook = create_webhook(client, receiver.url)
    receiver.use_secret(webhook["secret"])
    [worker] = wait_for_worker(server)
    client.create("held")
    waited(lambda: receiver.received() or _sending(client, webhook), 10, "nothing was sent")
    waited(lambda: _sending(client, webhook), 10, "no delivery in flight")
    os.kill(worker, signal.SIGKILL)  # while the receiver holds the first attempt
    wait_for_worker(server, not_pid=worker)
    # The new worker takes the message again once its claim's lease (3 x 2 s) is over.
    [delivery] = waited(
        lambda: [d for d in deliveries(client, webhook["id"]) if d["status"] == "succeeded"],
        30,
        "the message was not delivered again",
    )
    # At least once: the receiver may also finish the first attempt it was holding (its
    # answer went to the killed worker), so the message may be there twice, never another.
    answered = [m for m in receiver.received() if m["status"] == 204]
    assert {m["id"] for m in answered} == {f"msg_{delivery['id']}"}
    assert answered[0]["event"]["type"] == "datahub.dataset.created" and answered[0]["verified"]
    processes.stop(receiver.process)


def _sending(client, webhook):
    return [d for d in deliveries(client, webhook["id"]) if d["status"] == "sending"]


def _listening(port):
    import socket

    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
