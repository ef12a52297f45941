"""The admin screens in Chromium: users (create, roles, deactivate, activate), groups and
their members, usage and quotas; a non-admin is told the area is for admins."""

import re
import secrets

import pytest
from playwright.sync_api import expect

from datahub_client import Client
from tests.web.conftest import app_url, check_axe, no_horizontal_scroll, sign_in

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def module_gunicorn_env():
    # Quotas, so that the usage bars show; the admin signs in once a test (no rate limit).
    return {
        "DATAHUB_RATELIMIT_ENABLED": "false",
        "DATAHUB_QUOTA_DATASETS": "10",
        "DATAHUB_QUOTA_STORAGE_BYTES": "104857600",
    }


def new_context(browser):
    context = browser.new_context(bypass_csp=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    return context, page


def create_user_through_the_form(page, email, name, password):
    page.get_by_role("link", name="New user").click()
    expect(page.get_by_role("heading", name="New user", level=1)).to_be_visible()
    page.get_by_label("Email").fill("admin@example.com")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill("short")
    page.get_by_role("button", name="Create user").click()
    # Each refusal is said at its field: the short password (422), then the taken email (409).
    expect(page.get_by_label("Password")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Password")).to_have_accessible_description(re.compile("8 bytes"))
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Create user").click()
    expect(page.get_by_label("Email")).to_have_accessible_description(
        "A user with this email already exists."
    )
    check_axe(page)
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Create user").click()
    expect(page.get_by_role("heading", name=name, level=1)).to_be_visible()


def test_an_admin_creates_a_user_changes_roles_deactivates_and_activates_again(
    signed_in, browser, server, admin_client, shoot
):
    page, _ = signed_in("admin", "/admin")
    expect(page).to_have_url(re.compile(r"/app/admin/users$"))
    expect(page.get_by_role("heading", name="Users", level=1)).to_be_visible()
    check_axe(page)
    shoot(page, "admin-users")

    tag = secrets.token_hex(4)
    email, name, password = f"new-{tag}@example.com", f"Nora {tag}", f"pw-{secrets.token_hex(6)}"
    create_user_through_the_form(page, email, name, password)
    user_url = page.url

    # The new user signs in in their own browser.
    their_context, theirs = new_context(browser)
    sign_in(theirs, server, email, password)

    # Their personal token is listed, and revoked after a confirmation.
    their_client = Client(server.url)
    their_client.login(email, password)
    their_client.tokens_create("nightly export", scopes=("read",))
    page.reload()
    tokens = page.get_by_role("table", name=f"Personal access tokens of {email}")
    expect(tokens).to_contain_text("nightly export")
    tokens.get_by_role("button", name="Revoke nightly export").click()
    dialog = page.get_by_role("dialog", name="Revoke “nightly export”?")
    check_axe(page)
    dialog.get_by_role("button", name="Revoke token").click()
    expect(page.get_by_text("No personal access tokens")).to_be_visible()

    # Roles: from viewer to editor.
    expect(page.get_by_role("checkbox", name=re.compile("^Viewer"))).to_be_checked()
    page.get_by_role("checkbox", name=re.compile("^Viewer")).uncheck()
    page.get_by_role("checkbox", name=re.compile("^Editor")).check()
    page.get_by_role("button", name="Save roles").click()
    expect(page.get_by_role("button", name="Save roles")).to_be_disabled()
    user_id = user_url.rsplit("/", 1)[1]
    assert admin_client._json("GET", f"/api/v1/users/{user_id}")["roles"] == ["editor"]
    check_axe(page)
    shoot(page, "admin-user")

    # Deactivate, after a confirmation that says what ends.
    page.get_by_role("button", name="Deactivate").click()
    dialog = page.get_by_role("dialog", name=f"Deactivate {name}?")
    expect(dialog).to_contain_text("every session of theirs ends")
    expect(dialog).to_contain_text("personal access tokens are deleted")
    check_axe(page)
    dialog.get_by_role("button", name="Deactivate").click()
    expect(page.get_by_text("Deactivated", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Activate")).to_be_visible()

    # Their browser is signed out at its next request, and cannot sign in again.
    theirs.get_by_role("link", name=name).click()  # their account page asks the service
    expect(theirs.get_by_role("dialog", name="Your session ended")).to_be_visible()
    theirs.goto(app_url(server, "/"))
    expect(theirs).to_have_url(re.compile(r"/app/sign-in"))
    theirs.get_by_label("Email").fill(email)
    theirs.get_by_label("Password").fill(password)
    theirs.get_by_role("button", name="Sign in").click()
    expect(theirs.get_by_role("alert")).to_contain_text("Invalid email or password")

    page.get_by_role("button", name="Activate").click()
    expect(page.get_by_role("button", name="Deactivate")).to_be_visible()
    theirs.get_by_role("button", name="Sign in").click()
    expect(theirs.get_by_role("banner")).to_be_visible()
    their_context.close()

    # The list finds them by a part of the name, and the search is in the URL.
    page.get_by_role("link", name="← All users").click()
    page.get_by_label("Search by name or email").fill(tag)
    page.get_by_role("button", name="Search").click()
    expect(page).to_have_url(re.compile(rf"/app/admin/users\?q={tag}$"))
    rows = page.get_by_role("table", name="Users").get_by_role("row")
    expect(rows).to_have_count(2)
    expect(rows.nth(1)).to_contain_text(email)
    expect(rows.nth(1)).to_contain_text("editor")

    # They own nothing, so they can be deleted (after a confirmation).
    rows.nth(1).get_by_role("link").click()
    page.get_by_role("button", name="Delete user").click()
    dialog = page.get_by_role("dialog", name=f"Delete {name}?")
    check_axe(page)
    dialog.get_by_role("button", name="Delete user").click()
    expect(page).to_have_url(re.compile(r"/app/admin/users$"))
    expect(page.get_by_role("link", name=name)).to_have_count(0)


def test_an_admin_makes_a_group_adds_a_member_found_by_name_and_removes_them(
    signed_in, make_user, shoot
):
    member = make_user("viewer", name=f"Zora Quill {secrets.token_hex(3)}")
    page, _ = signed_in("admin", "/admin/groups")
    expect(page.get_by_role("heading", name="Groups", level=1)).to_be_visible()
    group_name = f"Analysts {secrets.token_hex(3)}"
    page.get_by_label("Name").fill(group_name)
    page.get_by_label("Description").fill("Reporting people")
    page.get_by_role("button", name="Create group").click()
    expect(page.get_by_role("heading", name=group_name, level=1)).to_be_visible()
    expect(page.get_by_text("No members yet")).to_be_visible()

    page.get_by_label("Find people to add").fill(member.client.me()["name"][:9])
    found = page.get_by_role("list", name="People found")
    found.get_by_role("button", name=f"Add {member.client.me()['name']}").click()
    members = page.get_by_role("table", name=f"Members of {group_name}")
    row = members.get_by_role("row").filter(has_text=member.email)
    expect(row).to_contain_text(member.client.me()["name"])
    expect(page.get_by_role("heading", name="Members (1)")).to_be_visible()
    check_axe(page)
    shoot(page, "admin-groups")

    row.get_by_role("button", name=re.compile("^Remove")).click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("They stay a user")
    check_axe(page)
    dialog.get_by_role("button", name="Remove member").click()
    expect(page.get_by_text("No members yet")).to_be_visible()

    form = page.get_by_role("region", name="Name and description")
    form.get_by_label("Name").fill(f"{group_name} renamed")
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name=f"{group_name} renamed", level=1)).to_be_visible()

    page.get_by_role("button", name="Delete group").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete group").click()
    expect(page).to_have_url(re.compile(r"/app/admin/groups$"))
    expect(page.get_by_role("link", name=re.compile(group_name))).to_have_count(0)


def test_usage_shows_what_each_user_owns_in_words_and_fits_390_px(signed_in, make_user, shoot):
    owner = make_user("editor")
    owner.client._json(
        "POST", "/api/v1/datasets/", json_body={"name": f"usage-{secrets.token_hex(3)}"}
    )
    page, _ = signed_in("admin", "/admin/usage")
    expect(page.get_by_role("heading", name="Usage and quotas", level=1)).to_be_visible()
    expect(page.get_by_role("heading", name="Quotas for each user")).to_be_visible()
    # The list is oldest first: the newest user is on the last page.
    pager = page.get_by_role("navigation", name="Pages of users")
    while pager.count() and pager.get_by_role("button", name="Next").is_enabled():
        pager.get_by_role("button", name="Next").click()
        page.wait_for_url(re.compile(r"offset="))
    row = page.get_by_role("table", name="Datasets each user owns").get_by_role("row")
    row = row.filter(has_text=owner.email)
    expect(row).to_contain_text("1 of 10 (10%)")
    expect(row.get_by_role("meter")).to_have_attribute("aria-valuetext", "1 of 10 (10%)")
    expect(page.get_by_role("region", name="Your own usage")).to_contain_text("of 100 MB (0%)")
    expect(page.get_by_role("heading", name="Your own usage")).to_be_visible()
    check_axe(page)
    shoot(page, "admin-usage")

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(page.url.replace("/admin/usage", "/admin/users"))
    expect(page.get_by_role("table", name="Users")).to_be_visible()
    no_horizontal_scroll(page)


def test_a_non_admin_has_no_admin_link_and_is_told_the_area_is_for_admins(signed_in, server):
    page, _ = signed_in("editor")
    expect(
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Admin")
    ).to_have_count(0)
    page.goto(app_url(server, "/admin/users"))
    expect(page.get_by_role("alert")).to_contain_text("Only admins can see this")
    expect(page.get_by_role("navigation", name="Admin")).to_have_count(0)
    check_axe(page)
