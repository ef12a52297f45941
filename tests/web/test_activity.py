"""The activity feed in Chromium: newest first, live (an upload by another client shows
without a reload, announced), filtered by type and by dataset, older pages."""

import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import check_axe

pytestmark = pytest.mark.e2e


def test_the_feed_is_live_filtered_and_paged(signed_in, admin_client, shoot):
    tag = secrets.token_hex(3)
    dataset = admin_client.dataset_create(f"feed {tag}")
    page, _ = signed_in("viewer", "/activity")
    events = page.get_by_role("list", name="Events")
    expect(events.get_by_role("link", name=f"feed {tag}")).to_be_visible()
    check_axe(page)

    admin_client.dataset_upload(dataset["id"], io.BytesIO(b"a,b\n1,2\n"), filename="feed.csv")
    expect(events.get_by_role("listitem").first).to_contain_text("New version", timeout=15_000)
    expect(page.get_by_role("status").filter(has_text="new event")).to_have_count(1)
    shoot(page, "activity")

    page.get_by_label("What happened").select_option(label="Dataset created")
    expect(page).to_have_url(re.compile(r"type=datahub.dataset.created"))
    expect(events.get_by_text("New version")).to_have_count(0)
    page.get_by_label("What happened").select_option(label="Everything")
    newest = events.get_by_role("listitem").first
    expect(newest).to_contain_text("New version")  # the unfiltered page, not the one before
    newest.get_by_role("link").click()
    expect(page).to_have_url(re.compile(rf"/app/datasets/{dataset['id']}/versions$"))

    for number in range(26):
        admin_client.dataset_update(dataset["id"], description=f"change {number}")
    page.goto(page.url.split("/app/")[0] + f"/app/activity?dataset={dataset['id']}")
    expect(page.get_by_text(f"Only about feed {tag}")).to_be_visible()
    expect(events.get_by_role("listitem")).to_have_count(25)
    page.get_by_role("button", name="Older events").click()
    expect(page).to_have_url(re.compile(r"before=\d+"))
    expect(events.get_by_role("listitem")).to_have_count(3)  # 28 events about it in all
    page.get_by_role("button", name="Newest").click()
    expect(events.get_by_role("listitem")).to_have_count(25)
    check_axe(page)
