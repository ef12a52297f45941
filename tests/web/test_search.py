"""Search in the catalog at /app/, through the real service: suggestions as one types (a
combobox worked by keyboard and pointer), highlighted results of every kind, facets, axe,
390 px."""

import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import check_axe, no_horizontal_scroll

pytestmark = pytest.mark.e2e

CSV = b"station,temp\nOslo Blindern,3.5\nBergen Florida,7.25\n"


class Seed:
    """Two datasets and a collection about one made-up word (``word``); the second
    dataset's description holds markup, which a result shows as letters."""

    def __init__(self, admin_client):
        self.word = f"fjord{secrets.token_hex(3)}"
        self.tag = f"coast{secrets.token_hex(3)}"
        self.first = admin_client.dataset_create(
            f"{self.word} temperatures",
            description=f"Daily readings from the {self.word} station.",
            tags=[self.tag],
            visibility="internal",
        )
        admin_client.dataset_upload(self.first["id"], io.BytesIO(CSV), filename="temps.csv")
        self.second = admin_client.dataset_create(
            f"Rainfall by the {self.word}",
            description=f"Rain <script>window.hacked = 1</script> at the {self.word}.",
            visibility="internal",
        )
        self.collection = admin_client.collection_create(
            f"{self.word} collection", dataset_ids=[self.first["id"]], visibility="internal"
        )


@pytest.fixture(scope="module")
def seed(admin_client):
    return Seed(admin_client)


def box(page):
    return page.get_by_role("combobox", name="Search the catalog")


def results(page):
    return page.get_by_role("list", name="Results").locator(":scope > li")


def test_a_suggestion_chosen_by_keyboard_opens_the_dataset(signed_in, seed):
    page, _ = signed_in("admin")
    box(page).press_sequentially(seed.word[:8], delay=30)
    listbox = page.get_by_role("listbox", name="Suggestions")
    option = listbox.get_by_role("option", name=re.compile(f"{seed.word} temperatures"))
    expect(option).to_be_visible()
    expect(box(page)).to_have_attribute("aria-expanded", "true")
    check_axe(page)
    for _ in range(10):
        box(page).press("ArrowDown")
        if option.get_attribute("aria-selected") == "true":
            break
    expect(box(page)).to_have_attribute("aria-activedescendant", option.get_attribute("id"))
    box(page).press("Enter")
    expect(page).to_have_url(re.compile(rf"/app/datasets/{seed.first['id']}$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{seed.word} temperatures")


def test_a_suggested_tag_filters_and_escape_closes(signed_in, seed):
    page, _ = signed_in("admin")
    box(page).fill(seed.tag)
    option = page.get_by_role("option", name=re.compile(rf"^{seed.tag}\s*Tag$"))
    expect(option).to_be_visible()
    box(page).press("Escape")
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_hidden()
    box(page).press("ArrowDown")
    option.click()
    expect(page).to_have_url(re.compile(rf"\?tag={seed.tag}$"))
    expect(results(page)).to_have_count(1)
    expect(results(page).first.get_by_role("heading")).to_have_text(f"{seed.word} temperatures")


def test_results_are_highlighted_faceted_and_in_the_url(signed_in, seed, shoot):
    page, _ = signed_in("admin")
    box(page).fill(seed.word)
    box(page).press("Enter")
    expect(page).to_have_url(re.compile(rf"\?q={seed.word}$"))
    expect(results(page)).to_have_count(3)
    expect(page.get_by_role("heading", name="3 results")).to_be_visible()
    first = results(page).filter(has=page.get_by_role("link", name=f"{seed.word} temperatures"))
    expect(first.locator("mark").first).to_have_text(re.compile(seed.word, re.I))
    expect(first).to_contain_text("Dataset")
    expect(first).to_contain_text("CSV")
    # Markup in the data is letters on the page, never HTML.
    second = results(page).filter(has=page.get_by_role("link", name=re.compile("Rainfall")))
    expect(second).to_contain_text("<script>window.hacked = 1</script>")
    assert page.evaluate("window.hacked") is None
    collection = results(page).filter(has=page.get_by_role("link", name=f"{seed.word} collection"))
    expect(collection).to_contain_text("Collection")
    check_axe(page)
    shoot(page, "catalog-search")

    types = page.get_by_role("group", name="Type")
    types.get_by_role("checkbox", name=re.compile(r"^Collection")).check()
    expect(page).to_have_url(re.compile(r"type=collection"))
    expect(results(page)).to_have_count(1)
    expect(results(page).first.get_by_role("link")).to_have_text(f"{seed.word} collection")
    types.get_by_role("checkbox", name=re.compile(r"^Collection")).uncheck()
    expect(results(page)).to_have_count(3)

    page.get_by_role("group", name="Format").get_by_role("radio", name=re.compile(r"^CSV")).check()
    expect(page).to_have_url(re.compile(r"format=csv"))
    expect(results(page)).to_have_count(1)
    page.reload()
    expect(results(page)).to_have_count(1)
    expect(box(page)).to_have_value(seed.word)
    expect(
        page.get_by_role("group", name="Format").get_by_role("radio", name=re.compile(r"^CSV"))
    ).to_be_checked()


def test_no_match_says_what_to_try(signed_in, seed):
    page, _ = signed_in("viewer", f"/?q={seed.word}+nothing{secrets.token_hex(3)}")
    expect(
        page.get_by_text(re.compile(r"^No datasets, collections or pipelines match"))
    ).to_be_visible()
    expect(page.get_by_text(re.compile("Try fewer words"))).to_be_visible()
    check_axe(page)
    page.get_by_role("button", name="Clear the search and filters").click()
    expect(page).to_have_url(re.compile(r"/app/?$"))
    expect(results(page).first).to_be_visible()


def test_at_390_px_nothing_scrolls_sideways(signed_in, seed):
    page, _ = signed_in("editor", viewport={"width": 390, "height": 844})
    box(page).fill(seed.word[:8])
    expect(page.get_by_role("listbox", name="Suggestions")).to_be_visible()
    no_horizontal_scroll(page)
    box(page).press("Enter")
    expect(results(page)).to_have_count(3)
    # The filters fold above the results until asked for.
    types = page.get_by_role("group", name="Type")
    expect(types).to_be_hidden()
    page.get_by_role("heading", name="Filters").click()
    expect(types).to_be_visible()
    no_horizontal_scroll(page)
    check_axe(page)
