"""The single-page app (/app/, datahub/spa/static) in real headless Chromium (Debian's
``chromium``, driven by Playwright; nothing is downloaded) against a real gunicorn.

Pages are opened on ``localhost``: Chromium treats it as a potentially trustworthy origin,
so it keeps the ``Secure`` refresh cookie over plain http, as it would over https.
``DATAHUB_UPDATE_SCREENSHOTS=1`` writes the screenshots into docs/screenshots/.
"""

import hashlib
import http.server
import io
import json
import os
import threading
import time
from functools import partial

import pytest

from datahub_client import Client
from tests.e2e.conftest import ROOT

pytestmark = pytest.mark.e2e


@pytest.fixture
def pipeline_worker():
    return True  # a run's output is previewed


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
CSV = b"date,temp\n2024-01-01,-3\n2024-01-02,-5\n"


@pytest.fixture(scope="module")
def browser():
    """One chromium per module (each test opens its own context: cookies and storage of
    its own); a launch costs about 1.5 s of CPU."""
    from playwright.sync_api import sync_playwright  # the test extra

    assert os.path.exists(CHROMIUM), "chromium is needed (Debian package; .ci/run installs it)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def screenshots(tmp_path):
    folder = ROOT / "docs/screenshots" if os.environ.get("DATAHUB_UPDATE_SCREENSHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Traffic:
    """The API calls a page makes: (method, path, status) per response."""

    def __init__(self, page):
        self.calls = []
        page.on(
            "response",
            lambda r: (
                self.calls.append(
                    (r.request.method, r.url.split("/api/v1", 1)[-1].split("?")[0], r.status)
                )
                if "/api/v1/" in r.url
                else None
            ),
        )

    def clear(self):
        self.calls.clear()

    def count(self, method, path, status=None):
        return sum(
            1
            for m, p, s in self.calls
            if m == method and p == path and (status is None or s == status)
        )


def spa_url(server):
    return server.url.replace("127.0.0.1", "localhost") + "/app/"


def log_in(page, server):
    page.fill("#email", "admin@example.com")
    page.fill("#password", server.admin_password())
    page.click("#login-form button")
    page.wait_for_selector("#user-email:has-text('admin@example.com')")


def logged_in_page(browser, server):
    """A new browser context with the app open and the admin logged in; the page's
    script errors are collected in ``errors``."""
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(spa_url(server))
    page.wait_for_selector("#login-view:not([hidden])")
    log_in(page, server)
    return context, page, errors


@pytest.mark.parametrize("gunicorn_env", [{"DATAHUB_JWT_ACCESS_TOKEN_EXPIRES": "2"}])
def test_login_upload_reload_expiry_and_logout(gunicorn_env, gunicorn_server, browser, screenshots):
    context = browser.new_context(viewport={"width": 1000, "height": 620})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    traffic = Traffic(page)

    # No session yet: the app tries the refresh cookie, gets 401 and shows the login form.
    page.goto(spa_url(gunicorn_server))
    page.wait_for_selector("#login-view:not([hidden])")
    assert traffic.count("POST", "/auth/refresh", 401) == 1
    page.fill("#email", "admin@example.com")
    page.screenshot(path=str(screenshots / "login.png"))
    page.fill("#password", "not the password")
    page.click("#login-form button")
    page.wait_for_selector("#status.error:has-text('Error: Invalid email or password')")

    log_in(page, gunicorn_server)
    assert page.text_content("#user-roles") == "admin"
    # The refresh cookie is there, HttpOnly: invisible to the page's JavaScript.
    cookies = {cookie["name"]: cookie for cookie in context.cookies()}
    refresh_cookie = cookies["__Secure-refresh_token"]
    assert (
        refresh_cookie["httpOnly"],
        refresh_cookie["secure"],
        refresh_cookie["sameSite"],
        refresh_cookie["path"],
    ) == (True, True, "Strict", "/api/v1/auth")
    assert page.evaluate("document.cookie") == ""
    # Nor is the access token stored anywhere a script could find it later.
    assert page.evaluate("localStorage.length + sessionStorage.length") == 0

    # Create a dataset with its file.
    page.fill("#name", "Oslo weather")
    page.fill("#tags", "weather, oslo")
    page.set_input_files(
        "#file", files=[{"name": "weather.csv", "mimeType": "text/csv", "buffer": CSV}]
    )
    page.click("#create-form button")
    page.wait_for_selector("#status:has-text('Created dataset')")
    cells = page.locator("#datasets tr").first.locator("td").all_text_contents()
    assert cells[1:5] == ["Oslo weather", "weather, oslo", "weather.csv", f"{len(CSV)} B"]
    page.screenshot(path=str(screenshots / "datasets.png"))
    api = Client(gunicorn_server.url)
    api.login("admin@example.com", gunicorn_server.admin_password())
    (dataset,) = api.datasets_list()["items"]
    assert dataset["file"]["sha256"] == hashlib.sha256(CSV).hexdigest()
    assert dataset["file"]["content_type"] == "text/csv"

    # A reload loses the in-memory token; the cookie brings the session back.
    traffic.clear()
    page.reload()
    page.wait_for_selector("#user-email:has-text('admin@example.com')")
    page.wait_for_selector("#datasets tr")
    assert traffic.count("POST", "/auth/refresh", 200) == 1
    assert traffic.count("POST", "/auth/login") == 0

    # The access token expires (2 s): the user and the list, loaded at once, both get 401
    # and share one refresh, then both succeed. (The app's live stream would renew the
    # token by itself 2 s after its end: it is stopped here, and its own renewal is tested
    # in test_spa_live.py.)
    page.evaluate("async () => (await import('/app/live.js')).stop()")
    time.sleep(2.5)
    traffic.clear()
    page.click("#reload")
    page.wait_for_selector("#status:has-text('Loaded at')")
    assert traffic.count("GET", "/auth/me", 401) == 1
    assert traffic.count("GET", "/datasets/", 401) == 1
    assert traffic.count("POST", "/auth/refresh") == 1
    assert traffic.count("GET", "/auth/me", 200) == 1
    assert traffic.count("GET", "/datasets/", 200) == 1
    assert page.locator("#datasets tr").count() == 1

    # Logout ends the session: cookie gone, and a reload finds no session.
    page.click("#logout")
    page.wait_for_selector("#login-view:not([hidden])")
    assert "__Secure-refresh_token" not in {c["name"] for c in context.cookies()}
    traffic.clear()
    page.reload()
    page.wait_for_selector("#login-view:not([hidden])")
    # Besides asking which logins there are (no OIDC here: no "Sign in with" button).
    assert sorted(traffic.calls) == [
        ("GET", "/auth/providers", 200),
        ("POST", "/auth/refresh", 401),
    ]
    assert page.is_hidden("#oidc-login")

    # A session ended elsewhere (every session of the user, from a script): the next
    # request fails, the refresh is refused, and the app asks to log in again.
    log_in(page, gunicorn_server)
    api.request("POST", "/api/v1/auth/logout-all")
    traffic.clear()
    page.click("#reload")
    page.wait_for_selector("#login-view:not([hidden])")
    assert page.text_content("#status") == "Your session has ended; please log in again."
    assert traffic.count("POST", "/auth/refresh", 401) == 1
    assert errors == []
    context.close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def refresh_answers(server, status, count, timeout=10):
    """Wait until gunicorn's access log shows ``count`` refreshes answered ``status``."""
    line = f'"POST /api/v1/auth/refresh HTTP/1.1" {status}'
    deadline = time.monotonic() + timeout
    while server.log().count(line) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return server.log().count(line)


class ForeignSite:
    """A tiny http server on another port, serving one page that tries to refresh."""

    def __init__(self, folder, api):
        (folder / "index.html").write_text(
            "<!doctype html><title>loading</title><script>\n"
            f"fetch({api!r} + '/api/v1/auth/refresh', {{method: 'POST', credentials: 'include'}})\n"
            "  .then(r => r.text().then(t => { document.title = 'read ' + r.status + ' ' + t; }))\n"
            "  .catch(e => { document.title = 'blocked ' + e.message; });\n"
            "</script>\n"
        )
        handler = partial(QuietHandler, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_a_page_from_a_foreign_origin_cannot_refresh(gunicorn_server, browser, tmp_path):
    context = browser.new_context()
    page = context.new_page()
    page.goto(spa_url(gunicorn_server))
    page.wait_for_selector("#login-view:not([hidden])")
    log_in(page, gunicorn_server)
    cookie_before = {c["name"]: c["value"] for c in context.cookies()}["__Secure-refresh_token"]

    api = gunicorn_server.url.replace("127.0.0.1", "localhost")
    foreign = ForeignSite(tmp_path, api)
    try:
        # Same site, other origin (another port: SameSite does not stop the cookie here),
        # and another site altogether.
        for attempt_number, host in enumerate(("localhost", "127.0.0.1"), start=1):
            attacker = context.new_page()
            # What actually went over the wire (headers Playwright does not report for a
            # request that CORS then hides from the page), from Chromium's network log.
            cdp = context.new_cdp_session(attacker)
            cdp.send("Network.enable")
            urls, sent = {}, {}
            cdp.on(
                "Network.requestWillBeSent",
                lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]),
            )
            cdp.on(
                "Network.requestWillBeSentExtraInfo",
                lambda e: sent.__setitem__(e["requestId"], e["headers"]),
            )
            attacker.goto(f"http://{host}:{foreign.port}/")
            attacker.wait_for_function("document.title !== 'loading'")
            title = attacker.title()
            assert title.startswith("blocked "), title  # nothing readable came back
            # The browser did send it (a simple request: no preflight), and it was refused.
            assert refresh_answers(gunicorn_server, 403, attempt_number) == attempt_number
            (request_id,) = [i for i, url in urls.items() if url.endswith("/auth/refresh")]
            headers = {k.lower(): v for k, v in sent[request_id].items()}
            assert headers["origin"] == f"http://{host}:{foreign.port}"
            if host == "localhost":  # same site: the cookie went along; Origin stopped it
                assert "__Secure-refresh_token=" in headers.get("cookie", "")
            else:  # another site: SameSite=Strict kept the cookie back as well
                assert "cookie" not in headers
            attacker.close()
    finally:
        foreign.close()

    # The session is untouched: same cookie, and the app still refreshes with it.
    assert {c["name"]: c["value"] for c in context.cookies()}[
        "__Secure-refresh_token"
    ] == cookie_before
    page.reload()
    page.wait_for_selector("#user-email:has-text('admin@example.com')")
    context.close()


def test_the_js_client_retries_only_idempotent_requests_on_5xx(gunicorn_server, browser):
    """The retry policy of datahub-client.js, with answers injected in the browser."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(spa_url(gunicorn_server))
    page.wait_for_selector("#login-view:not([hidden])")
    log_in(page, gunicorn_server)

    arrivals = []

    def flaky_list(route):  # GET /datasets/: 503, 502, then the real answer
        arrivals.append(time.monotonic())
        if len(arrivals) <= 2:
            route.fulfill(
                status=503 if len(arrivals) == 1 else 502,
                content_type="application/json",
                body='{"detail": "Service unavailable"}',
            )
        else:
            route.continue_()

    page.route("**/api/v1/datasets/?*", flaky_list)
    page.click("#reload")
    page.wait_for_selector("#status:has-text('Loaded at')", timeout=15000)
    first, second = arrivals[1] - arrivals[0], arrivals[2] - arrivals[1]
    assert len(arrivals) == 3
    assert 0.9 <= first < 1.8 and 1.9 <= second < 3.0
    page.unroute("**/api/v1/datasets/?*")

    posts = []

    def failing_create(route):  # POST is never repeated, whatever the status
        if route.request.method == "POST":
            posts.append(route.request.url)
            route.fulfill(
                status=503,
                content_type="application/json",
                body='{"detail": "Service unavailable"}',
            )
        else:
            route.continue_()

    page.route("**/api/v1/datasets/", failing_create)
    page.fill("#name", "Never")
    page.click("#create-form button")
    page.wait_for_selector("#status:has-text('Error: Service unavailable')")
    page.wait_for_timeout(1500)  # a retry would have come by now
    assert len(posts) == 1

    # 4xx are not retried either (an unknown dataset: one request, its detail shown).
    gets = []
    page.on("request", lambda r: gets.append(r.url) if "/datasets/424242" in r.url else None)
    detail = page.evaluate("""async () => {
        const { DatahubClient } = await import('/app/datahub-client.js');
        const api = new DatahubClient('');
        await api.restore();
        try { await api.get('/api/v1/datasets/424242'); } catch (e) { return [e.status, e.detail]; }
    }""")
    assert detail == [404, "Dataset not found"] and len(gets) == 1
    context.close()


PREVIEW_CSV = b"name,city,age\nAnn,Oslo,31\nBob,,40\nCid,Bergen,25\n"


def api_client(server):
    api = Client(server.url)
    api.login("admin@example.com", server.admin_password())
    return api


def preview_table(page):
    """The preview's header ([(name, type)]) and rows, as the page shows them."""
    header = list(
        zip(
            page.locator("#preview-head th .column-name").all_text_contents(),
            page.locator("#preview-head th .column-type").all_text_contents(),
            strict=False,
        )
    )
    rows = [row.locator("td").all_text_contents() for row in page.locator("#preview-rows tr").all()]
    return header, rows


def test_clicking_a_dataset_shows_its_preview(gunicorn_server, browser, screenshots):
    api = api_client(gunicorn_server)
    dataset = api.dataset_create("People")
    api.dataset_upload(
        dataset["id"], io.BytesIO(PREVIEW_CSV), filename="people.csv", content_type="text/csv"
    )
    empty = api.dataset_create("Nothing yet")
    context, page, errors = logged_in_page(browser, gunicorn_server)
    assert page.is_hidden("#preview-area")

    page.click(f"#datasets tr[data-id='{dataset['id']}']")
    page.wait_for_selector("#preview-note:has-text('first 3 rows · csv')")
    header, rows = preview_table(page)
    assert header == [("name", "VARCHAR"), ("city", "VARCHAR"), ("age", "BIGINT")]
    assert rows == [["Ann", "Oslo", "31"], ["Bob", "", "40"], ["Cid", "Bergen", "25"]]
    assert page.get_attribute("#preview-rows tr:nth-child(2) td:nth-child(2)", "class") == "null"
    assert page.text_content("#preview-title") == "People"
    page.screenshot(path=str(screenshots / "preview.png"), full_page=True)

    # A dataset without a file says so where the table was (and asks the service nothing);
    # a file that is not a table shows the service's detail there.
    previews = []
    page.on("request", lambda r: previews.append(r.url) if "/preview" in r.url else None)
    page.click(f"#datasets tr[data-id='{empty['id']}']")
    page.wait_for_selector("#preview-error:has-text('This dataset has no file yet.')")
    assert page.text_content("#preview-title") == "Nothing yet"
    assert page.locator("#preview-rows tr").count() == 0 and previews == []
    assert page.is_visible(f"#datasets tr.selected[data-id='{empty['id']}']")
    api.dataset_upload(
        empty["id"],
        io.BytesIO(b"\x89PNG\r\n\x1a\n\x00\x00"),
        filename="x.png",
        content_type="image/png",
    )
    page.click("#reload")
    page.wait_for_selector("#status:has-text('Loaded at')")
    page.click(f"#datasets tr[data-id='{empty['id']}']")
    page.wait_for_selector("#preview-error:not([hidden])")
    assert page.text_content("#preview-error") == "Dataset file is not tabular"
    assert page.locator("#preview-rows tr").count() == 0
    assert errors == []
    context.close()


def test_a_runs_output_is_previewed_the_same_way(gunicorn_server, browser):
    api = api_client(gunicorn_server)
    source = api.dataset_create("People source")
    api.dataset_upload(
        source["id"], io.BytesIO(PREVIEW_CSV), filename="people.csv", content_type="text/csv"
    )
    pipeline = json.loads(
        api.request(
            "POST",
            "/api/v1/pipelines/",
            json_body={
                "name": "First two",
                "source_dataset_id": source["id"],
                "steps": [{"op": "limit", "count": 2}],
                "output_dataset_name": "First two people",
            },
        ).data
    )
    context, page, errors = logged_in_page(browser, gunicorn_server)
    row = page.locator(f"#pipelines tr[data-id='{pipeline['id']}']")
    assert row.locator("td").all_text_contents()[1:4] == [
        "First two",
        str(source["id"]),
        "never run",
    ]
    assert row.locator("button").count() == 0

    run = api.pipeline_run(pipeline["id"])  # the embedded worker executes it
    run = api.run_wait(pipeline["id"], run["id"], poll=0.2, timeout=60)
    assert run["status"] == "succeeded", run
    page.reload()
    page.wait_for_selector(f"#pipelines tr[data-id='{pipeline['id']}'] button.preview-output")
    assert row.locator("td").all_text_contents()[3:5] == ["succeeded", "2"]
    row.locator("button.preview-output").click()
    page.wait_for_selector("#preview-note:has-text('first 2 rows')")
    header, rows = preview_table(page)
    assert [name for name, _ in header] == ["name", "city", "age"]
    assert rows == [["Ann", "Oslo", "31"], ["Bob", "", "40"]]
    assert page.text_content("#preview-title") == "First two people (output of First two)"
    assert errors == []
    context.close()


def test_a_viewer_sees_every_pipeline_and_no_create_form(gunicorn_server, browser):
    """A viewer reads everything but creates nothing: the pipelines of others are listed,
    and the create form is not shown (it would only answer Forbidden)."""
    api = api_client(gunicorn_server)
    source = api.dataset_create("Viewer source")
    pipeline = json.loads(
        api.request(
            "POST",
            "/api/v1/pipelines/",
            json_body={
                "name": "Admin's pipeline",
                "source_dataset_id": source["id"],
                "output_dataset_name": "Admin's output",
            },
        ).data
    )
    api.request(
        "POST",
        "/api/v1/users/",
        json_body={
            "email": "viewer@example.com",
            "password": "viewer password",
            "roles": ["viewer"],
        },
    )
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(spa_url(gunicorn_server))
    page.wait_for_selector("#login-view:not([hidden])")
    page.fill("#email", "viewer@example.com")
    page.fill("#password", "viewer password")
    page.click("#login-form button")
    page.wait_for_selector("#user-email:has-text('viewer@example.com')")
    assert page.text_content("#user-roles") == "viewer"
    page.wait_for_selector(f"#pipelines tr[data-id='{pipeline['id']}']")
    total = api.pipelines_list(limit=1)["total"]
    assert page.text_content("#pipelines-total") == f"({total})" and total >= 1
    assert page.is_hidden("#create-area") and page.is_hidden("#create-form")
    page.click("#logout")
    page.wait_for_selector("#login-view:not([hidden])")
    log_in(page, gunicorn_server)  # an admin (and an editor) may create
    page.wait_for_selector("#create-form", state="visible")
    assert errors == []
    context.close()
