"""A dataset's checks in Chromium: a writer sets them on the Checks tab; a version that
fails them is quarantined (the worker checks it), marked so in the Versions tab, its
results shown with the failing rows, and a manager publishes it anyway."""

import io
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import app_url, check_axe

pytestmark = pytest.mark.e2e

BAD = b"id,amount\n1,10\n1,\n"


@pytest.fixture(scope="module")
def module_pipeline_worker():
    return True  # it checks the versions


def test_checks_quarantine_and_publish_anyway(signed_in, server, shoot):
    page, person = signed_in("editor")
    dataset = person.client.dataset_create(f"sales-{secrets.token_hex(4)}")
    page.goto(app_url(server, f"/datasets/{dataset['id']}/checks"))
    expect(page.get_by_text("No checks: every new version is published at once.")).to_be_visible()
    page.get_by_role("button", name="Add a check").click()
    check = page.get_by_role("group", name="Check 1")
    check.get_by_role("textbox", name="Name").fill("ids")
    page.get_by_role("group", name="ids").get_by_role("combobox", name="Type").select_option(
        label="Unique"
    )
    page.get_by_role("group", name="ids").get_by_role("textbox", name="Columns").fill("id")
    page.get_by_role("button", name="Save checks").click()
    expect(page.get_by_text("Saved.", exact=True)).to_be_visible()
    assert person.client.dataset_checks(dataset["id"])["checks"] == [
        {"name": "ids", "type": "unique", "columns": ["id"], "severity": "error"}
    ]
    check_axe(page)

    person.client.dataset_upload(dataset["id"], io.BytesIO(BAD), filename="sales.csv")
    page.goto(app_url(server, f"/datasets/{dataset['id']}/checks"))
    expect(page.get_by_text("Version 1 is quarantined", exact=False)).to_be_visible(timeout=15000)
    results = page.get_by_role("table", name="Results of the checks of version 1")
    expect(results.get_by_role("row", name="ids failed 2 2 row(s) share a key")).to_be_visible()
    results.get_by_text("Show the failing rows").click()
    expect(results.get_by_text("1, 2")).to_be_visible()
    check_axe(page)
    shoot(page, "dataset-checks")

    page.get_by_role("navigation", name="Dataset").get_by_role("link", name="Versions").click()
    expect(page.get_by_role("link", name="quarantined")).to_be_visible()
    page.get_by_role("button", name="Publish version 1 anyway").click()
    expect(
        page.get_by_text("Version 1 published although its checks failed.").first
    ).to_be_visible()
    expect(page.get_by_role("link", name="quarantined")).to_have_count(0)
    assert person.client.dataset_get(dataset["id"])["current_version"] == 1
