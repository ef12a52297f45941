"""The SPA's "Sign in with ..." in headless Chromium, against a real gunicorn configured
for a real OIDC provider process: the provider's page, and back in the app as the user."""

import pytest

from tests.e2e.test_spa import browser, spa_url  # noqa: F401  (a fixture)
from tests.identity.conftest import oidc_provider, oidc_settings  # noqa: F401  (a fixture)

pytestmark = pytest.mark.e2e


@pytest.fixture
def gunicorn_env(oidc_provider):  # noqa: F811
    return {
        f"DATAHUB_{key}": str(value)
        for key, value in oidc_settings(oidc_provider.issuer).items()
        if key.startswith("OIDC_")
    }


def test_sign_in_with_the_provider(oidc_provider, gunicorn_server, browser):  # noqa: F811
    oidc_provider.set_user("sub-spa", email="sam@example.org", name="Sam Spa", roles=["editor"])
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(spa_url(gunicorn_server))
    page.wait_for_selector("#login-view:not([hidden])")
    button = page.wait_for_selector("#oidc-button:visible")
    assert button.text_content() == "Sign in with Example SSO"
    button.click()

    page.wait_for_url(oidc_provider.issuer + "/oauth2/authorize?*")
    page.fill("input[name=sub]", "sub-spa")
    page.click("button:has-text('Authorize')")

    page.wait_for_selector("#user-email:has-text('sam@example.org')")
    assert page.url == spa_url(gunicorn_server)
    assert page.text_content("#user-roles") == "editor"
    assert page.is_hidden("#login-view")
    cookies = {cookie["name"]: cookie for cookie in context.cookies()}
    assert cookies["__Secure-refresh_token"]["httpOnly"]
    assert "__Secure-oidc_login" not in cookies  # consumed by the callback
    assert errors == []
    context.close()
