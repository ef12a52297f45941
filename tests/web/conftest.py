"""The web app (web/, built into datahub/spa/dist) in Debian's Chromium, driven by
Playwright (never a downloaded browser), against a real gunicorn (``module_gunicorn_server``:
one per module, its own SQLite file; a module's tests name what they make apart).

- ``browser``: one Chromium per module.
- ``signed_in(role=...)``: a new browser context (its own cookies) with a page signed in
  through the sign-in screen as the first admin or as a new user of that role.
- ``check_axe(page)``: axe-core (web/node_modules/axe-core) finds no WCAG 2.2 A/AA
  violation on the page as it is. Contexts bypass the CSP so that axe can be injected.
- ``shoot(page, name)``: a screenshot, into docs/screenshots/ with
  ``DATAHUB_UPDATE_SCREENSHOTS=1`` (docs/guides/web-app.rst shows them).
"""

import json
import os
import secrets
import urllib.request

import pytest

from datahub_client import Client
from tests.e2e.conftest import (  # noqa: F401 (the gunicorn fixtures, shared)
    ROOT,
    module_gunicorn_env,
    module_gunicorn_server,
    module_pipeline_worker,
)

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AXE = ROOT / "web/node_modules/axe-core/axe.min.js"
DIST = ROOT / "datahub/spa/dist/index.html"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright  # the test extra

    assert os.path.exists(CHROMIUM), "chromium is needed (Debian package; .ci/run installs it)"
    assert DIST.is_file(), "the web app is not built: npm ci && npm run build in web/"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def server(module_gunicorn_server):
    return module_gunicorn_server


@pytest.fixture(scope="module")
def admin_client(server):
    client = Client(server.url)
    client.login("admin@example.com", server.admin_password())
    return client


class Person:
    """A user the tests made: email, password, a signed-in Python client."""

    def __init__(self, email, password, client, user_id):
        self.email, self.password, self.client, self.id = email, password, client, user_id


@pytest.fixture(scope="module")
def make_user(server, admin_client):
    """``make_user(role, name=None)``: a new active user with that role (and a client)."""

    def make(role="editor", name=None):
        tag = secrets.token_hex(4)
        email = f"{role}-{tag}@example.com"
        password = f"pw-{secrets.token_hex(8)}"
        body = {"email": email, "password": password, "name": name or f"{role.title()} {tag}"}
        user = admin_client._json("POST", "/api/v1/users/", json_body={**body, "roles": [role]})
        client = Client(server.url)
        client.login(email, password)
        return Person(email, password, client, user["id"])

    return make


def app_url(server, path="/"):
    # localhost (not 127.0.0.1): Chromium keeps the Secure refresh cookie there over http.
    return server.url.replace("127.0.0.1", "localhost") + "/app" + path


def sign_in(page, server, email, password, path="/"):
    page.goto(app_url(server, path))
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("banner").wait_for()


@pytest.fixture
def signed_in(browser, server, make_user):
    """``signed_in(role="admin"|"editor"|"viewer", path="/", viewport=None)`` → (page, person);
    the admin is the first admin (person is None for it)."""
    contexts = []

    def open_page(role="admin", path="/", viewport=None):
        options = {"bypass_csp": True, "viewport": viewport or {"width": 1280, "height": 900}}
        context = browser.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        if role == "admin":
            sign_in(page, server, "admin@example.com", server.admin_password(), path)
            return page, None
        person = make_user(role)
        sign_in(page, server, person.email, person.password, path)
        return page, person

    yield open_page
    for context in contexts:
        context.close()


def check_axe(page, context=None):
    """No axe-core violation (WCAG 2.x A and AA) on the page as it is now."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "async ([tags, context]) => await axe.run(context || document, "
        "{runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        [AXE_TAGS, context],
    )
    violations = [
        {
            "id": v["id"],
            "help": v["help"],
            "nodes": [node["target"] for node in v["nodes"]][:5],
        }
        for v in result["violations"]
    ]
    assert violations == [], json.dumps(violations, indent=2)


def no_horizontal_scroll(page):
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.evaluate("window.innerWidth")
    assert width <= viewport, f"page is {width}px wide in a {viewport}px window"


@pytest.fixture
def shoot(tmp_path):
    folder = ROOT / "docs/screenshots" if os.environ.get("DATAHUB_UPDATE_SCREENSHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)

    def take(page, name):
        page.screenshot(path=str(folder / f"{name}.png"), full_page=False)

    return take


def fetch_json(server, path, token):
    request = urllib.request.Request(
        server.url + path, headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())
