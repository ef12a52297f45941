"""The ``datahub`` command where no datahub service is needed: help, usage, the missing
login, an unreachable service, and a stand-in service that misbehaves (``fake_datahub``)."""

import json
import os
import re
import subprocess
import sys
import threading
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
from click.testing import CliRunner
from fake_datahub import CONTENT, make_app

from datahub_client.cli import main
from datahub_client.cli_lineage import lineage_lines


def command(url, session_file):
    """Run ``datahub ARGS`` against ``url``; returns click's Result (stdout and stderr apart)."""
    runner = CliRunner()

    def run(*args, **kwargs):
        env = {
            "DATAHUB_URL": url,
            "DATAHUB_SESSION_FILE": str(session_file),
            "DATAHUB_PASSWORD": "secret",
        }
        return runner.invoke(main, list(args), env=env, catch_exceptions=False, **kwargs)

    run.url = url
    run.session_file = session_file

    def save_session():
        session_file.write_text(
            json.dumps({"url": url, "cookie_name": "refresh_token", "refresh_token": "cookie"})
        )

    run.save_session = save_session
    return run


@pytest.fixture
def datahub(tmp_path, unused_port):
    """The command, configured for a port nothing listens on."""
    return command(f"http://127.0.0.1:{unused_port}", tmp_path / "session.json")


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture
def fake_url():
    """The URL of a running ``fake_datahub``."""
    server = make_server("127.0.0.1", 0, make_app(), handler_class=QuietHandler)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


@pytest.fixture
def fake_datahub(tmp_path, fake_url):
    """The command, configured for ``fake_datahub`` and logged in to it."""
    run = command(fake_url, tmp_path / "session.json")
    run.save_session()
    return run


@pytest.fixture
def logged_out(tmp_path, fake_url):
    """The command, configured for ``fake_datahub`` (which answers), never logged in."""
    return command(fake_url, tmp_path / "session.json")


def test_help_names_every_command(datahub):
    result = datahub("--help")
    assert result.exit_code == 0
    for command in ("login", "logout", "whoami", "datasets", "collections", "pipelines"):
        assert command in result.stdout
    result = datahub("datasets", "--help")
    assert result.exit_code == 0
    for command in (
        "list",
        "create",
        "upload",
        "download",
        "delete",
        "versions",
        "pin",
        "unpin",
        "restore",
        "diff",
        "lineage",
    ):
        assert re.search(rf"^  {command}  ", result.stdout, re.MULTILINE), command
    result = datahub("datasets", "download", "--help")
    assert result.exit_code == 0 and "--version INTEGER" in result.stdout
    result = datahub("datasets", "upload", "--help")
    assert result.exit_code == 0 and "--message TEXT" in result.stdout
    result = datahub("datasets", "diff", "--help")
    assert result.exit_code == 0 and "DATASET_ID FROM TO" in result.stdout
    assert "--key TEXT" in result.stdout and "--json" in result.stdout
    result = datahub("datasets", "lineage", "--help")
    assert result.exit_code == 0 and "[upstream|downstream|both]" in result.stdout
    assert "--depth INTEGER RANGE" in result.stdout and "--version INTEGER" in result.stdout


def test_without_a_session_every_resource_command_asks_for_a_login(logged_out):
    for args in (
        ["whoami"],
        ["datasets", "list"],
        ["datasets", "delete", "1"],
        ["datasets", "versions", "1"],
        ["datasets", "pin", "1", "2"],
        ["datasets", "unpin", "1", "2"],
        ["datasets", "restore", "1", "2"],
        ["datasets", "download", "1", "--version", "2"],
        ["datasets", "diff", "1", "1", "2", "--key", "date"],
        ["datasets", "lineage", "1", "--json"],
        ["collections", "list"],
        ["pipelines", "run", "1"],
    ):
        result = logged_out(*args)
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == f"Error: Not logged in to {logged_out.url}; run: datahub login\n"


def test_without_a_session_an_unreachable_service_is_named_not_a_login(datahub):
    """Never logged in and the service down: the service cannot be reached, whatever the
    missing session (after the retries: about 7 seconds)."""
    result = datahub("datasets", "list")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: cannot reach {datahub.url}\n"


def test_a_session_for_another_url_is_not_used(logged_out):
    logged_out.session_file.write_text(
        json.dumps(
            {
                "url": "http://elsewhere:8000",
                "cookie_name": "refresh_token",
                "refresh_token": "secret",
            }
        )
    )
    result = logged_out("whoami")
    assert result.exit_code == 1 and result.stderr.startswith("Error: Not logged in to")
    assert json.loads(logged_out.session_file.read_text())["refresh_token"] == "secret"


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
    result = datahub("datasets", "download", "1", "--version", "latest")
    assert result.exit_code == 2 and "'latest' is not a valid integer" in result.stderr
    result = datahub("datasets", "restore", "1")
    assert result.exit_code == 2 and "Missing argument 'VERSION'" in result.stderr
    result = datahub("datasets", "diff", "1", "1")
    assert result.exit_code == 2 and "Missing argument 'TO'" in result.stderr
    result = datahub("datasets", "diff", "1", "1", "2", "--key", "date,,city")
    assert result.exit_code == 2 and "'date,,city' has an empty column name" in result.stderr
    result = datahub("datasets", "lineage", "1", "--depth", "11")
    assert result.exit_code == 2 and "11 is not in the range 1<=x<=10" in result.stderr
    result = datahub("datasets", "lineage", "1", "--direction", "sideways")
    assert result.exit_code == 2 and "'sideways' is not one of" in result.stderr
    result = datahub("datasets", "lineage", "1", "--version", "0")
    assert result.exit_code == 2 and "0 is not in the range x>=1" in result.stderr
    result = datahub("--url", "127.0.0.1:8000", "whoami")
    assert result.exit_code == 2 and "Invalid value for '--url'" in result.stderr
    assert not datahub.session_file.exists()


def test_an_unreachable_service_is_named_by_its_url(datahub):
    """Connection refused (after the retries: about 7 seconds each)."""
    result = datahub("login", "--email", "a@example.com")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: cannot reach {datahub.url}\n"
    datahub.save_session()
    result = datahub("whoami")  # the saved session is refreshed first
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: cannot reach {datahub.url}\n"
    assert json.loads(datahub.session_file.read_text())["refresh_token"] == "cookie"  # kept


def test_a_closed_stdout_ends_the_command_quietly(tmp_path):
    """``datahub ... | head``: the reader went away; no traceback, no complaint at exit."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    result = subprocess.run(
        [sys.executable, "-c", "from datahub_client.cli import main; main()", "logout"],
        stdout=write_end,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "DATAHUB_SESSION_FILE": str(tmp_path / "session.json")},
    )
    os.close(write_end)
    assert (result.returncode, result.stderr) == (1, "")


def test_an_interrupted_download_leaves_no_partial_file_and_the_old_one_as_it_was(
    fake_datahub, tmp_path
):
    target = tmp_path / "downloads"
    target.mkdir()
    result = fake_datahub("datasets", "download", "1", str(target))
    assert (result.exit_code, result.stdout) == (1, "")
    assert re.fullmatch(
        rf"Error: Download ended after \d+ of {len(CONTENT)} bytes\n", result.stderr
    )  # what urllib3 had read before the break is dropped
    assert os.listdir(target) == []
    (target / "cut.bin").write_bytes(b"the old file")
    result = fake_datahub("datasets", "download", "1", str(target), "--force")
    assert result.exit_code == 1 and result.stderr.startswith("Error: Download ended after")
    assert os.listdir(target) == ["cut.bin"]
    assert (target / "cut.bin").read_bytes() == b"the old file"


def test_unexpected_answers_are_one_line_errors(fake_datahub):
    result = fake_datahub("login", "--email", "a@example.com")  # 200 without a token
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "Error: unexpected KeyError: 'access_token'\n"
    fake_datahub.save_session()
    result = fake_datahub("whoami")  # 200 with HTML: not a datahub service
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: unexpected answer from {fake_datahub.url}/api/v1/auth/me (not JSON)\n"
    )


def test_lineage_is_one_line_per_run_oldest_first():
    """A join's two inputs, a run that made no version (failed, going, or reused), a
    dataset without a name; the service's nodes and edges in any order."""
    graph = {
        "nodes": [
            {"id": "run:12", "type": "run", "run_id": 12, "pipeline_id": 4},
            {"id": "dataset:10@2", "type": "version", "dataset_id": 10, "version": 2, "name": "b"},
            {"id": "dataset:7@3", "type": "version", "dataset_id": 7, "version": 3, "name": "a"},
            {"id": "run:5", "type": "run", "run_id": 5, "pipeline_id": 2},
            {"id": "dataset:8@1", "type": "version", "dataset_id": 8, "version": 1, "name": None},
        ],
        "edges": [
            {"from": "dataset:10@2", "to": "run:5"},
            {"from": "run:5", "to": "dataset:8@1"},
            {"from": "dataset:8@1", "to": "run:12"},
            {"from": "dataset:7@3", "to": "run:5"},
        ],
    }
    assert lineage_lines(graph) == [
        "a@3, b@2 -> run 5 (pipeline 2) -> dataset 8@1",
        "dataset 8@1 -> run 12 (pipeline 4) -> no new version",
    ]
