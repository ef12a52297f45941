"""The catalog at /app/ as a list: sort, server-side paging (all in the URL), the cards'
fields, tag links and the owner facet, empty states, axe, 390 px (search itself:
test_search.py)."""

import io
import re
import secrets

import pytest
from playwright.sync_api import expect

from tests.web.conftest import check_axe, no_horizontal_scroll

pytestmark = pytest.mark.e2e

CSV = b"city,temp\nOslo,3.5\nBergen,7.25\n"


class Seed:
    """28 datasets named apart: 26 of the admin's (prefix-00 .. prefix-25; the even ones
    tagged ``even``), 2 of an editor (prefix-zz-0, prefix-zz-1)."""

    def __init__(self, admin_client, editor):
        self.prefix = f"cat{secrets.token_hex(3)}"
        self.tag = f"tag{secrets.token_hex(3)}"
        self.even = f"even{secrets.token_hex(3)}"
        self.editor = editor
        for number in range(26):
            tags = [self.tag] + ([self.even] if number % 2 == 0 else [])
            dataset = admin_client.dataset_create(
                f"{self.prefix}-{number:02d}",
                description=f"Dataset **number {number}** of the catalog test.",
                tags=tags,
                visibility="internal",
            )
            if number == 25:
                admin_client.dataset_upload(dataset["id"], io.BytesIO(CSV), filename="weather.csv")
        for number in range(2):
            editor.client.dataset_create(
                f"{self.prefix}-zz-{number}", tags=[self.tag], visibility="internal"
            )


@pytest.fixture(scope="module")
def seed(admin_client, make_user):
    return Seed(admin_client, make_user("editor", name=f"Edna {secrets.token_hex(3)}"))


def cards(page):
    return (
        page.get_by_role("list", name="Results")
        .get_by_role("listitem")
        .filter(has=page.get_by_role("heading"))
    )


def test_sort_and_paging_stay_in_the_url(signed_in, seed, shoot):
    page, _ = signed_in("admin", f"/?q={seed.prefix}&sort=name")
    expect(cards(page)).to_have_count(20)
    expect(page.get_by_text("1–20 of 28")).to_be_visible()
    expect(cards(page).first.get_by_role("heading")).to_have_text(f"{seed.prefix}-00")
    check_axe(page)
    shoot(page, "catalog")

    page.get_by_role("button", name="Next").click()
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(cards(page)).to_have_count(8)
    expect(page.get_by_text("21–28 of 28")).to_be_visible()
    page.go_back()
    expect(page.get_by_text("1–20 of 28")).to_be_visible()

    page.get_by_label("Sort by").select_option(label="Recently updated")
    expect(cards(page).first.get_by_role("heading")).to_have_text(f"{seed.prefix}-zz-1")
    expect(page).to_have_url(re.compile(r"sort=-updated_at"))


def test_a_card_says_what_the_dataset_is(signed_in, seed, admin_client):
    page, _ = signed_in("admin", f"/?q={seed.prefix}+25")
    card = cards(page).first
    expect(cards(page)).to_have_count(1)
    expect(card.get_by_role("link", name=f"{seed.prefix}-25")).to_have_attribute(
        "href", re.compile(r"/app/datasets/\d+$")
    )
    expect(card).to_contain_text("Dataset")
    expect(card).to_contain_text("Dataset number 25 of the catalog test.")
    expect(card).to_contain_text("CSV")
    expect(card).to_contain_text(f"{len(CSV)} bytes")
    expect(card).to_contain_text(re.compile(rf"Owner:?\s*{admin_client.me()['name']}"))
    expect(card.locator("time")).to_have_text(re.compile(r"just now|minute"))
    card.get_by_role("link", name=f"{seed.prefix}-25").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{seed.prefix}-25")


def test_tags_on_cards_filter_by_tag(signed_in, seed):
    page, _ = signed_in("admin", f"/?q={seed.prefix}&sort=name")
    card = cards(page).filter(has=page.get_by_role("heading", name=f"{seed.prefix}-00"))
    card.get_by_role("link", name=re.compile(f"Tag {seed.even}")).click()
    expect(page).to_have_url(re.compile(rf"tag={seed.even}"))
    expect(page.get_by_role("heading", name="13 results")).to_be_visible()
    tags = page.get_by_role("group", name="Tag")
    expect(tags.get_by_role("radio", name=re.compile(rf"^{seed.even}"))).to_be_checked()


def test_the_owner_facet_counts_and_filters(signed_in, seed):
    page, _ = signed_in("admin", f"/?q={seed.prefix}")
    name = seed.editor.client.me()["name"]
    owners = page.get_by_role("group", name="Owner")
    owners.get_by_role("radio", name=f"{name} (2)").check()
    expect(page).to_have_url(re.compile(rf"owner={seed.editor.id}"))
    expect(cards(page)).to_have_count(2)
    expect(cards(page).first).to_contain_text(re.compile(rf"Owner:?\s*{name}"))
    check_axe(page)

    owners.get_by_role("radio", name="Any").check()
    expect(page.get_by_role("heading", name="28 results")).to_be_visible()


def test_no_match_says_so_and_clears_the_filters(signed_in, seed):
    page, _ = signed_in("viewer", f"/?q=nothing{secrets.token_hex(4)}")
    expect(
        page.get_by_text(re.compile(r"^No datasets, collections or pipelines match"))
    ).to_be_visible()
    expect(page.get_by_role("link", name="New dataset")).to_have_count(0)
    check_axe(page)
    page.get_by_role("button", name="Clear the search and filters").click()
    expect(page).to_have_url(re.compile(r"/app/?$"))
    expect(cards(page).first).to_be_visible()


def test_at_390_px_nothing_scrolls_sideways(signed_in, seed):
    page, _ = signed_in("editor", f"/?q={seed.prefix}", viewport={"width": 390, "height": 844})
    expect(cards(page)).to_have_count(20)
    no_horizontal_scroll(page)
    check_axe(page)


def test_a_reload_keeps_the_place(signed_in, seed):
    page, _ = signed_in("admin", f"/?q={seed.prefix}&tag={seed.tag}&sort=name&page=2")
    expect(page.get_by_text("21–28 of 28")).to_be_visible()
    page.get_by_role("button", name="Previous").click()  # the app's own URL: /app?q=...
    expect(page).to_have_url(re.compile(rf"/app/?\?q={seed.prefix}"))
    page.reload()
    expect(page).to_have_url(re.compile(rf"/app/\?q={seed.prefix}"))
    expect(cards(page)).to_have_count(20)
    expect(page.get_by_role("combobox", name="Search the catalog")).to_have_value(seed.prefix)
    tags = page.get_by_role("group", name="Tag")
    expect(tags.get_by_role("radio", name=re.compile(rf"^{seed.tag}"))).to_be_checked()
    expect(page.get_by_label("Sort by")).to_have_value("name")
