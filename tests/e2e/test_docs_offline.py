"""The API docs page renders in headless Chromium with every off-host request blocked:
Swagger UI comes from the service (datahub.docs), not from a CDN."""

from urllib.parse import urlsplit

import pytest

from tests.web.conftest import browser  # noqa: F401  (a fixture)

pytestmark = pytest.mark.e2e


def test_docs_render_with_the_network_cut_off(gunicorn_server, browser):  # noqa: F811
    own = urlsplit(gunicorn_server.url).netloc
    requested, blocked = [], []

    def only_the_service(route):
        url = route.request.url
        requested.append(url)
        if urlsplit(url).netloc == own:
            route.continue_()
        else:
            blocked.append(url)
            route.abort("internetdisconnected")

    context = browser.new_context()
    context.route("**/*", only_the_service)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{gunicorn_server.url}/api/v1/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=20000)

    assert blocked == []
    assert errors == []
    assert page.locator(".swagger-ui .info .title").inner_text().startswith("datahub")
    operations = page.locator(".swagger-ui .opblock").count()
    assert operations >= 30
    assert f"{gunicorn_server.url}/api/v1/openapi.json" in requested
    assert f"{gunicorn_server.url}/api/v1/docs/assets/swagger-ui-bundle.js" in requested
    # An operation opens, with its responses: the page is usable, not just drawn.
    page.locator(".swagger-ui .opblock-summary").first.click()
    page.wait_for_selector(".swagger-ui .opblock.is-open .responses-table")
    context.close()
