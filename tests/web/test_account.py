"""My account in Chromium: who I am, change password (then sign in with the new one),
sessions from two browsers (end the other one), sign out everywhere, at 390 px."""

import re

import pytest
from playwright.sync_api import expect

from tests.web.conftest import app_url, check_axe, no_horizontal_scroll, sign_in

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def module_gunicorn_env():
    # Each test signs the same person in several times: no login rate limit here.
    return {"DATAHUB_RATELIMIT_ENABLED": "false"}


def second_browser(browser, server, person):
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    sign_in(page, server, person.email, person.password, "/account")
    return context, page


def sessions(page):
    # Browsers only: make_user's Python client signed the person in too.
    listed = page.get_by_role("region", name="Where you are signed in").get_by_role("listitem")
    return listed.filter(has_text="Chrome on Linux")


def test_change_password_ends_the_other_session_and_the_new_one_signs_in(
    signed_in, browser, server, shoot
):
    page, person = signed_in("editor", "/account")
    other_context, other = second_browser(browser, server, person)
    expect(page.get_by_role("heading", name="My account", level=1)).to_be_visible()
    expect(page.get_by_text(person.email)).to_be_visible()
    expect(page.get_by_role("region", name="Your usage")).to_contain_text("Storage")
    check_axe(page)
    shoot(page, "account")

    page.get_by_label("Current password").fill("not my password")
    page.get_by_label("New password", exact=True).fill("a brand new password")
    page.get_by_label("New password again").fill("a brand new password")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_label("Current password")).to_have_accessible_description(
        "current password is incorrect"
    )
    page.get_by_label("Current password").fill(person.password)
    page.get_by_label("New password", exact=True).fill("short")
    page.get_by_label("New password again").fill("short")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_label("New password", exact=True)).to_have_attribute("aria-invalid", "true")
    page.get_by_label("New password", exact=True).fill("a brand new password")
    page.get_by_label("New password again").fill("a brand new passwort")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_label("New password again")).to_have_accessible_description(
        "The two new passwords are not the same."
    )
    check_axe(page)
    page.get_by_label("New password again").fill("a brand new password")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_text("Every other session of yours has ended")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="Password changed.")).to_have_count(1)

    # This session goes on (a new access token through the refresh cookie); the other ended.
    expect(sessions(page)).to_have_count(1)
    other.reload()
    expect(other).to_have_url(re.compile(r"/app/sign-in"))
    other_context.close()

    page.get_by_role("button", name="Sign out", exact=True).click()
    expect(page).to_have_url(re.compile(r"/app/sign-in"))
    page.get_by_label("Email").fill(person.email)
    page.get_by_label("Password").fill(person.password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("Invalid email or password")
    page.get_by_label("Password").fill("a brand new password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("banner")).to_be_visible()


def test_two_browsers_show_two_sessions_end_the_other_then_sign_out_everywhere(
    signed_in, browser, server
):
    page, person = signed_in("viewer", "/account")
    other_context, other = second_browser(browser, server, person)
    page.reload()
    expect(sessions(page)).to_have_count(2)
    this_one = sessions(page).filter(has_text="This session")
    expect(this_one).to_have_count(1)
    expect(this_one.get_by_role("button", name=re.compile("^End"))).to_have_count(0)

    sessions(page).filter(has_not_text="This session").get_by_role(
        "button", name=re.compile("^End")
    ).click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("signed out at its next request")
    check_axe(page)
    dialog.get_by_role("button", name="End session").click()
    expect(sessions(page)).to_have_count(1)

    # The other browser is asked to sign in again at its next request.
    other.get_by_role("link", name="Catalog").click()
    other.reload()
    expect(other).to_have_url(re.compile(r"/app/sign-in"))
    sign_in(other, server, person.email, person.password, "/account")
    expect(sessions(other)).to_have_count(2)

    page.get_by_role("button", name="Sign out everywhere").click()
    dialog = page.get_by_role("dialog", name="Sign out everywhere?")
    check_axe(page)
    dialog.get_by_role("button", name="Sign out everywhere").click()
    expect(page).to_have_url(re.compile(r"/app/sign-in"))
    page.goto(app_url(server, "/account"))
    expect(page).to_have_url(re.compile(r"/app/sign-in"))
    other.reload()
    expect(other).to_have_url(re.compile(r"/app/sign-in"))
    other_context.close()


def test_the_account_page_fits_390_px(signed_in):
    page, _ = signed_in("viewer", "/account", viewport={"width": 390, "height": 844})
    expect(page.get_by_role("heading", name="Where you are signed in")).to_be_visible()
    expect(sessions(page)).to_have_count(1)
    no_horizontal_scroll(page)
    check_axe(page)
