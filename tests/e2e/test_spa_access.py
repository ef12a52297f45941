"""Who may see what, in the single-page app: the Sharing part of a dataset's page (its
visibility and grants, for its owner or an admin only) and the Tokens page (#tokens:
personal access tokens made, shown once, copied, listed and revoked), in real headless
Chromium against a real gunicorn, as in tests/e2e/test_spa_versions.py.
``DATAHUB_UPDATE_SCREENSHOTS=1`` writes the screenshots into docs/screenshots/."""

import pytest

from datahub_client import AuthenticationError, Client
from tests.client.test_access import make_group
from tests.e2e.test_spa import (  # noqa: F401  (fixtures)
    api_client,
    browser,
    logged_in_page,
    screenshots,
    spa_url,
)

pytestmark = pytest.mark.e2e


def new_user(api, email, role):
    password = f"{role} password"
    user = api._json(
        "POST",
        "/api/v1/users/",
        json_body={"email": email, "password": password, "roles": [role]},
    )
    return user, password


def page_as(browser, server, email, password, address="", **context_options):  # noqa: F811
    """A new browser context with the app open at ``address`` and ``email`` logged in."""
    context = browser.new_context(viewport={"width": 1000, "height": 900}, **context_options)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(spa_url(server) + address)
    page.wait_for_selector("#login-view:not([hidden])")
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("#login-form button")
    page.wait_for_selector(f"#user-email:has-text('{email}')")
    return context, page, errors


def grants_table(page):
    return [row.locator("td").all_text_contents()[:2] for row in page.locator("#grants tr").all()]


def test_the_owner_shares_a_dataset_and_sets_its_visibility(gunicorn_server, browser, screenshots):
    api = api_client(gunicorn_server)
    ann, ann_password = new_user(api, "ann@example.com", "editor")
    vic, vic_password = new_user(api, "vic@example.com", "viewer")
    ann_api = Client(gunicorn_server.url)
    ann_api.login("ann@example.com", ann_password)
    dataset = ann_api.dataset_create("Ann's rain", visibility="private")
    vic_api = Client(gunicorn_server.url)
    vic_api.login("vic@example.com", vic_password)

    context, page, errors = page_as(
        browser, gunicorn_server, "ann@example.com", ann_password, f"#dataset/{dataset['id']}"
    )
    page.wait_for_selector("#sharing-area:not([hidden])")
    assert page.text_content("#visibility-state").startswith("Private:")
    assert page.text_content("#visibility-toggle") == "Make internal"
    assert page.is_visible("#grants-none") and grants_table(page) == []

    # An editor shares by email (an unknown one is the API's detail); the grant keeps the id.
    page.fill("#grant-who", "nobody-here@example.com")
    page.click("#grant-form button")
    page.wait_for_selector("#status:has-text('No such user or group')")
    page.fill("#grant-who", "vic@example.com")
    page.select_option("#grant-permission", "read")
    page.click("#grant-form button")
    page.wait_for_selector("#grants tr")
    assert page.text_content("#status") == 'Shared "Ann\'s rain" with vic@example.com (read).'
    assert grants_table(page) == [[f"user {vic['id']}", "read"]]
    assert vic_api.dataset_get(dataset["id"])["name"] == "Ann's rain"

    page.click("#grants tr button.remove-grant")
    page.wait_for_selector("#grants-none:not([hidden])")
    assert ann_api.grants_list("dataset", dataset["id"])["total"] == 0

    page.click("#visibility-toggle")
    page.wait_for_selector("#status:has-text('is now internal')")
    page.wait_for_selector("#visibility-toggle:has-text('Make private')")
    assert page.text_content("#visibility-state").startswith("Internal:")
    assert ann_api.dataset_get(dataset["id"])["visibility"] == "internal"
    assert vic_api.dataset_get(dataset["id"])["visibility"] == "internal"
    assert errors == []
    context.close()

    # An admin manages every dataset's sharing, and looks users up by email.
    context, page, errors = logged_in_page(browser, gunicorn_server)
    page.click(f"#datasets tr[data-id='{dataset['id']}']")
    page.wait_for_selector("#sharing-area:not([hidden])")
    page.fill("#grant-who", "vic@example.com")
    page.select_option("#grant-permission", "write")
    page.click("#grant-form button")
    page.wait_for_selector("#grants tr")
    assert grants_table(page) == [["vic@example.com", "read and write"]]
    page.screenshot(path=str(screenshots / "sharing.png"), full_page=True)
    assert errors == []
    context.close()

    # A viewer reads the dataset (internal) but is shown no sharing.
    context, page, errors = page_as(
        browser, gunicorn_server, "vic@example.com", vic_password, f"#dataset/{dataset['id']}"
    )
    page.wait_for_selector("#dataset-area:not([hidden])")
    page.wait_for_selector("#versions-none:not([hidden])")
    assert page.is_hidden("#sharing-area")
    assert errors == []
    context.close()


def test_a_dataset_is_shared_with_a_group_by_name(gunicorn_server, browser):
    """Needs the groups API (GET /api/v1/groups/) for the group's name."""
    api = api_client(gunicorn_server)
    wes, wes_password = new_user(api, "wes@example.com", "viewer")
    group_id = make_group(api, "Analysts", [wes["id"]])
    dataset = api.dataset_create("For the analysts", visibility="private")
    context, page, errors = logged_in_page(browser, gunicorn_server)
    page.click(f"#datasets tr[data-id='{dataset['id']}']")
    page.wait_for_selector("#sharing-area:not([hidden])")
    page.select_option("#grant-kind", "group")
    page.fill("#grant-who", "Analysts")
    page.click("#grant-form button")
    page.wait_for_selector("#grants tr")
    assert grants_table(page) == [["group Analysts", "read"]]
    assert api.grants_list("dataset", dataset["id"])["items"][0]["principal"] == (
        f"group:{group_id}"
    )
    wes_api = Client(gunicorn_server.url)
    wes_api.login("wes@example.com", wes_password)
    assert wes_api.dataset_get(dataset["id"])["name"] == "For the analysts"
    assert errors == []
    context.close()


def test_the_tokens_page_makes_shows_once_and_revokes_tokens(gunicorn_server, browser, screenshots):
    context, page, errors = page_as(
        browser,
        gunicorn_server,
        "admin@example.com",
        gunicorn_server.admin_password(),
        permissions=["clipboard-read", "clipboard-write"],
    )
    page.click("#nav-tokens")
    page.wait_for_selector("#tokens-view:not([hidden])")
    assert page.url.endswith("#tokens") and page.is_hidden("#datasets-view")
    page.wait_for_selector("#tokens-none:not([hidden])")

    page.fill("#token-name", "nightly report")
    page.select_option("#token-scope", "read")
    page.fill("#token-days", "7")
    page.click("#token-form button")
    page.wait_for_selector("#token-secret-area:not([hidden])")
    secret = page.text_content("#token-secret")
    assert secret.startswith("dhp_")
    assert "it will not be shown again" in page.text_content("#token-secret-area")
    page.wait_for_selector("#tokens tr:has-text('nightly report')")  # the list, reloaded after
    rows = [row.locator("td").all_text_contents() for row in page.locator("#tokens tr").all()]
    assert [(cells[0], cells[1], cells[4]) for cells in rows] == [
        ("nightly report", "read", "never")
    ]
    page.click("#token-copy")
    page.wait_for_selector("#status:has-text('Copied the token')")
    assert page.evaluate("navigator.clipboard.readText()") == secret
    page.screenshot(path=str(screenshots / "tokens.png"), full_page=True)

    reader = Client(gunicorn_server.url, token=secret)
    assert reader.me()["email"] == "admin@example.com"

    # Shown once: leaving the page forgets it.
    page.click("#nav-datasets")
    page.wait_for_selector("#datasets-view:not([hidden])")
    page.click("#nav-tokens")
    page.wait_for_selector("#tokens tr")
    assert page.is_hidden("#token-secret-area") and page.text_content("#token-secret") == ""
    assert secret not in page.content()

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#tokens tr button.revoke")
    page.wait_for_selector("#status:has-text('Revoked the token \"nightly report\".')")
    page.wait_for_selector("#tokens-none:not([hidden])")
    with pytest.raises(AuthenticationError):
        reader.me()
    assert errors == []
    context.close()
