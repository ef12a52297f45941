"""What the client tests share: the end-to-end server fixtures, the server a test talks to
(``server``), a logged-in Python client, a logged-in ``datahub`` command (test_cli.py has
its own, which starts logged out) and names of a test's own (``unique``)."""

import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from datahub_client import Client
from datahub_client.cli import main
from tests.e2e.conftest import (  # noqa: F401  (shared fixtures)
    gunicorn_env,
    gunicorn_server,
    gunicorn_workers,
    module_gunicorn_server,
    module_pipeline_worker,
    pipeline_worker,
)

HERE = Path(__file__).resolve().parent

# A test that asks for one of these (parametrizes a setting, or wants a fresh database)
# gets a gunicorn of its own; every other test shares its module's.
OWN_SERVER = ("gunicorn_server", "gunicorn_env", "gunicorn_workers", "pipeline_worker")


def own_server(fixturenames):
    return any(name in fixturenames for name in OWN_SERVER)


def shares_a_server(fixturenames):
    return "server" in fixturenames and not own_server(fixturenames)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """The tests of a module that share its server are one xdist group: ``python -m
    tests`` (``--dist loadgroup``) runs them on one worker, which starts one server for
    them, not one on each worker they would be spread over."""
    for item in items:
        if item.path.parent == HERE and shares_a_server(item.fixturenames):
            item.add_marker(pytest.mark.xdist_group(f"client_{item.path.stem}"))


@pytest.fixture(scope="module")
def module_gunicorn_env():
    """The shared server counts no logins or refreshes: a module's tests together log in
    (as the admin) and refresh more often than its limits allow one client address or
    account (5 logins a minute). No test here is about rate limits."""
    return {"DATAHUB_RATELIMIT_ENABLED": "false"}


@pytest.fixture
def server(request):
    """The gunicorn the test talks to: its module's (``module_gunicorn_server``), or one
    of its own (``gunicorn_server``, on the test database, emptied by ``app``) when it asks
    for a server setting or for ``gunicorn_server`` itself (OWN_SERVER).

    The module's server keeps a SQLite file of its own in either pass: tests/client is
    DATABASE_INDEPENDENT (tests/conftest.py), CI's PostgreSQL pass deselects it, and a
    PostgreSQL run that keeps it tests the client against that SQLite file. The module's
    other tests use the server before and after this one (one at a time): what a test
    makes there is named apart (``unique``), and a list it checks whole is filtered to
    those names or compared with what it held before the test."""
    if own_server(request.fixturenames):
        return request.getfixturevalue("gunicorn_server")
    return request.getfixturevalue("module_gunicorn_server")


@pytest.fixture
def unique():
    """``unique(name)``: ``name`` with the test's own suffix (``Rain 3f9a1c2e``), apart from
    what the module's other tests make on the shared server (names are unique)."""
    suffix = uuid.uuid4().hex[:8]
    return lambda name: f"{name} {suffix}"


@pytest.fixture
def client(server):
    client = Client(server.url)
    client.login("admin@example.com", server.admin_password())
    return client


@pytest.fixture
def datahub(server, tmp_path):
    """Run ``datahub ARGS``, logged in; returns click's Result (stdout and stderr apart)."""
    runner = CliRunner()
    env = {
        "DATAHUB_URL": server.url,
        "DATAHUB_SESSION_FILE": str(tmp_path / "session.json"),
        "DATAHUB_EMAIL": "admin@example.com",
        "DATAHUB_PASSWORD": server.admin_password(),
    }

    def run(*args, input=None):
        return runner.invoke(main, list(args), env=env, input=input, catch_exceptions=False)

    assert run("login").exit_code == 0
    return run
