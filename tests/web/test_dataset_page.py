"""The dataset page and its tabs (Overview, Schema, Preview, Activity, Settings) and the
New dataset form (create + upload as one task; the choice after a failed upload); the
README and column descriptions: test_dataset_docs.py."""

import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import app_url, check_axe, no_horizontal_scroll

pytestmark = pytest.mark.e2e

LIMIT = 2048  # the module's largest file: a bigger one fails its upload
CSV = b"city,temp,day\nOslo,3.5,2026-01-01\nBergen,7.25,2026-01-02\nTromso,-4.0,2026-01-03\n"
TOO_BIG = b"city,temp\n" + b"Oslo,3.5\n" * 400
DESCRIPTION = (
    "# About the weather\n\nDaily **temperatures**.\n\n"
    '<img src="x" alt="" onerror="window.hacked = 1">\n\n<script>window.hacked = 2</script>'
)


@pytest.fixture(scope="module")
def module_gunicorn_env():
    return {"DATAHUB_MAX_CONTENT_LENGTH": str(LIMIT)}


def named(what):
    return f"{what}-{secrets.token_hex(4)}"


def csv_file(name, body=CSV):
    return {"name": name, "mimeType": "text/csv", "buffer": body}


def fill_form(page, name, description="", tags="", visibility=None):
    page.get_by_label("Name").fill(name)
    if description:
        page.get_by_role("textbox", name="Description").fill(description)
    if tags:
        page.get_by_label("Tags").fill(tags)
    if visibility:
        page.get_by_label("Visibility").select_option(visibility)


def tab(page, name):
    page.get_by_role("navigation", name="Dataset").get_by_role("link", name=name).click()


def test_an_editor_creates_a_dataset_with_its_file_and_reads_every_tab(signed_in, shoot):
    page, _ = signed_in("editor", "/datasets/new")
    name = named("weather")
    check_axe(page)
    fill_form(page, name, DESCRIPTION, "climate, daily", "internal")
    page.get_by_label("File", exact=True).set_input_files(csv_file("weather.csv"))
    page.get_by_role("button", name="Create and upload").click()

    expect(page).to_have_url(re.compile(r"/app/datasets/\d+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    # Overview: the description as sanitised Markdown, facts, download.
    expect(page.get_by_role("heading", name="About the weather")).to_be_visible()
    expect(page.locator(".catalog-markdown strong")).to_have_text("temperatures")
    assert page.locator(".catalog-markdown script, .catalog-markdown [onerror]").count() == 0
    assert page.evaluate("window.hacked") is None
    expect(page.get_by_role("link", name=re.compile("Tag climate"))).to_be_visible()
    expect(page.get_by_text("No pipeline you can see reads this dataset.")).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download weather.csv").click()
    assert download.value.suggested_filename == "weather.csv"
    with open(download.value.path(), "rb") as fileobj:
        assert fileobj.read() == CSV
    check_axe(page)
    shoot(page, "dataset-overview")

    tab(page, "Schema")
    columns = page.get_by_role("table", name=f"Columns of {name}")
    expect(columns.get_by_role("row")).to_have_count(4)
    expect(columns).to_contain_text("temp")
    expect(columns).to_contain_text("DOUBLE")
    check_axe(page)

    tab(page, "Preview")
    rows = page.get_by_role("table", name=re.compile("First rows of"))
    expect(rows.get_by_role("row")).to_have_count(4)
    expect(rows).to_contain_text("Bergen")
    page.get_by_label("Version", exact=True).select_option("1")
    expect(page).to_have_url(re.compile(r"/preview\?version=1$"))
    expect(page.get_by_text("The first 3 rows of version 1.")).to_be_visible()
    check_axe(page)
    shoot(page, "dataset-preview")


def test_activity_lists_the_events_and_follows_new_ones(signed_in, admin_client, shoot):
    dataset = admin_client.dataset_create(named("active"), visibility="internal")
    page, _ = signed_in("admin", f"/datasets/{dataset['id']}/activity")
    events = page.get_by_role("list", name="Events, newest first")
    expect(events.get_by_role("listitem")).to_have_count(1)
    expect(events).to_contain_text("Dataset created")
    admin_client.dataset_update(dataset["id"], description="changed from elsewhere")
    expect(events.get_by_role("listitem")).to_have_count(2, timeout=15_000)  # live, not reloaded
    expect(events.get_by_role("listitem").first).to_contain_text("Dataset changed")
    expect(page.get_by_role("status").filter(has_text="1 new event")).to_be_attached()
    check_axe(page)
    shoot(page, "dataset-activity")
    for number in range(20):
        admin_client.dataset_update(dataset["id"], description=f"change {number}")
    expect(events.get_by_role("listitem")).to_have_count(20, timeout=15_000)
    # The live list reaches 20 before the last events may have come: "Older events" would
    # then start from an event that is not the 20th newest. Read anew, it holds those.
    page.reload()
    expect(events.get_by_role("listitem")).to_have_count(20)
    page.get_by_role("button", name="Older events").click()
    expect(events.get_by_role("listitem")).to_have_count(2)  # 22 events in all
    expect(events.get_by_role("listitem").last).to_contain_text("Dataset created")
    page.get_by_role("button", name="Newest").click()
    expect(events.get_by_role("listitem")).to_have_count(20)
    expect(page.get_by_role("button", name="Newest")).to_have_count(0)


def test_settings_rename_a_taken_name_and_delete_with_confirmation(signed_in, server, shoot):
    page, person = signed_in("editor", "/")
    taken = person.client.dataset_create(named("taken"))
    dataset = person.client.dataset_create(named("renamed"), description="before")
    page.goto(app_url(server, f"/datasets/{dataset['id']}/settings"))
    expect(page.get_by_role("textbox", name="Description")).to_have_value("before")
    check_axe(page)
    shoot(page, "dataset-settings")

    page.get_by_label("Name").fill(taken["name"])
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_label("Name")).to_have_accessible_description(
        re.compile("Name already exists")
    )
    new_name = named("better")
    page.get_by_label("Name").fill(new_name)
    page.get_by_label("Tags").fill("one, two , one")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(new_name)
    assert person.client.dataset_get(dataset["id"])["tags"] == ["one", "two"]

    page.get_by_role("button", name="Delete this dataset").click()
    dialog = page.get_by_role("dialog", name=f"Delete {new_name}?")
    expect(dialog).to_be_visible()
    check_axe(page)
    dialog.get_by_role("button", name="Delete the dataset").click()
    expect(page).to_have_url(re.compile(r"/app/?$"))
    expect(page.get_by_role("status").filter(has_text="was deleted")).to_be_attached()
    assert person.client.datasets_list(q=new_name)["total"] == 0


def test_a_failed_upload_leaves_the_choice_then_try_again_or_delete(signed_in, server):
    page, person = signed_in("editor", "/datasets/new")
    name = named("big")
    fill_form(page, name)
    page.get_by_label("File", exact=True).set_input_files(csv_file("big.csv", TOO_BIG))
    page.get_by_role("button", name="Create and upload").click()
    expect(page.get_by_role("heading", name="The upload failed")).to_be_visible()
    expect(page.get_by_role("button", name="Keep the dataset without a file")).to_be_visible()
    check_axe(page)
    # Another, smaller file, and the upload again: the dataset page with its file.
    page.get_by_label("File", exact=True).set_input_files(csv_file("small.csv"))
    page.get_by_role("button", name="Try the upload again").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    expect(page.get_by_role("button", name="Download small.csv")).to_be_visible()

    page.goto(app_url(server, "/datasets/new"))
    other = named("gone")
    fill_form(page, other)
    page.get_by_label("File", exact=True).set_input_files(csv_file("big.csv", TOO_BIG))
    page.get_by_role("button", name="Create and upload").click()
    page.get_by_role("button", name="Delete the dataset").click()
    expect(page.get_by_role("button", name="Create and upload")).to_be_visible()
    expect(page.get_by_label("Name")).to_have_value(other)
    assert person.client.datasets_list(q=other)["total"] == 0


def test_a_viewer_sees_no_settings_and_no_upload(signed_in, admin_client):
    dataset = admin_client.dataset_create(named("readonly"), visibility="internal")
    page, _ = signed_in("viewer", f"/datasets/{dataset['id']}")
    tabs = page.get_by_role("navigation", name="Dataset").get_by_role("link")
    expect(tabs).to_have_text(
        ["Overview", "Schema", "Checks", "Preview", "Versions", "Lineage", "Activity"]
    )
    expect(page.get_by_text("Its owner has not uploaded one.")).to_be_visible()
    expect(page.get_by_role("link", name=re.compile("Upload"))).to_have_count(0)
    expect(page.get_by_role("link", name="New dataset")).to_have_count(0)
    check_axe(page)


def test_a_missing_dataset_says_so_and_the_page_fits_390_px(signed_in, server, admin_client):
    page, _ = signed_in("admin", "/datasets/99999999", viewport={"width": 390, "height": 844})
    expect(page.get_by_role("heading", level=1)).to_have_text("Dataset not found")
    check_axe(page)
    dataset = admin_client.dataset_create(named("narrow-" + "x" * 40), description="A " * 200)
    page.get_by_role("link", name="Back to the catalog").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Catalog")
    page.goto(app_url(server, f"/datasets/{dataset['id']}"))
    expect(page.get_by_role("heading", level=1)).to_have_text(dataset["name"])
    no_horizontal_scroll(page)
