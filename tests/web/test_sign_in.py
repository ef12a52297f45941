"""Sign-in, the session across a reload, the header at 390 px, sign-out."""

import re

import pytest
from playwright.sync_api import expect

from tests.web.conftest import app_url, check_axe, no_horizontal_scroll

pytestmark = pytest.mark.e2e


def test_a_wrong_password_is_said_and_a_right_one_goes_where_the_person_was_going(
    browser, server, shoot
):
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.goto(app_url(server, "/collections"))
    expect(page).to_have_url(re.compile(r"/app/sign-in\?next=%2Fcollections$"))
    check_axe(page)
    page.get_by_label("Email").fill("admin@example.com")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Invalid email or password")
    shoot(page, "sign-in")
    page.get_by_label("Password").fill(server.admin_password())
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/app/collections$"))

    page.reload()  # the refresh cookie gives a new access token: still signed in
    expect(page.get_by_role("banner")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/app/collections$"))

    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/app/sign-in"))
    page.goto(app_url(server, "/"))
    expect(page).to_have_url(re.compile(r"/app/sign-in"))
    context.close()


def test_at_390_px_the_menu_folds_and_nothing_scrolls_sideways(signed_in):
    page, _ = signed_in("admin", viewport={"width": 390, "height": 844})
    no_horizontal_scroll(page)
    menu = page.get_by_role("button", name="Menu")
    expect(menu).to_have_attribute("aria-expanded", "false")
    menu.click()
    expect(page.get_by_role("link", name="Pipelines")).to_be_visible()
    no_horizontal_scroll(page)
    check_axe(page)


def test_the_skip_link_moves_to_the_page(signed_in):
    page, _ = signed_in("viewer")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#main")).to_be_focused()


def test_an_unknown_app_path_is_the_app_and_a_missing_asset_is_a_json_404(signed_in, server):
    page, _ = signed_in("viewer")
    page.goto(app_url(server, "/no/such/screen"))
    expect(page.get_by_role("heading", name="Not found")).to_be_visible()
    response = page.request.get(app_url(server, "/assets/missing-file.js"))
    assert response.status == 404
    assert response.json() == {"detail": "Not Found"}


def test_on_a_wide_screen_the_navigation_shows_without_a_menu_button(signed_in):
    page, _ = signed_in("viewer")
    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    expect(
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Pipelines")
    ).to_be_visible()
