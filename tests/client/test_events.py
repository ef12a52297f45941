"""Events and webhooks through datahub_client and the ``datahub`` command against a real
gunicorn: paging and following the events, a webhook's life (create, list, ping,
deliveries, redeliver, disable, enable, delete), and the service's refusals."""

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

import pytest

from datahub_client import NotFoundError, ValidationError
from datahub_client.events import NEWEST
from tests import processes

pytestmark = pytest.mark.e2e

PUBLIC = "https://93.184.215.14/hooks"  # an address the service accepts (no DNS)


def test_events_page_and_follow(client, unique):
    before = list(client.events_iter())  # the module's other tests' events
    first = client.dataset_create(unique("first"))
    client.dataset_update(first["id"], description="changed")
    second = client.dataset_create(unique("second"))
    everything = list(client.events_iter())
    assert everything[: len(before)] == before
    new = everything[len(before) :]
    assert [(e["type"], e["source"]) for e in new] == [
        ("datahub.dataset.created", f"/api/v1/datasets/{first['id']}"),
        ("datahub.dataset.updated", f"/api/v1/datasets/{first['id']}"),
        ("datahub.dataset.created", f"/api/v1/datasets/{second['id']}"),
    ]
    page = client.events_list(limit=1)
    assert page["items"] == everything[:1] and page["next_after"] == int(everything[0]["id"])
    newest = client.events_list(before=NEWEST, limit=2)  # a feed: newest first
    assert newest["items"] == everything[::-1][:2]
    older = client.events_list(before=newest["next_before"], limit=2)
    assert older["items"] == everything[::-1][2:4]
    updated = list(client.events_iter(type="datahub.dataset.updated"))
    assert updated == [e for e in everything if e["type"] == "datahub.dataset.updated"]
    assert updated[-1]["id"] == new[1]["id"]
    assert [e["id"] for e in client.events_iter(dataset_id=second["id"])] == [new[2]["id"]]
    # Following: what there is, then what happens next, from where it left off.
    follower = client.events_follow(after=new[1]["id"], poll_seconds=0.1)
    assert next(follower)["id"] == new[2]["id"]
    third = client.dataset_create(unique("third"))
    assert next(follower)["source"] == f"/api/v1/datasets/{third['id']}"


def test_a_webhook_s_life(client):
    before = [w["id"] for w in client.webhooks_iter()]  # the module's other tests' webhooks
    webhook = client.webhook_create(PUBLIC, event_types=["datahub.run.failed"], active=False)
    assert webhook["secret"].startswith("whsec_")
    assert [w["id"] for w in client.webhooks_iter()] == [*before, webhook["id"]]
    assert "secret" not in client.webhook_get(webhook["id"])
    ping = client.webhook_ping(webhook["id"])
    assert (ping["event_type"], ping["status"]) == ("datahub.webhook.ping", "pending")
    page = client.webhook_deliveries(webhook["id"])
    assert [d["id"] for d in page["items"]] == [ping["id"]]
    again = client.webhook_redeliver(webhook["id"], ping["id"])
    assert again["status"] == "pending"
    assert client.webhook_update(webhook["id"], active=True)["active"] is True
    client.webhook_delete(webhook["id"])
    with pytest.raises(NotFoundError):
        client.webhook_get(webhook["id"])
    with pytest.raises(ValidationError) as refused:
        client.webhook_create("http://127.0.0.1:9/hooks")
    assert refused.value.status == 422


def test_the_command(datahub, client, unique):
    made = datahub(
        "--json", "webhooks", "create", PUBLIC, "--type", "datahub.dataset.created", "--inactive"
    )
    assert made.exit_code == 0, made.output
    webhook = json.loads(made.stdout)
    assert webhook["event_types"] == ["datahub.dataset.created"] and not webhook["active"]
    listed = datahub("webhooks", "list")
    assert PUBLIC in listed.stdout and "datahub.dataset.created" in listed.stdout
    assert datahub("webhooks", "ping", str(webhook["id"])).exit_code == 0
    deliveries = datahub("webhooks", "deliveries", str(webhook["id"]))
    assert "datahub.webhook.ping" in deliveries.stdout and "pending" in deliveries.stdout
    assert "yes" in datahub("webhooks", "enable", str(webhook["id"])).stdout
    assert (
        datahub("webhooks", "delete", str(webhook["id"])).stdout.strip()
        == f"Deleted webhook {webhook['id']}"
    )
    refused = datahub("webhooks", "create", "ftp://example.com/")
    assert refused.exit_code == 1 and "URL must be https" in refused.stderr

    # From the newest event before (a page holds 20; the module's other tests made some).
    after = str(max((int(e["id"]) for e in client.events_iter()), default=0))
    dataset = client.dataset_create(unique("listed"))
    events = datahub("--json", "events", "list", "--after", after)
    assert [e["source"] for e in json.loads(events.stdout)["items"]] == [
        f"/api/v1/datasets/{dataset['id']}"
    ]
    table = datahub("events", "list", "--type", "datahub.dataset.created", "--after", after)
    assert f"/api/v1/datasets/{dataset['id']}" in table.stdout and "next: --after" in table.stderr
    newest = datahub("--json", "events", "list", "--newest", "--limit", "1")
    assert [e["source"] for e in json.loads(newest.stdout)["items"]] == [
        f"/api/v1/datasets/{dataset['id']}"
    ]
    older = datahub("events", "list", "--newest", "--limit", "1")
    assert "next: --before" in older.stderr


def test_tail_prints_new_events_until_interrupted(datahub, client, server, tmp_path, unique):
    """``datahub events tail`` as a process of its own, on the live stream: it starts from
    now, prints each new event as one line, and Ctrl-C (SIGINT) ends it quietly."""
    before = client.dataset_create(unique("before"))
    command = shutil.which("datahub", path=os.path.dirname(sys.executable))
    env = {
        **os.environ,
        "DATAHUB_URL": server.url,
        "DATAHUB_SESSION_FILE": str(tmp_path / "session.json"),  # the datahub fixture's login
    }
    tail = processes.popen(
        [command, "events", "tail"],
        ctrl_c=True,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        # A new dataset each second until tail prints: it prints from when its stream
        # opened, which a slow start may make later than the first of them.
        during, deadline = [], time.monotonic() + 30
        while not select.select([tail.stdout], [], [], 0)[0]:
            assert time.monotonic() < deadline, "tail printed nothing"
            during.append(client.dataset_create(unique(f"during {len(during)}")))
            select.select([tail.stdout], [], [], 1)
        line = tail.stdout.readline()
        sources = [f"/api/v1/datasets/{d['id']}  " for d in during]  # a row's columns: 2 spaces
        assert "datahub.dataset.created" in line and any(s in line for s in sources), line
        tail.send_signal(signal.SIGINT)
        assert tail.wait(20) == 0
        printed = line + tail.stdout.read()
        assert f"/api/v1/datasets/{before['id']}  " not in printed  # from now: not the past
    finally:
        processes.stop(tail)


def test_a_pipeline_s_trigger_from_the_command(datahub, client, unique):
    source = client.dataset_create(unique("trigger source"))
    body = {
        "name": unique("triggered"),
        "source_dataset_id": source["id"],
        "output_dataset_name": unique("t out"),
    }
    pipeline = client._json("POST", "/api/v1/pipelines/", json_body=body)
    scheduled = datahub(
        "pipelines",
        "trigger",
        str(pipeline["id"]),
        "--cron",
        "0 3 * * *",
        "--timezone",
        "Europe/Oslo",
    )
    assert scheduled.exit_code == 0, scheduled.output
    assert '{"cron": "0 3 * * *", "timezone": "Europe/Oslo"}, next run ' in scheduled.stdout
    assert client.pipeline_set_trigger(pipeline["id"], {"on": "new_version"})["trigger"] == {
        "on": "new_version"
    }
    cleared = datahub("--json", "pipelines", "trigger", str(pipeline["id"]), "--none")
    assert json.loads(cleared.stdout)["trigger"] is None
    bad = datahub("pipelines", "trigger", str(pipeline["id"]), "--cron", "every day")
    assert bad.exit_code == 1 and "trigger cron: not a cron expression" in bad.stderr
    both = datahub("pipelines", "trigger", str(pipeline["id"]), "--none", "--on-new-version")
    assert both.exit_code == 2
