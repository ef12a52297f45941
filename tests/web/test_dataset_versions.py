"""The dataset page's Versions tab (upload with a message, pin, restore, delete, download,
cancel an upload in flight) and the diff of two versions, in Chromium."""

import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import app_url, check_axe, no_horizontal_scroll

pytestmark = pytest.mark.e2e

FIRST = b"id,name,city\n1,Ann,Oslo\n2,Bob,Rome\n"
SECOND = b"id,name,city,age\n1,Ann,Oslo,31\n2,Bob,Paris,40\n3,Cid,Lima,22\n"


def owned_dataset(person_client, content=FIRST):
    dataset = person_client.dataset_create(f"versions-{secrets.token_hex(4)}")
    person_client.dataset_upload(
        dataset["id"], io.BytesIO(content), filename="people.csv", content_type="text/csv"
    )
    return dataset


def tab(page):
    """The Versions tab itself (the app's live region repeats its messages elsewhere)."""
    return page.get_by_role("region", name="Versions")


def version_row(page, number):
    table = page.get_by_role("table", name=re.compile("Versions of"))
    return table.get_by_role("row").filter(
        has=page.get_by_role("rowheader", name=re.compile(rf"^{number}(?!\d)"))
    )


def test_upload_pin_compare_restore_and_delete_versions(signed_in, server, shoot):
    page, owner = signed_in("editor")
    dataset = owned_dataset(owner.client)
    page.goto(app_url(server, f"/datasets/{dataset['id']}/versions"))
    expect(version_row(page, 1)).to_contain_text("current")
    check_axe(page)

    page.get_by_label("File").set_input_files(
        {"name": "people-2.csv", "mimeType": "text/csv", "buffer": SECOND}
    )
    page.get_by_label("Message").fill("Added ages and Cid")
    page.get_by_role("button", name="Upload", exact=True).click()
    expect(tab(page).get_by_text("Uploaded people-2.csv as version 2.")).to_be_visible()
    expect(version_row(page, 2)).to_contain_text("Added ages and Cid")
    expect(version_row(page, 2)).to_contain_text("current")
    expect(version_row(page, 1)).not_to_contain_text("current")

    page.get_by_role("button", name="Pin version 1").click()
    expect(page.get_by_role("button", name="Unpin version 1")).to_be_visible()
    expect(version_row(page, 1)).to_contain_text("pinned")
    assert owner.client.dataset_version_get(dataset["id"], 1)["pinned"] is True
    shoot(page, "dataset-versions")

    page.get_by_label("From version").select_option("1")
    page.get_by_label("To version").select_option("2")
    page.get_by_role("button", name="Compare", exact=True).click()
    expect(page).to_have_url(re.compile(r"/versions/compare\?from=1&to=2$"))
    summary = page.locator(".diff-summary")
    expect(summary).to_contain_text("2 rows added")
    expect(summary).to_contain_text("1 row removed")
    columns = page.get_by_role("table", name="Column changes")
    expect(columns.get_by_role("row", name=re.compile("added age"))).to_be_visible()
    samples = page.get_by_role("table", name="Sample of the rows that differ")
    expect(samples.get_by_role("rowheader", name="− removed")).to_have_count(1)
    check_axe(page)

    key = page.get_by_label("Key columns")
    key.fill("nope")
    page.get_by_role("button", name="Compare by key").click()
    expect(key).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#diff-key-error")).to_contain_text("nope")
    key.fill("id")
    page.get_by_role("button", name="Compare by key").click()
    expect(page).to_have_url(re.compile(r"key=id$"))
    expect(summary).to_contain_text("1 row changed")
    expect(samples.get_by_role("rowheader", name="~ changed (after)")).to_contain_text("changed")
    expect(samples).to_contain_text("Paris")
    shoot(page, "dataset-diff")

    page.get_by_role("link", name="Back to the versions").click()
    page.get_by_role("button", name="Restore version 1").click()
    expect(tab(page).get_by_text("Version 1 restored as version 3, now current.")).to_be_visible()
    expect(version_row(page, 3)).to_contain_text("current")
    assert owner.client.dataset_get(dataset["id"])["current_version"] == 3

    page.get_by_role("button", name="Delete version 3").click()
    dialog = page.get_by_role("dialog", name="Delete version 3?")
    expect(dialog).to_be_visible()
    check_axe(page)
    dialog.get_by_role("button", name="Delete version").click()
    expect(dialog.get_by_role("alert")).to_contain_text("Version is current")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()

    page.get_by_role("button", name="Delete version 2").click()
    page.get_by_role("dialog", name="Delete version 2?").get_by_role(
        "button", name="Delete version"
    ).click()
    expect(tab(page).get_by_text("Version 2 deleted.")).to_be_visible()
    expect(version_row(page, 2)).to_have_count(0)
    numbers = [v["version"] for v in owner.client.dataset_versions_list(dataset["id"])["items"]]
    assert numbers == [3, 1]


def test_a_reader_downloads_but_may_not_change_versions(signed_in, make_user, server):
    owner = make_user("editor")
    dataset = owned_dataset(owner.client)
    page, _ = signed_in("viewer", path=f"/datasets/{dataset['id']}/versions")
    expect(version_row(page, 1)).to_be_visible()
    for name in ("Pin version 1", "Restore version 1", "Delete version 1"):
        expect(page.get_by_role("button", name=name)).to_have_count(0)
    expect(page.get_by_role("button", name="Upload", exact=True)).to_have_count(0)
    with page.expect_download() as download:
        page.get_by_role("button", name="Download version 1").click()
    assert download.value.suggested_filename == "people.csv"
    with open(download.value.path(), "rb") as saved:
        assert saved.read() == FIRST


def test_an_upload_in_flight_is_cancelled_and_stores_nothing(signed_in, server):
    page, owner = signed_in("editor", viewport={"width": 390, "height": 844})
    dataset = owned_dataset(owner.client)
    page.goto(app_url(server, f"/datasets/{dataset['id']}/versions"))
    expect(version_row(page, 1)).to_be_visible()
    no_horizontal_scroll(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 200_000},
    )
    page.get_by_label("File").set_input_files(
        {"name": "big.csv", "mimeType": "text/csv", "buffer": b"id\n" + b"1\n" * 3_000_000}
    )
    page.get_by_role("button", name="Upload", exact=True).click()
    progress = page.get_by_role("progressbar", name=re.compile("Sending big.csv"))
    expect(progress).to_be_visible()
    check_axe(page)
    no_horizontal_scroll(page)
    page.get_by_role("button", name="Cancel upload").click()
    expect(tab(page).get_by_text("Upload cancelled: nothing was stored.")).to_be_visible()
    expect(progress).to_have_count(0)
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    assert owner.client.dataset_get(dataset["id"])["current_version"] == 1
    assert owner.client.dataset_versions_list(dataset["id"])["total"] == 1
