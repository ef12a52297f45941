"""The files a newcomer looks for: the licence setup.cfg names and a changelog entry for
the version it declares."""

import configparser
import json
import re
from pathlib import Path

from tests.e2e.conftest import ROOT


def setup_cfg():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return config["metadata"]


def test_the_license_file_is_the_declared_license():
    metadata = setup_cfg()
    assert metadata["license"] == "MIT"
    assert metadata["license_files"].split() == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text


def test_the_changelog_has_the_declared_version():
    version = setup_cfg()["version"]
    changelog = (ROOT / "CHANGELOG.rst").read_text()
    headings = re.findall(r"^(\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2})\n=+$", changelog, re.M)
    assert headings, "no release heading"
    assert headings[0][0] == version  # the newest entry first


# A path the documentation names that is the reader's own, not the repository's.
READERS_FILES = {"instance/config.py"}


def documents():
    """The README and every page of the docs site: {path: text}."""
    paths = [ROOT / "README.rst", *sorted((ROOT / "docs").rglob("*.rst"))]
    return {
        str(path.relative_to(ROOT)): path.read_text()
        for path in paths
        if "_build" not in path.parts
    }


def test_the_documentation_names_only_files_in_the_repository():
    named = {}
    for document, text in documents().items():
        for path in re.findall(
            r"(?:image:: |literalinclude:: |``)((?:[\w.-]+/)+[\w.-]+\.(?:md|rst|png|txt|toml|cfg|yaml|yml|conf|py|json|js|ts))(?![\w.])",
            text,
        ):
            named.setdefault(path, document)
    assert "../screenshots/sign-in.png" in named  # the scan sees paths
    missing = sorted(
        f"{path} ({document})"
        for path, document in named.items()
        if path not in READERS_FILES
        and not (ROOT / path).exists()
        and not (ROOT / "datahub" / path).exists()
        and not (ROOT / Path(document).parent / path).resolve().exists()
    )
    assert missing == []


def test_the_documentation_cites_no_document_outside_the_repository():
    for document, text in documents().items():
        assert not re.search(r"DESIGN\.md|\bseed\b|\.\./shared", text), document


START_COMMAND = (
    "    python3 -m venv .venv && . .venv/bin/activate && pip install -r requirements.txt -e . "
    "&& (cd web && npm ci --omit=dev --no-audit --no-fund && npm run build) && gunicorn"
)


def test_the_start_command_is_the_same_everywhere_and_names_the_node_it_needs():
    """The quickstart repeats the README's command; both say which Node.js builds the app,
    the one web/package.json's engines ask for."""
    engines = json.loads((ROOT / "web" / "package.json").read_text())["engines"]
    assert engines["node"] == ">=20.19"
    for page in ("README.rst", "docs/quickstart.rst"):
        text = (ROOT / page).read_text()
        assert START_COMMAND in text.splitlines(), page
        assert "Node.js 20.19" in " ".join(text.split()), page


def test_the_readme_is_a_front_page():
    """What it is, the two commands, the concepts and a map of the docs: no more."""
    readme = (ROOT / "README.rst").read_text()
    assert len(readme.splitlines()) <= 200
    assert START_COMMAND in readme.splitlines()  # one line, the web app built on the way
    for page in re.findall(r"``docs/([\w/-]+\.rst)``", readme):
        assert (ROOT / "docs" / page).exists(), page


def test_the_database_independent_tests_exist_and_ci_leaves_them_out_once():
    """A path that no longer exists would leave nothing out; the second CI pass sets it."""
    from tests.conftest import DATABASE_INDEPENDENT

    for path in DATABASE_INDEPENDENT:
        assert (ROOT / path).exists(), path
    ci = (ROOT / ".ci" / "run").read_text()
    first, second = ci.split('log "tests on PostgreSQL"')
    assert "unset DATAHUB_TEST_DATABASE_URL DATAHUB_TEST_SKIP_DATABASE_INDEPENDENT" in first
    assert "DATAHUB_TEST_SKIP_DATABASE_INDEPENDENT=1 run_tests" in second


def test_ci_runs_the_readmes_test_command():
    """``python -m tests``: the parallel part, then the serial one (tests/__main__.py)."""
    readme = (ROOT / "README.rst").read_text()
    command = next(line.strip() for line in readme.splitlines() if '-e ".[test]"' in line)
    ci = (ROOT / ".ci" / "run").read_text()
    assert command.endswith("&& python -m tests")
    assert (
        command.split("activate && ", 1)[1].replace("pip install", "pip install -q")
        + " -p no:cacheprovider"
        in ci
    )


def _pins(path):
    pins = {}
    for line in (ROOT / path).read_text().splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def test_the_service_lock_holds_no_test_tool_and_the_test_lock_adds_them():
    """requirements.txt is what the service needs; requirements-test.txt adds the test
    extra's tools (pinned) and reads the service's set first."""
    service, test = _pins("requirements.txt"), _pins("requirements-test.txt")
    tools = ("pytest", "pytest-xdist", "ruff", "sphinx", "playwright", "schemathesis", "moto")
    assert [tool for tool in tools if tool in service] == []
    assert [tool for tool in tools if tool not in test] == []
    assert (ROOT / "requirements-test.txt").read_text().count("\n-r requirements.txt\n") == 1
    assert set(service) & set(test) == set()
