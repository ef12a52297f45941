"""The webhook dispatcher's loop (docs/guides/events.rst, "Webhooks"): a slow receiver and
its owner's pings delay no one else's messages nor the triggers, a periodic job or a
webhook that makes the dispatcher fail stops nothing else, pings and redeliveries are
capped per owner."""

import logging
import threading
import time

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.events.webhooks import dispatch
from datahub.events.webhooks.models import Webhook
from datahub.pipelines import triggers
from datahub.pipelines.models import Run
from tests import processes
from tests.events.webhooks.helpers import (  # noqa: F401  (receiver: a fixture)
    LOOPBACK,
    WEBHOOKS,
    create_webhook,
    deliveries,
    receiver,
    start_receiver,
)
from tests.pipelines.helpers import create_pipeline, source
from tests.resources import actors, create_dataset, upload  # noqa: F401  (actors: a fixture)

TOO_MANY = {"detail": "Too many queued pings and redeliveries"}


@pytest.fixture
def config_overrides():
    return {**LOOPBACK, "WEBHOOK_RETRY_SECONDS": [0, 0], "WEBHOOK_QUEUED_REQUESTS": 5}


def wait_until(check, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False


def run_count(app, pipeline_id):
    with app.app_context():
        count = db.session.scalar(
            sa.select(sa.func.count()).select_from(Run).where(Run.pipeline_id == pipeline_id)
        )
        db.session.remove()
    return count


@pytest.fixture
def dispatcher(app):
    """A worker's dispatcher thread, with the triggers' sweep, until the test ends."""
    stop = threading.Event()
    running = dispatch.Dispatcher(app, stop, also=[triggers.sweep]).start()
    yield running
    stop.set()
    running.thread.join(30)


def test_a_slow_receiver_and_its_pings_delay_no_one_else(
    app, client, actors, receiver, tmp_path, dispatcher
):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    slow = start_receiver(tmp_path / "slow", mode="slow")  # 10 s to answer, cut at 5
    slow_hook = create_webhook(client, editor, slow)
    pings = [client.post(f"{WEBHOOKS}{slow_hook['id']}/ping", headers=editor) for _ in range(40)]
    assert wait_until(
        lambda: deliveries(client, editor, slow_hook["id"])[-1]["status"] == "sending", 5
    )
    create_webhook(client, other, receiver)
    data = source(client, other, name="theirs")
    pipeline = create_pipeline(client, other, data["id"], trigger={"on": "new_version"})

    started = time.monotonic()
    create_dataset(client, other, "meanwhile")
    assert wait_until(lambda: receiver.received(), 2), "another user's message waited"
    assert upload(client, other, data["id"], b"n\r\n1\r\n").status_code == 200
    assert wait_until(lambda: run_count(app, pipeline["id"]) == 1, 2), "the trigger waited"
    assert time.monotonic() - started < 3
    assert [m["event"]["type"] for m in receiver.received()][0] == "datahub.dataset.created"

    statuses = [response.status_code for response in pings]
    assert statuses == [202] * 5 + [429] * 35
    assert pings[-1].get_json() == TOO_MANY and pings[-1].headers["Retry-After"] == "5"
    processes.stop(slow.process)


def test_a_raising_job_stops_neither_deliveries_nor_the_other_jobs(
    app, client, actors, receiver, caplog
):
    editor = actors["editor"].headers
    create_webhook(client, editor, receiver)
    calls = []

    def broken_sweep():
        raise RuntimeError("a schedule that cannot be read")

    caplog.set_level(logging.INFO, logger="datahub.webhooks")
    for name in ("one", "two", "three"):
        create_dataset(client, editor, name)
        assert dispatch.run_once(app, also=[broken_sweep, lambda: calls.append(1)]) == 1
    assert len(receiver.received()) == 3 and len(calls) == 3
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(problems) == 1, [r.getMessage() for r in problems]  # once per cause
    assert "a schedule that cannot be read" in problems[0].getMessage()
    assert problems[0].exc_info is not None  # its traceback, that once


def test_a_webhook_that_breaks_the_dispatcher_is_turned_off_alone(
    app, client, actors, receiver, tmp_path
):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    broken = create_webhook(client, editor, start_receiver(tmp_path / "broken"))
    create_webhook(client, other, receiver)
    with app.app_context():  # as if its stored secret were damaged
        db.session.get(Webhook, broken["id"]).secret = "whsec_%%%"
        db.session.commit()
        db.session.remove()
    create_dataset(client, other, "public")
    dispatch.run_once(app)
    assert [m["event"]["type"] for m in receiver.received()] == ["datahub.dataset.created"]
    off = client.get(f"{WEBHOOKS}{broken['id']}", headers=editor).get_json()
    [delivery] = deliveries(client, editor, broken["id"])
    assert off["active"] is False
    assert off["disabled_reason"] == (
        f"the dispatcher failed on message msg_{delivery['id']}: "
        "signing failed (EmptyWebhookSecretError)"
    )
    assert delivery["status"] == "failed"


def test_a_webhook_whose_filter_breaks_the_hand_out_is_turned_off_alone(
    app, client, actors, receiver, tmp_path
):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    broken = create_webhook(client, editor, start_receiver(tmp_path / "broken"))
    create_webhook(client, other, receiver)
    with app.app_context():  # as if its stored filter were damaged
        db.session.get(Webhook, broken["id"]).event_types = 5
        db.session.commit()
        db.session.remove()
    create_dataset(client, other, "public")
    dispatch.run_once(app)
    assert [m["event"]["type"] for m in receiver.received()] == ["datahub.dataset.created"]
    with app.app_context():  # (its damaged filter cannot be shown through the API)
        off = db.session.get(Webhook, broken["id"])
        assert (off.active, off.disabled_reason) == (
            False,
            "the dispatcher failed on its filter (TypeError)",
        )
        db.session.remove()


def test_pings_and_redeliveries_are_capped_per_owner(app, client, actors, receiver, tmp_path):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    webhook = create_webhook(client, editor, receiver)
    create_dataset(client, editor, "sent")
    dispatch.run_once(app)
    [sent] = deliveries(client, editor, webhook["id"])
    ping = f"{WEBHOOKS}{webhook['id']}/ping"
    redeliver = f"{WEBHOOKS}{webhook['id']}/deliveries/{sent['id']}/redeliver"
    assert client.post(redeliver, headers=editor).status_code == 202
    for _ in range(4):
        assert client.post(ping, headers=editor).status_code == 202
    for url in (ping, redeliver):
        refused = client.post(url, headers=editor)
        assert (refused.status_code, refused.get_json()) == (429, TOO_MANY)
        assert refused.headers["Retry-After"] == "5"
    their_receiver = start_receiver(tmp_path / "theirs")
    theirs = create_webhook(client, other, their_receiver)  # another owner's room is their own
    assert client.post(f"{WEBHOOKS}{theirs['id']}/ping", headers=other).status_code == 202

    assert dispatch.run_once(app) == 6  # tried: room again
    assert client.post(ping, headers=editor).status_code == 202
