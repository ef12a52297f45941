"""Helpers for the webhook tests: a receiver process on loopback and quick creates."""

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import processes

WEBHOOKS = "/api/v1/webhooks/"
# Deliveries to loopback over http: what the tests' receivers are.
LOOPBACK = {"WEBHOOK_ALLOW_HTTP": True, "WEBHOOK_ALLOW_PRIVATE": True}


@dataclass
class Receiver:
    url: str
    log: Path
    secret_file: Path
    process: object

    def use_secret(self, secret):
        self.secret_file.write_text(secret)

    def received(self):
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


def start_receiver(folder, mode="ok"):
    folder.mkdir(parents=True, exist_ok=True)
    port_file, log, secret = folder / "port", folder / "received.jsonl", folder / "secret"
    secret.write_text("whsec_" + "A" * 44)  # until the webhook's is known
    process = processes.popen(
        [
            sys.executable,
            "-m",
            "tests.receivers.webhook_receiver",
            str(port_file),
            str(log),
            str(secret),
            mode,
        ]
    )
    deadline = time.monotonic() + 10
    while not port_file.exists():
        assert time.monotonic() < deadline, "the receiver did not start"
        assert process.poll() is None, "the receiver ended"
        time.sleep(0.05)
    return Receiver(f"http://127.0.0.1:{port_file.read_text()}/hooks", log, secret, process)


@pytest.fixture
def receiver(tmp_path):
    receiver = start_receiver(tmp_path / "receiver")
    yield receiver
    processes.stop(receiver.process)


def create_webhook(client, headers, receiver=None, **fields):
    body = {"url": receiver.url if receiver else "https://93.184.215.14/hooks", **fields}
    response = client.post(WEBHOOKS, json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    webhook = response.get_json()
    if receiver:
        receiver.use_secret(webhook["secret"])
    return webhook


def deliveries(client, headers, webhook_id):
    response = client.get(
        f"{WEBHOOKS}{webhook_id}/deliveries", query_string={"limit": 100}, headers=headers
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()["items"]
