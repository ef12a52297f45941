"""Tokens (the secret once, copy, revoke) and webhooks (the secret once, ping, a delivery
to a real receiver process, redeliver, delete) in Chromium."""

import re
import secrets
import time

import pytest
from playwright.sync_api import expect

from tests.events.webhooks.helpers import start_receiver
from tests.web.conftest import app_url, check_axe, no_horizontal_scroll

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def module_gunicorn_env():
    return {
        "DATAHUB_WEBHOOK_ALLOW_HTTP": "true",
        "DATAHUB_WEBHOOK_ALLOW_PRIVATE": "true",
        "DATAHUB_WEBHOOK_TIMEOUT_SECONDS": "2",
    }


@pytest.fixture(scope="module")
def module_pipeline_worker():
    return True  # the worker process sends the deliveries


def test_a_token_s_secret_is_shown_once_copied_and_the_token_revoked(signed_in, server, shoot):
    page, person = signed_in("editor", "/tokens")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    check_axe(page)
    name = f"nightly {secrets.token_hex(3)}"
    page.get_by_label("Name").fill(name)
    page.get_by_label("Write (change and upload what you may change)").check()
    page.get_by_label("Expires in days").fill("7")
    page.get_by_role("button", name="Create token").click()
    secret = page.get_by_label("Your new token")
    expect(secret).to_have_value(re.compile(r"^dhp_"))
    value = secret.input_value()
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == value
    check_axe(page)
    shoot(page, "tokens")
    row = page.get_by_role("row", name=re.compile(name))
    expect(row).to_contain_text("read, write")
    page.get_by_role("button", name="Done").click()
    expect(page.get_by_label("Your new token")).to_have_count(0)  # never shown again
    page.reload()
    expect(page.get_by_role("row", name=re.compile(name))).to_be_visible()
    assert value not in page.content()

    page.get_by_role("button", name=f"Revoke {name}").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("cannot be undone")
    check_axe(page)
    dialog.get_by_role("button", name="Revoke").click()
    expect(page.get_by_role("row", name=re.compile(name))).to_have_count(0)
    response = page.request.get(
        app_url(server, "").replace("/app", "/api/v1/auth/me"),
        headers={"Authorization": f"Bearer {value}"},
    )
    assert response.status == 401


def test_a_webhook_is_made_pinged_redelivered_and_deleted(signed_in, shoot, tmp_path):
    receiver = start_receiver(tmp_path / "receiver")
    try:
        page, _ = signed_in("editor", "/webhooks")
        check_axe(page)
        page.get_by_role("button", name="New webhook").click()
        page.get_by_label("Receiver URL").fill("ftp://example.com/")
        page.get_by_role("button", name="Create webhook").click()
        expect(
            page.get_by_text(re.compile("must be http or https"))
        ).to_be_visible()  # at its field
        check_axe(page)
        page.get_by_label("Receiver URL").fill(receiver.url)
        page.get_by_label("Run failed").check()
        page.get_by_role("button", name="Create webhook").click()
        secret = page.get_by_label(re.compile("Signing secret"))
        expect(secret).to_have_value(re.compile(r"^whsec_"))
        receiver.use_secret(secret.input_value())
        check_axe(page)
        shoot(page, "webhooks")
        page.get_by_role("button", name="Done").click()

        page.get_by_role("link", name=receiver.url).click()
        expect(page.get_by_role("heading", name="Webhook", exact=True)).to_be_visible()
        expect(page.get_by_text("No deliveries yet")).to_be_visible()
        page.get_by_role("button", name="Send a ping").click()
        deliveries = page.get_by_role("table", name="Deliveries")
        expect(deliveries.get_by_role("cell", name="Delivered")).to_be_visible(timeout=20_000)
        expect(deliveries.get_by_role("cell", name="datahub.webhook.ping")).to_be_visible()
        check_axe(page)
        shoot(page, "webhook")
        deliveries.get_by_role("button", name=re.compile("^Redeliver")).first.click()
        expect(page.get_by_role("status").filter(has_text="Redelivery queued")).to_have_count(1)
        deadline = time.monotonic() + 20
        while len(receiver.received()) < 2:  # the ping, then its redelivery, both verified
            assert time.monotonic() < deadline, receiver.received()
            time.sleep(0.2)

        page.get_by_role("button", name="Delete webhook").click()
        check_axe(page)
        page.get_by_role("dialog").get_by_role("button", name="Delete webhook").click()
        expect(page).to_have_url(re.compile(r"/app/webhooks$"))
        expect(page.get_by_text("No webhooks yet.")).to_be_visible()
    finally:
        receiver.process.terminate()


def test_tokens_at_390_px_do_not_scroll_sideways_and_viewers_make_no_webhooks(signed_in, server):
    page, _ = signed_in("viewer", "/tokens", viewport={"width": 390, "height": 844})
    expect(page.get_by_role("heading", name="Personal access tokens")).to_be_visible()
    no_horizontal_scroll(page)
    page.goto(app_url(server, "/webhooks"))
    expect(page.get_by_text("Webhooks are for editors and admins")).to_be_visible()
    expect(page.get_by_role("button", name="New webhook")).to_have_count(0)
