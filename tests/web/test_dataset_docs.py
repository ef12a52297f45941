"""A dataset's README on its Overview and its column descriptions on its Schema tab, as a
writer edits them: preview, a refused README kept as typed, sanitised rendering, saved
descriptions."""

import io
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import app_url, check_axe

pytestmark = pytest.mark.e2e

CSV = b"city,temp,day\nOslo,3.5,2026-01-01\nBergen,7.25,2026-01-02\n"
TOO_LONG = "x" * (100 * 1024 + 1)  # past the service's 100 KB


def named(what):
    return f"{what}-{secrets.token_hex(4)}"


def tab(page, name):
    page.get_by_role("navigation", name="Dataset").get_by_role("link", name=name).click()


def test_a_writer_edits_the_readme_and_the_column_descriptions(signed_in, server, shoot):
    page, person = signed_in("editor")
    dataset = person.client.dataset_create(named("documented"), visibility="internal")
    person.client.dataset_upload(dataset["id"], io.BytesIO(CSV), filename="weather.csv")
    page.goto(app_url(server, f"/datasets/{dataset['id']}"))
    readme = page.get_by_role("region", name="README")
    expect(readme).to_contain_text("No README yet.")
    expect(page.get_by_text("Views, last 30 days")).to_be_visible()
    readme.get_by_role("button", name="Write a README").click()
    page.get_by_role("textbox", name="README").fill(
        "## Method\n\nMeasured **daily**.<script>window.hacked = 3</script>"
    )
    page.get_by_role("button", name="Preview").click()
    preview = page.get_by_role("region", name="README preview")
    expect(preview.get_by_role("heading", name="Method")).to_be_visible()
    page.get_by_role("button", name="Preview").click()
    # Past the service's limit: said at the field, the text kept.
    page.get_by_role("textbox", name="README").fill(TOO_LONG)
    page.get_by_role("button", name="Save").click()
    box = page.get_by_role("textbox", name="README")
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(page.locator(".field__error")).to_be_visible()
    expect(box).to_have_value(TOO_LONG)
    box.fill("## Method\n\nMeasured **daily**.<script>window.hacked = 3</script>")
    page.get_by_role("button", name="Save").click()
    expect(readme.get_by_role("heading", name="Method")).to_be_visible()
    expect(readme.locator("strong")).to_have_text("daily")
    assert page.evaluate("window.hacked") is None
    check_axe(page)
    readme.scroll_into_view_if_needed()
    shoot(page, "dataset-readme")

    tab(page, "Schema")
    description = page.get_by_role("textbox", name="Description of temp")
    description.fill("Air temperature in °C")
    page.get_by_role("textbox", name="Description of city").fill("Where it was measured")
    page.get_by_role("button", name="Save descriptions").click()
    expect(page.get_by_text("Saved.", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Save descriptions")).to_be_disabled()
    check_axe(page)
    shoot(page, "dataset-schema")
    page.reload()
    expect(page.get_by_role("textbox", name="Description of temp")).to_have_value(
        "Air temperature in °C"
    )
