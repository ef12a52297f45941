"""The ``datahub`` command where no service is needed: help, usage and the missing login."""
import json

import pytest
from click.testing import CliRunner

from datahub_client.cli import main


@pytest.fixture
def datahub(tmp_path, unused_port):
    runner = CliRunner()
    session_file = tmp_path / "session.json"

    def run(*args, **kwargs):
        env = {"DATAHUB_URL": f"http://127.0.0.1:{unused_port}",
               "DATAHUB_SESSION_FILE": str(session_file), "DATAHUB_PASSWORD": None}
        return runner.invoke(main, list(args), env=env, catch_exceptions=False, **kwargs)

    run.url = f"http://127.0.0.1:{unused_port}"
    run.session_file = session_file
    return run


def test_help_names_every_command(datahub):
    result = datahub("--help")
    assert result.exit_code == 0
    for command in ("login", "logout", "whoami", "datasets", "collections", "pipelines"):
        assert command in result.stdout
    result = datahub("datasets", "--help")
    assert result.exit_code == 0
    for command in ("list", "create", "upload", "download", "delete"):
        assert command in result.stdout


def test_without_a_session_every_resource_command_asks_for_a_login(datahub):
    for args in (["whoami"], ["datasets", "list"], ["datasets", "delete", "1"],
                 ["collections", "list"], ["pipelines", "run", "1"]):
        result = datahub(*args)
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == f"Error: Not logged in to {datahub.url}; run: datahub login\n"


def test_a_session_for_another_url_is_not_used(datahub):
    datahub.session_file.write_text(json.dumps({
        "url": "http://elsewhere:8000", "cookie_name": "refresh_token",
        "refresh_token": "secret"}))
    result = datahub("whoami")
    assert result.exit_code == 1 and result.stderr.startswith("Error: Not logged in to")
    assert json.loads(datahub.session_file.read_text())["refresh_token"] == "secret"


def test_logout_without_a_session_says_so(datahub):
    result = datahub("logout")
    assert (result.exit_code, result.stdout) == (0, "Not logged in\n")
    result = datahub("--json", "logout")
    assert json.loads(result.stdout) == {"message": "Not logged in"}


def test_usage_errors_exit_with_2(datahub, tmp_path):
    result = datahub("login", "--email", "a@example.com", "--password", "x")
    assert result.exit_code == 2 and "No such option" in result.stderr
    result = datahub("datasets", "upload", "1", str(tmp_path / "missing.csv"))
    assert result.exit_code == 2 and "does not exist" in result.stderr
    result = datahub("datasets", "list", "--limit", "101")
    assert result.exit_code == 2
    assert not datahub.session_file.exists()
