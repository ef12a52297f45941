"""Collections in Chromium: create, add datasets found by name, remove one (confirmed),
rename, delete (its datasets stay)."""

import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import check_axe, no_horizontal_scroll

pytestmark = pytest.mark.e2e


def test_a_collection_s_life(signed_in, shoot):
    page, person = signed_in("editor", "/collections")
    tag = secrets.token_hex(3)
    first = person.client.dataset_create(f"rain {tag}")
    second = person.client.dataset_create(f"snow {tag}")
    check_axe(page)
    page.get_by_role("link", name="New collection").click()
    page.get_by_label("Name").fill(f"Weather {tag}")
    page.get_by_label("Description").fill("Everything that falls from the sky")
    page.get_by_role("button", name="Create collection").click()
    expect(page.get_by_role("heading", name=f"Weather {tag}")).to_be_visible()
    expect(page.get_by_text("No datasets yet")).to_be_visible()
    check_axe(page)

    for dataset in (first, second):
        page.get_by_label("Find a dataset to add").fill(dataset["name"])
        page.get_by_role("button", name="Find").click()
        page.get_by_role("list", name="Datasets found").get_by_role(
            "button", name=f"Add {dataset['name']}"
        ).click()
        in_collection = page.get_by_role("list", name="Datasets in this collection")
        expect(in_collection.get_by_role("link", name=dataset["name"])).to_be_visible()
    shoot(page, "collection")

    page.get_by_role("button", name=f"Remove {first['name']} from the collection").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("The dataset itself stays")
    check_axe(page)
    dialog.get_by_role("button", name="Remove").click()
    in_collection = page.get_by_role("list", name="Datasets in this collection")
    expect(in_collection.get_by_role("link", name=first["name"])).to_have_count(0)
    expect(in_collection.get_by_role("link", name=second["name"])).to_be_visible()

    sharing = page.get_by_role("region", name="Sharing")
    sharing.get_by_label("Private", exact=True).check()
    sharing.get_by_role("button", name="Save visibility").click()
    expect(page.get_by_text("private ·")).to_be_visible()

    page.get_by_role("button", name="Edit").click()
    page.get_by_label("Name").fill(f"Precipitation {tag}")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name=f"Precipitation {tag}")).to_be_visible()

    page.get_by_role("link", name="Collections").click()
    expect(page.get_by_role("link", name=f"Precipitation {tag}")).to_be_visible()
    shoot(page, "collections")
    page.get_by_role("link", name=f"Precipitation {tag}").click()
    page.get_by_role("button", name="Delete collection").click()
    expect(page.get_by_role("dialog")).to_contain_text("datasets stay")
    page.get_by_role("dialog").get_by_role("button", name="Delete collection").click()
    expect(page).to_have_url(re.compile(r"/app/collections$"))
    assert person.client.dataset_get(second["id"])["name"] == second["name"]


def test_a_taken_name_shows_at_the_name_field(signed_in):
    page, person = signed_in("editor", "/collections/new")
    name = f"taken {secrets.token_hex(3)}"
    person.client._json("POST", "/api/v1/collections/", json_body={"name": name})
    page.get_by_label("Name").fill(name)
    page.get_by_role("button", name="Create collection").click()
    expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_text("Another collection has this name.")).to_be_visible()
    check_axe(page)


def test_a_viewer_finds_and_reads_but_does_not_change(signed_in, admin_client):
    name = f"Shared {secrets.token_hex(3)}"
    admin_client._json("POST", "/api/v1/collections/", json_body={"name": name})
    page, _ = signed_in("viewer", "/collections", viewport={"width": 390, "height": 844})
    expect(page.get_by_role("link", name="New collection")).to_have_count(0)
    page.get_by_label("Find a collection").fill(name)
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(r"q=Shared"))
    page.get_by_role("link", name=name).click()
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    expect(page.get_by_role("button", name="Edit")).to_have_count(0)
    expect(page.get_by_role("button", name="Delete collection")).to_have_count(0)
    no_horizontal_scroll(page)
    check_axe(page)
