"""The ``datahub`` command against a real gunicorn, through click's CliRunner."""

import hashlib
import json
import os
import pty
import socket
import stat
import subprocess
import sys

import pytest
from click.testing import CliRunner

from datahub_client import AuthenticationError, Client
from datahub_client.cli import main
from tests.processes import popen

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def module_pipeline_worker():
    return True  # `datahub pipelines run --wait`


@pytest.fixture
def session_file(tmp_path):
    return tmp_path / "config" / "session.json"


@pytest.fixture
def datahub(server, session_file):
    """Run ``datahub ARGS``; returns click's Result (stdout and stderr apart)."""
    runner = CliRunner()
    password = server.admin_password()

    def run(*args, password_env=True, **kwargs):
        env = {
            "DATAHUB_URL": server.url,
            "DATAHUB_SESSION_FILE": str(session_file),
            "DATAHUB_EMAIL": "admin@example.com",
            "DATAHUB_PASSWORD": password if password_env else None,
        }
        env.update(kwargs.pop("env", {}))
        return runner.invoke(main, list(args), env=env, catch_exceptions=False, **kwargs)

    run.password = password
    run.url = server.url
    return run


def saved(session_file):
    return json.loads(session_file.read_text())


def test_login_create_upload_download_round_trip(datahub, session_file, tmp_path, unique):
    result = datahub("login")
    assert result.exit_code == 0, result.stderr
    assert "Logged in to" in result.stdout and "admin@example.com" in result.stdout
    assert stat.S_IMODE(session_file.stat().st_mode) == 0o600
    session = saved(session_file)
    assert set(session) == {"url", "cookie_name", "refresh_token"}  # no access token on disk
    assert session["cookie_name"] == "__Secure-refresh_token"

    result = datahub("whoami")
    assert result.exit_code == 0 and "admin@example.com" in result.stdout
    assert "ROLES" in result.stdout.splitlines()[0]

    name = unique("Oslo weather")
    result = datahub(
        "--json", "datasets", "create", name, "--tag", "weather", "--description", "Daily readings"
    )
    assert result.exit_code == 0, result.stderr
    dataset = json.loads(result.stdout)
    assert (dataset["name"], dataset["tags"], dataset["file"]) == (name, ["weather"], None)

    content = os.urandom(300 * 1024) + b"end"  # several chunks
    source = tmp_path / "weather.bin"
    source.write_bytes(content)
    result = datahub("--json", "datasets", "upload", str(dataset["id"]), str(source))
    assert result.exit_code == 0, result.stderr
    uploaded = json.loads(result.stdout)["file"]
    assert uploaded["sha256"] == hashlib.sha256(content).hexdigest()
    assert (uploaded["filename"], uploaded["size_bytes"]) == ("weather.bin", len(content))

    result = datahub("datasets", "upload", str(dataset["id"]), str(source))
    assert (result.exit_code, result.stderr) == (0, "")  # stderr is no terminal: no progress
    assert uploaded["sha256"] in result.stdout

    target = tmp_path / "downloads"
    target.mkdir()
    result = datahub("datasets", "download", str(dataset["id"]), str(target))
    assert (result.exit_code, result.stderr) == (0, "")  # no progress either
    assert (target / "weather.bin").read_bytes() == content
    assert os.listdir(target) == ["weather.bin"]  # no temporary file left behind

    result = datahub("datasets", "list", "--q", name.lower())
    assert result.exit_code == 0
    header, row = result.stdout.splitlines()
    assert header.split() == ["ID", "NAME", "TAGS", "FILE", "SIZE"]
    assert row.split() == [
        str(dataset["id"]),
        *name.split(),
        "weather",
        "weather.bin",
        str(len(content)),
        "B",
    ]
    listed = json.loads(datahub("--json", "datasets", "list", "--q", name).stdout)
    assert [item["id"] for item in listed["items"]] == [dataset["id"]] and listed["total"] == 1
    later = json.loads(datahub("--json", "datasets", "create", unique("Bergen")).stdout)
    for sort, ids in (("name", [later, dataset]), ("-created_at", [later, dataset])):
        command = ("--json", "datasets", "list", "--q", unique("")[1:], "--sort", sort)
        listed = json.loads(datahub(*command).stdout)["items"]
        assert [item["id"] for item in listed] == [d["id"] for d in ids], sort
        assert listed[0]["capabilities"] == {"write": True, "manage": True}
    result = datahub("--json", "datasets", "list", "--sort", "created_at", "--q", later["name"])
    assert [item["id"] for item in json.loads(result.stdout)["items"]] == [later["id"]]
    result = datahub("datasets", "list", "--sort", "size")
    assert result.exit_code == 2 and "'size' is not one of 'name', '-name'" in result.stderr

    weather = unique("Weather")
    collection = json.loads(datahub("--json", "collections", "create", weather).stdout)
    added = json.loads(
        datahub("--json", "collections", "add", str(collection["id"]), str(dataset["id"])).stdout
    )
    assert added["dataset_ids"] == [dataset["id"]]
    result = datahub("collections", "list", "--q", weather)
    assert result.stdout.splitlines()[1].split()[:4] == [
        str(collection["id"]),
        *weather.split(),
        str(dataset["id"]),
    ]
    removed = json.loads(
        datahub("--json", "collections", "remove", str(collection["id"]), str(dataset["id"])).stdout
    )
    assert removed["dataset_ids"] == []

    assert datahub("datasets", "delete", str(dataset["id"])).exit_code == 0
    result = datahub("datasets", "download", str(dataset["id"]), str(target))
    assert result.exit_code == 1 and result.stderr == "Error: Dataset not found\n"

    result = datahub("logout")
    assert result.exit_code == 0 and "Successfully logged out" in result.stdout
    assert not session_file.exists()
    result = datahub("datasets", "list")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: Not logged in to http://127.0.0.1:")


@pytest.mark.parametrize("gunicorn_env", [{"DATAHUB_REFRESH_REUSE_GRACE_SECONDS": "0"}])
def test_the_session_file_is_rewritten_after_every_rotation(
    gunicorn_env, datahub, session_file, gunicorn_server
):
    assert datahub("login").exit_code == 0
    first = saved(session_file)["refresh_token"]
    assert datahub("whoami").exit_code == 0  # a new process: refreshes, the cookie rotates
    second = saved(session_file)["refresh_token"]
    assert second != first
    assert stat.S_IMODE(session_file.stat().st_mode) == 0o600
    assert datahub("datasets", "list").exit_code == 0
    assert saved(session_file)["refresh_token"] not in (first, second)

    # A retired cookie replayed (a stale copy of the file) ends the session: reuse detection.
    stale = Client(gunicorn_server.url, refresh_token=first)
    with pytest.raises(AuthenticationError) as error:
        stale.refresh()
    assert error.value.detail == "Token has been revoked"
    result = datahub("whoami")
    assert (result.exit_code, result.stderr.splitlines()[0]) == (1, "Error: Token has been revoked")


def test_errors_are_one_line_on_stderr_with_a_nonzero_exit(datahub, session_file, tmp_path, unique):
    result = datahub("login", env={"DATAHUB_PASSWORD": "not the password"})
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.splitlines()[0] == "Error: Invalid email or password"
    assert not session_file.exists()

    assert datahub("login").exit_code == 0
    assert datahub("datasets", "create", unique("Twice")).exit_code == 0
    result = datahub("datasets", "create", unique("twice"))
    assert (result.exit_code, result.stderr) == (1, "Error: Name already exists\n")
    result = datahub("datasets", "create", "x" * 256)
    assert result.exit_code == 1
    assert result.stderr == "Error: name: ensure this value has at most 255 characters\n"
    (tmp_path / "f.csv").write_text("a\n")
    result = datahub("datasets", "upload", "424242", str(tmp_path / "f.csv"))
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (1, "Error: Dataset not found")
    result = datahub("collections", "add", "424242", "424242")
    assert (result.exit_code, result.stderr) == (1, "Error: Collection not found\n")

    # The service ended the session (here: every session of the user): the command says so.
    client = Client(saved(session_file)["url"])
    client.login("admin@example.com", datahub.password)
    client.request("POST", "/api/v1/auth/logout-all")
    result = datahub("whoami")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "Error: Token has been revoked",
        "Log in with: datahub login",
    ]
    assert not session_file.exists()  # the service deleted the cookie, so did the command


def test_the_password_is_never_an_argument_and_the_prompt_hides_it(datahub, session_file):
    result = datahub("login", "--password", datahub.password)
    assert result.exit_code == 2 and "No such option" in result.stderr
    assert not session_file.exists()

    result = datahub("login", password_env=False, input=datahub.password + "\n")
    assert result.exit_code == 0, result.stderr
    assert "Password:" in result.stderr
    assert datahub.password not in result.stdout + result.stderr  # not echoed
    first = saved(session_file)["refresh_token"]

    # Logging in again ends the session the file held, rather than leaving it behind.
    assert datahub("login").exit_code == 0
    assert saved(session_file)["refresh_token"] != first
    with pytest.raises(AuthenticationError) as error:
        Client(saved(session_file)["url"], refresh_token=first).refresh()
    assert error.value.detail == "Token has been revoked"


def test_pipelines_run_wait_reports_the_finished_run(datahub, tmp_path, unique):
    """The embedded worker of the gunicorn under test executes the run."""
    assert datahub("login").exit_code == 0
    source = tmp_path / "cities.csv"
    source.write_text("city,temp\nOslo,3\nBergen,7\nOslo,5\n")
    dataset = json.loads(datahub("--json", "datasets", "create", unique("cities")).stdout)
    assert datahub("datasets", "upload", str(dataset["id"]), str(source)).exit_code == 0
    client = Client(datahub.url)
    client.login("admin@example.com", datahub.password)
    pipeline = client._json(
        "POST",
        "/api/v1/pipelines/",
        json_body={
            "name": unique("oslo only"),
            "source_dataset_id": dataset["id"],
            "output_dataset_name": unique("oslo"),
            "steps": [{"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"}],
        },
    )

    result = datahub("--json", "pipelines", "run", str(pipeline["id"]), "--wait", "--poll", "0.2")
    assert result.exit_code == 0, result.stderr
    run = json.loads(result.stdout)
    assert (run["status"], run["rows_in"], run["rows_out"]) == ("succeeded", 3, 2)
    listing = json.loads(datahub("--json", "pipelines", "list", "--q", unique("oslo only")).stdout)
    assert [p["name"] for p in listing["items"]] == [unique("oslo only")]
    newest = datahub("--json", "pipelines", "list", "--q", unique("")[1:], "--sort", "-name")
    assert json.loads(newest.stdout)["items"][0]["id"] == pipeline["id"]

    pipeline = client._json(
        "POST",
        "/api/v1/pipelines/",
        json_body={
            "name": unique("broken"),
            "source_dataset_id": dataset["id"],
            "output_dataset_name": unique("never"),
            "steps": [{"op": "select", "columns": ["no such column"]}],
        },
    )
    result = datahub("pipelines", "run", str(pipeline["id"]), "--wait", "--poll", "0.2")
    assert result.exit_code == 1
    assert "failed" in result.stderr and "no such column" in result.stderr


def test_download_keeps_an_existing_file_unless_forced(datahub, tmp_path, unique):
    assert datahub("login").exit_code == 0
    dataset = json.loads(datahub("--json", "datasets", "create", unique("Kept")).stdout)
    source = tmp_path / "kept.csv"
    source.write_text("a,b\n1,2\n")
    assert datahub("datasets", "upload", str(dataset["id"]), str(source)).exit_code == 0
    target = tmp_path / "downloads"
    target.mkdir()
    existing = target / "kept.csv"
    existing.write_text("old\n")
    for destination in (target, existing):  # a folder (the service's file name), or the file
        result = datahub("datasets", "download", str(dataset["id"]), str(destination))
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == f"Error: {existing} already exists (use --force to overwrite it)\n"
        assert existing.read_text() == "old\n"
    result = datahub("datasets", "download", str(dataset["id"]), str(target), "--force")
    assert (result.exit_code, result.stdout) == (0, f"Saved 8 bytes to {existing}\n")
    assert existing.read_text() == "a,b\n1,2\n"
    assert os.listdir(target) == ["kept.csv"]  # no temporary file left behind


def test_local_problems_are_one_line_errors(datahub, tmp_path, monkeypatch, unique):
    assert datahub("login").exit_code == 0
    dataset = json.loads(datahub("--json", "datasets", "create", unique("Local")).stdout)
    dataset_id = str(dataset["id"])

    unopenable = tmp_path / "a.sock"  # exists and looks readable, but open() fails (ENXIO)
    monkeypatch.chdir(tmp_path)  # a short socket path, whatever the length of tmp_path
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("a.sock")
        result = datahub("datasets", "upload", dataset_id, str(unopenable))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: {unopenable}: No such device or address\n"

    source = tmp_path / "local.csv"
    source.write_text("x\n")
    assert datahub("datasets", "upload", dataset_id, str(source)).exit_code == 0
    missing = tmp_path / "no such folder" / "local.csv"
    result = datahub("datasets", "download", dataset_id, str(missing))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: {missing}: No such file or directory\n"
    assert not missing.parent.exists()

    folder = tmp_path / "downloads"
    (folder / "local.csv").mkdir(parents=True)  # where the service's file name points
    for force in ([], ["--force"]):
        result = datahub("datasets", "download", dataset_id, str(folder), *force)
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == f"Error: {folder / 'local.csv'}: Is a directory\n"
    assert os.listdir(folder) == ["local.csv"] and os.listdir(folder / "local.csv") == []

    if os.geteuid() != 0:  # root reads and writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        result = datahub("datasets", "download", dataset_id, str(locked))
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == f"Error: {locked / 'local.csv'}: Permission denied\n"
        source.chmod(0)
        result = datahub("datasets", "upload", dataset_id, str(source))
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == f"Error: {source}: Permission denied\n"

    unwritable = tmp_path / "session-folder"  # a folder where the session file should be
    unwritable.mkdir()
    result = datahub("login", env={"DATAHUB_SESSION_FILE": str(unwritable)})
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"Error: {unwritable}: Is a directory\n"
    assert os.listdir(unwritable) == [] and os.listdir(tmp_path / "session-folder") == []


def on_a_terminal(args, env):
    """Run ``datahub ARGS`` with stderr on a pseudo-terminal: (status, what it showed)."""
    controller, terminal = pty.openpty()
    process = popen(
        [sys.executable, "-c", "from datahub_client.cli import main; main()", *args],
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        env=env,
    )
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # EIO: the command has closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    return process.wait(), shown.decode()


def test_progress_is_drawn_on_a_terminal_only(datahub, session_file, tmp_path, unique):
    assert datahub("login").exit_code == 0
    name = unique("Shown")
    dataset_id = str(json.loads(datahub("--json", "datasets", "create", name).stdout)["id"])
    size = 300 * 1024
    source = tmp_path / "shown.bin"
    source.write_bytes(os.urandom(size))
    env = {**os.environ, "DATAHUB_URL": datahub.url, "DATAHUB_SESSION_FILE": str(session_file)}
    command = [sys.executable, "-c", "from datahub_client.cli import main; main()"]

    status, shown = on_a_terminal(["datasets", "upload", dataset_id, str(source)], env)
    assert status == 0, shown
    assert "Uploading" in shown and f"{size}/{size}" in shown and "\r" in shown
    status, shown = on_a_terminal(["datasets", "download", dataset_id, str(tmp_path / "a")], env)
    assert status == 0, shown
    assert "Downloading" in shown and f"{size}/{size}" in shown and "\r" in shown

    for args in (
        ["datasets", "upload", dataset_id, str(source)],
        ["datasets", "download", dataset_id, str(tmp_path / "b")],
    ):
        result = subprocess.run(command + args, capture_output=True, env=env)  # pipes
        assert (result.returncode, result.stderr) == (0, b"")
        assert b"\r" not in result.stdout
