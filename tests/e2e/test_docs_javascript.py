"""The JavaScript examples of the documentation, run as written in headless Chromium at
the service's own origin (only the documented address is replaced by the test server's):
the JavaScript client's (docs/guides/javascript.rst) and the session handling written
with fetch alone (docs/security.rst)."""

import json
import re

import pytest

from datahub_client import Client
from tests.e2e.docs_examples import code_blocks, named_block, pages
from tests.e2e.test_spa import browser, spa_url  # noqa: F401  (fixture)

pytestmark = pytest.mark.e2e

RUN_IN_CHROMIUM = {"javascript-client", "security-spa"}


def test_every_javascript_example_runs_here():
    names = {
        name
        for text in pages().values()
        for language, name, _ in code_blocks(text)
        if language == "javascript"
    }
    assert names == RUN_IN_CHROMIUM


def run_in_page(browser, server, body):  # noqa: F811  (the fixture's value)
    """Run ``body`` (an async function's body) in a page of the app's origin, where the
    client module is served, and answer what it returns."""
    context = browser.new_context()
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(spa_url(server))
    page.wait_for_selector("#login-view:not([hidden])")
    try:
        return page.evaluate(
            f"async ([email, password]) => {{\n{body}\n}}",
            ["admin@example.com", server.admin_password()],
        )
    finally:
        context.close()
        assert errors == []


def test_the_javascript_client_example_runs(browser, gunicorn_server):  # noqa: F811
    code = named_block("javascript-client")
    origin = spa_url(gunicorn_server).removesuffix("/app/")
    code = code.replace("https://datahub.example.com", origin)
    code = re.sub(
        r'^import \{ (.+) \} from "\./datahub-client\.js";$',
        r'const { \1 } = await import("/app/datahub-client.js");',
        code,
        flags=re.MULTILINE,
    )
    logged = run_in_page(
        browser,
        gunicorn_server,
        f"""
        const logged = [];
        const console = {{ log: (...values) => logged.push(values) }};
        const showLogin = () => logged.push(["the login is shown"]);
        const fileInput = {{ files: [new File(["date,temp\\n2024-01-01,-3\\n"], "oslo.csv",
                                             {{ type: "text/csv" }})] }};
        {code}
        return logged;
    """,
    )
    assert logged == [[404, "Dataset not found"]]
    api = Client(gunicorn_server.url)
    api.login("admin@example.com", gunicorn_server.admin_password())
    (dataset,) = api.datasets_list(tag="weather")["items"]
    assert dataset["name"] == "Oslo weather" and dataset["file"]["filename"] == "oslo.csv"
    assert dataset["file"]["content_type"] == "text/csv"


def test_the_fetch_example_of_the_security_page_runs(browser, gunicorn_server):  # noqa: F811
    code = named_block("security-spa")
    origin = spa_url(gunicorn_server).removesuffix("/app/")
    code = code.replace("https://api.example.net/api/v1", origin + "/api/v1")
    answers = run_in_page(
        browser,
        gunicorn_server,
        f"""
        {code}
        await login(email, password);
        const me = await (await api("/auth/me")).json();
        accessToken = null;  // as in a new tab: the cookie is there, the token not
        const again = await (await api("/auth/me")).json();
        await logout();
        let refused = null;
        try {{ await refresh(); }} catch (error) {{ refused = error.message; }}
        return [me.email, again.email, refused];
    """,
    )
    assert answers == ["admin@example.com", "admin@example.com", "log in again"], json.dumps(
        answers
    )


def test_the_javascript_client_takes_a_personal_access_token(browser, gunicorn_server):  # noqa: F811
    """``new DatahubClient(url, { token })``: the token is the bearer (no login, no
    cookie); a read token cannot write; once revoked, a 401 is final (no refresh)."""
    api = Client(gunicorn_server.url)
    api.login("admin@example.com", gunicorn_server.admin_password())
    token = api.tokens_create("chromium", scopes=("read",))
    origin = spa_url(gunicorn_server).removesuffix("/app/")
    script = f"""
        const {{ DatahubClient }} = await import("/app/datahub-client.js");
        const bot = new DatahubClient({json.dumps(origin)}, {{ token: {json.dumps(token["token"])} }});
        const refusal = async (call) => {{
            try {{ await call(); return null; }} catch (error) {{ return [error.status, error.detail]; }}
        }};
    """
    answers = run_in_page(
        browser,
        gunicorn_server,
        script
        + """
        const me = await bot.me();
        const page = await bot.listDatasets();
        return [me.email, page.total, await refusal(() => bot.createDataset({ name: "by bot" }))];
    """,
    )
    assert answers == ["admin@example.com", 0, [403, "Forbidden"]], json.dumps(answers)
    api.token_revoke(token["id"])
    answers = run_in_page(
        browser, gunicorn_server, script + "return await refusal(() => bot.me());"
    )
    assert answers == [401, "Invalid token"], json.dumps(answers)
