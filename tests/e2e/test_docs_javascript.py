"""The JavaScript and TypeScript examples of the documentation, run as written in headless
Chromium at the service's own origin: the browser client's (docs/guides/javascript.rst:
the web app's generated client and session, type-checked against web/src/api and bundled
with the web app's own tools) and the session handling written with fetch alone
(docs/security.rst)."""

import json
import subprocess

import pytest

from datahub_client import Client
from tests.e2e.docs_examples import code_blocks, named_block, pages
from tests.web.conftest import ROOT, browser, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.e2e

WEB = ROOT / "web"
RUN_IN_CHROMIUM = {"typescript-client", "security-spa"}


def test_every_browser_example_runs_here():
    names = {
        name
        for text in pages().values()
        for language, name, _ in code_blocks(text)
        if language in ("javascript", "typescript")
    }
    assert names == RUN_IN_CHROMIUM


def run_in_page(browser, server, body, script=None):  # noqa: F811  (the fixture's value)
    """Run ``body`` (an async function's body) in a page of the service's origin, after
    ``script`` (a bundled module), and answer what it returns."""
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.url}/api/v1/")
    if script:
        page.add_script_tag(content=script, type="module")
        page.wait_for_function("window.runExample !== undefined")
    try:
        return page.evaluate(
            f"async ([email, password]) => {{\n{body}\n}}",
            ["admin@example.com", server.admin_password()],
        )
    finally:
        context.close()
        assert errors == []


def typescript_module(code):
    """The example as a module: its imports at the top, pointing into web/src, the rest the
    body of ``example(email, password, file)``, which the page calls as ``runExample``."""
    lines = code.splitlines()
    imports = [
        line.replace('"./api/', f'"{WEB}/src/api/') for line in lines if line.startswith("import ")
    ]
    body = "\n".join("  " + line for line in lines if not line.startswith("import "))
    return "\n".join(
        [
            *imports,
            "async function example(email: string, password: string, file: File) {",
            body,
            "}",
            "(window as unknown as { runExample: typeof example }).runExample = example;",
            "",
        ]
    )


def checked_and_bundled(code, folder):
    """Type-check the example (strict, as web/tsconfig.json) and bundle it with rolldown."""
    (folder / "example.ts").write_text(typescript_module(code))
    (folder / "node_modules").symlink_to(WEB / "node_modules", target_is_directory=True)
    config = {
        "extends": str(WEB / "tsconfig.json"),
        "compilerOptions": {"types": [], "noEmit": True},
        "files": ["example.ts"],
        "include": [],
    }
    (folder / "tsconfig.json").write_text(json.dumps(config))
    for command in (
        [str(WEB / "node_modules/.bin/tsc"), "-p", "tsconfig.json"],
        [
            str(WEB / "node_modules/.bin/rolldown"),
            "example.ts",
            "--format",
            "esm",
            "--file",
            "example.js",
        ],
    ):
        run = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
    return (folder / "example.js").read_text()


def test_the_browser_client_example_runs(browser, server, tmp_path):  # noqa: F811
    script = checked_and_bundled(named_block("typescript-client"), tmp_path)
    answers = run_in_page(
        browser,
        server,
        """
        const logged = [];
        const log = console.log;
        console.log = (...values) => logged.push(values);
        const file = new File(["date,temp\\n2024-01-01,-3\\n"], "oslo.csv", { type: "text/csv" });
        try {
          return [await window.runExample(email, password, file), logged];
        } finally {
          console.log = log;
        }
        """,
        script,
    )
    result, logged = answers
    assert result[0] == "admin@example.com" and result[2] == "Oslo weather", answers
    assert [404, "Dataset not found"] in logged, answers
    api = Client(server.url)
    api.login("admin@example.com", server.admin_password())
    datasets = api.datasets_list(tag="weather")["items"]
    (dataset,) = [item for item in datasets if item["name"] == "Oslo weather"]
    assert dataset["file"]["filename"] == "oslo.csv"
    assert dataset["file"]["content_type"] == "text/csv"


def test_the_fetch_example_of_the_security_page_runs(browser, server):  # noqa: F811
    code = named_block("security-spa")
    code = code.replace("https://api.example.net/api/v1", server.url + "/api/v1")
    answers = run_in_page(
        browser,
        server,
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
