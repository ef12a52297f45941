"""Sign-in with OpenID Connect in Chromium: the sign-in screen offers "Sign in with <the
provider's name>" when the service has OIDC on, and a whole single sign-on through a real
provider process lands back in the app, signed in as that person."""

import re

import pytest
from playwright.sync_api import expect

from tests.identity.conftest import oidc_provider, oidc_settings  # noqa: F401  (a fixture)
from tests.web.conftest import app_url, check_axe

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def module_gunicorn_env(oidc_provider):  # noqa: F811
    return {
        f"DATAHUB_{key}": str(value)
        for key, value in oidc_settings(oidc_provider.issuer).items()
        if key.startswith("OIDC_")
    }


def test_single_sign_on_lands_signed_in_where_the_person_was_going(
    browser,
    server,
    oidc_provider,  # noqa: F811
):
    oidc_provider.set_user("sub-web", email="sam@example.org", name="Sam Web", roles=["editor"])
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(app_url(server, "/collections"))
    expect(page).to_have_url(re.compile(r"/app/sign-in\?next=%2Fcollections$"))
    sso = page.get_by_role("link", name="Sign in with Example SSO")
    expect(sso).to_be_visible()
    check_axe(page)
    sso.click()

    page.wait_for_url(oidc_provider.issuer + "/oauth2/authorize?*")
    page.fill("input[name=sub]", "sub-web")
    page.click("button:has-text('Authorize')")

    expect(page).to_have_url(re.compile(r"/app/collections$"))
    expect(page.get_by_role("banner")).to_be_visible()
    expect(page.get_by_role("banner")).to_contain_text("Sam Web")
    cookies = {cookie["name"]: cookie for cookie in context.cookies()}
    assert cookies["__Secure-refresh_token"]["httpOnly"]
    assert "__Secure-oidc_login" not in cookies  # consumed by the callback
    assert errors == []
    context.close()
