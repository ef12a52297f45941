"""Webhooks through HTTP, delivered to receiver processes on loopback by the dispatcher
(docs/guides/events.rst, "Webhooks"): the secret shown once, Standard Webhooks
signatures, filters, the owner's read rights at delivery, retries with backoff, turning
off after failures, the deliveries log, redeliver and ping."""

import pytest

from datahub.events.webhooks import dispatch
from tests import processes
from tests.access.conftest import grant
from tests.events.webhooks.helpers import (  # noqa: F401  (receiver: a fixture)
    LOOPBACK,
    WEBHOOKS,
    create_webhook,
    deliveries,
    receiver,
    start_receiver,
)
from tests.resources import actors, create_dataset  # noqa: F401  (actors: a fixture)


@pytest.fixture
def config_overrides():
    return {**LOOPBACK, "WEBHOOK_RETRY_SECONDS": [0, 0], "WEBHOOK_MAX_FAILURES": 4}


def test_a_change_reaches_the_receiver_signed(app, client, actors, receiver):
    editor = actors["editor"].headers
    webhook = create_webhook(client, editor, receiver)
    assert webhook["secret"].startswith("whsec_") and len(webhook["secret"]) == 50
    assert "secret" not in client.get(f"{WEBHOOKS}{webhook['id']}", headers=editor).get_json()

    dataset = create_dataset(client, editor, "rain")
    assert dispatch.run_once(app) == 1
    [message] = receiver.received()
    assert message["verified"] and message["status"] == 204
    assert message["event"]["type"] == "datahub.dataset.created"
    assert message["event"]["source"] == f"/api/v1/datasets/{dataset['id']}"
    assert message["headers"]["content-type"] == "application/cloudevents+json"
    [delivery] = deliveries(client, editor, webhook["id"])
    assert message["id"] == f"msg_{delivery['id']}"
    assert (delivery["status"], delivery["attempts"], delivery["response_status"]) == (
        "succeeded",
        1,
        204,
    )
    assert delivery["event_type"] == "datahub.dataset.created" and delivery["delivered_at"]
    assert dispatch.run_once(app) == 0  # each event once


def test_types_and_dataset_filter_what_is_sent(app, client, actors, receiver):
    editor = actors["editor"].headers
    wanted = create_dataset(client, editor, "wanted")
    create_webhook(
        client, editor, receiver, event_types=["datahub.dataset.updated"], dataset_id=wanted["id"]
    )
    other = create_dataset(client, editor, "other")
    for dataset in (wanted, other):
        client.patch(f"/api/v1/datasets/{dataset['id']}", json={"description": "x"}, headers=editor)
    dispatch.run_once(app)
    assert [(m["event"]["type"], m["event"]["data"]["id"]) for m in receiver.received()] == [
        ("datahub.dataset.updated", wanted["id"])
    ]


def test_only_what_the_owner_may_read_is_sent(app, client, actors, receiver):
    owner, other = actors["editor"].headers, actors["other_editor"].headers
    create_webhook(client, other, receiver)
    hidden = create_dataset(client, owner, "hidden", visibility="private")
    dispatch.run_once(app)
    assert receiver.received() == []

    shared = grant(
        client, owner, "datasets", hidden["id"], f"user:{actors['other_editor'].id}", "read"
    )
    client.patch(f"/api/v1/datasets/{hidden['id']}", json={"description": "now"}, headers=owner)
    dispatch.run_once(app)
    assert [m["event"]["type"] for m in receiver.received()] == ["datahub.dataset.updated"]
    assert shared


def test_read_rights_are_checked_again_at_delivery(app, client, actors, tmp_path):
    owner, other = actors["editor"].headers, actors["other_editor"].headers
    down = start_receiver(tmp_path / "down", mode="fail")
    webhook = create_webhook(client, other, down)
    dataset = create_dataset(client, owner, "shared", visibility="private")
    made = grant(
        client, owner, "datasets", dataset["id"], f"user:{actors['other_editor'].id}", "read"
    )
    client.patch(f"/api/v1/datasets/{dataset['id']}", json={"description": "x"}, headers=owner)
    # Handed out; the first tried once (the receiver answers 500), which ends the batch.
    dispatch.run_once(app)
    assert [d["status"] for d in deliveries(client, other, webhook["id"])] == ["pending"] * 2
    revoke = client.delete(f"/api/v1/datasets/{dataset['id']}/grants/{made['id']}", headers=owner)
    assert revoke.status_code == 204
    dispatch.run_once(app)
    for delivery in deliveries(client, other, webhook["id"]):  # created, updated
        assert delivery["status"] == "skipped"
        assert delivery["error"] == "the webhook's owner may no longer read what the event is about"
    assert len(down.received()) == 1
    processes.stop(down.process)


def test_failures_are_retried_then_give_up_and_turn_the_webhook_off(app, client, actors, tmp_path):
    editor = actors["editor"].headers
    down = start_receiver(tmp_path / "down", mode="fail")
    webhook = create_webhook(client, editor, down)
    create_dataset(client, editor, "one")
    create_dataset(client, editor, "two")
    for _ in range(4):
        dispatch.run_once(app)
    # WEBHOOK_RETRY_SECONDS [0, 0]: three attempts a message. A batch ends at its first
    # failure, so the oldest message is tried until it has failed; the fourth failure in a
    # row (WEBHOOK_MAX_FAILURES) turns the webhook off.
    first, second = sorted(deliveries(client, editor, webhook["id"]), key=lambda d: d["id"])
    assert (first["attempts"], first["status"], first["response_status"]) == (3, "failed", 500)
    assert first["error"] == "the receiver answered 500"
    assert (second["attempts"], second["status"]) == (1, "pending")
    off = client.get(f"{WEBHOOKS}{webhook['id']}", headers=editor).get_json()
    assert (off["active"], off["failures"]) == (False, 4)
    assert off["disabled_reason"] == "4 deliveries in a row failed"
    dispatch.run_once(app)
    assert len(down.received()) == 4  # nothing is sent to a webhook that is off

    on = client.patch(f"{WEBHOOKS}{webhook['id']}", json={"active": True}, headers=editor)
    assert (on.get_json()["active"], on.get_json()["failures"]) == (True, 0)
    for _ in range(2):
        dispatch.run_once(app)
    statuses = sorted(
        (d["attempts"], d["status"]) for d in deliveries(client, editor, webhook["id"])
    )
    assert statuses == [(3, "failed"), (3, "failed")]
    processes.stop(down.process)


def test_redeliver_sends_the_same_message_again(app, client, actors, receiver):
    editor = actors["editor"].headers
    webhook = create_webhook(client, editor, receiver)
    create_dataset(client, editor, "again")
    dispatch.run_once(app)
    [delivery] = deliveries(client, editor, webhook["id"])
    url = f"{WEBHOOKS}{webhook['id']}/deliveries/{delivery['id']}/redeliver"
    response = client.post(url, headers=editor)
    assert response.status_code == 202 and response.get_json()["status"] == "pending"
    dispatch.run_once(app)
    first, again = receiver.received()
    assert first["id"] == again["id"] and first["event"] == again["event"] and again["verified"]
    missing = client.post(f"{WEBHOOKS}{webhook['id']}/deliveries/999999/redeliver", headers=editor)
    assert (missing.status_code, missing.get_json()) == (404, {"detail": "Delivery not found"})


def test_ping_reaches_a_webhook_that_is_off(app, client, actors, receiver):
    editor = actors["editor"].headers
    webhook = create_webhook(client, editor, receiver, active=False)
    response = client.post(f"{WEBHOOKS}{webhook['id']}/ping", headers=editor)
    assert response.status_code == 202
    create_dataset(client, editor, "not sent")
    dispatch.run_once(app)
    [ping] = receiver.received()
    assert ping["verified"] and ping["event"]["type"] == "datahub.webhook.ping"
    assert ping["event"]["data"] == {"webhook_id": webhook["id"]}


def test_a_redirect_is_not_followed(app, client, actors, tmp_path):
    editor = actors["editor"].headers
    moved = start_receiver(tmp_path / "moved", mode="redirect")
    webhook = create_webhook(client, editor, moved)
    create_dataset(client, editor, "moved")
    dispatch.run_once(app)
    assert len(moved.received()) == 1
    [delivery] = deliveries(client, editor, webhook["id"])
    assert (delivery["response_status"], delivery["error"]) == (302, "the receiver answered 302")
    processes.stop(moved.process)


def test_a_slow_receiver_is_cut_at_the_timeout(app, client, actors, tmp_path):
    import time

    editor = actors["editor"].headers
    app.config["WEBHOOK_TIMEOUT_SECONDS"] = 1
    slow = start_receiver(tmp_path / "slow", mode="slow")
    webhook = create_webhook(client, editor, slow)
    create_dataset(client, editor, "slow")
    started = time.monotonic()
    dispatch.run_once(app)
    assert time.monotonic() - started < 3
    [delivery] = deliveries(client, editor, webhook["id"])
    assert delivery["status"] == "pending" and delivery["response_status"] is None
    assert delivery["error"] == "timed out" and delivery["duration_ms"] < 2000
    processes.stop(slow.process)


def test_the_address_is_checked_again_at_delivery(app, client, actors, receiver):
    editor = actors["editor"].headers
    webhook = create_webhook(client, editor, receiver)
    create_dataset(client, editor, "rebound")
    app.config["WEBHOOK_ALLOW_PRIVATE"] = False  # as if its name now resolved to loopback
    dispatch.run_once(app)
    assert receiver.received() == []
    [delivery] = deliveries(client, editor, webhook["id"])
    assert delivery["error"] == "URL resolves to a private, loopback or link-local address"


def test_a_new_webhook_gets_what_happens_after_it_never_the_history(app, client, actors, receiver):
    editor = actors["editor"].headers
    create_dataset(client, editor, "before")
    create_webhook(client, editor, receiver)
    after = create_dataset(client, editor, "after")
    dispatch.run_once(app)
    assert [m["event"]["data"]["id"] for m in receiver.received()] == [after["id"]]


def test_an_address_that_wraps_loopback_is_refused_at_delivery(app, client, actors):
    editor = actors["editor"].headers
    webhook = create_webhook(client, editor, url="http://[2002:7f00:1::]/hooks")  # 6to4
    create_dataset(client, editor, "wrapped")
    app.config["WEBHOOK_ALLOW_PRIVATE"] = False  # as when its name resolves there now
    dispatch.run_once(app)
    [delivery] = deliveries(client, editor, webhook["id"])
    assert delivery["error"] == "URL resolves to a private, loopback or link-local address"
