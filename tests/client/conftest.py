"""What the client tests share: the end-to-end server fixtures, a logged-in Python client
and a logged-in ``datahub`` command (test_cli.py has its own, which starts logged out)."""

import pytest
from click.testing import CliRunner

from datahub_client import Client
from datahub_client.cli import main
from tests.e2e.conftest import (  # noqa: F401  (shared fixtures)
    gunicorn_env,
    gunicorn_server,
    gunicorn_workers,
    pipeline_worker,
)


@pytest.fixture
def client(gunicorn_server):
    client = Client(gunicorn_server.url)
    client.login("admin@example.com", gunicorn_server.admin_password())
    return client


@pytest.fixture
def datahub(gunicorn_server, tmp_path):
    """Run ``datahub ARGS``, logged in; returns click's Result (stdout and stderr apart)."""
    runner = CliRunner()
    env = {
        "DATAHUB_URL": gunicorn_server.url,
        "DATAHUB_SESSION_FILE": str(tmp_path / "session.json"),
        "DATAHUB_EMAIL": "admin@example.com",
        "DATAHUB_PASSWORD": gunicorn_server.admin_password(),
    }

    def run(*args):
        return runner.invoke(main, list(args), env=env, catch_exceptions=False)

    assert run("login").exit_code == 0
    return run
