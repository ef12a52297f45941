"""Every bash and Python example of the documentation's walk-through (the quickstart, then
the guides for curl, the ``datahub`` command and Python), run in order as written (bash,
the real curl, the ``datahub`` command, the Python client) against a real gunicorn, so that
the documentation cannot drift from the service (tests/e2e/docs_examples.py)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.docs_examples import (
    RUNNABLE,
    WALKTHROUGH,
    code_blocks,
    named_block,
    pages,
    run_bash,
    script,
    walkthrough_blocks,
    walkthrough_script,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def pipeline_worker():
    return True  # the walk-through runs a pipeline


def test_every_runnable_example_is_in_the_walkthrough():
    """A bash or python block on another page would never run: such pages show commands
    as literal blocks (``::``) instead."""
    elsewhere = {
        page: [code for language, _, code in code_blocks(text) if language in RUNNABLE]
        for page, text in pages().items()
        if page not in WALKTHROUGH
    }
    assert {page: codes for page, codes in elsewhere.items() if codes} == {}
    languages = [language for language, _, _ in walkthrough_blocks()]
    assert languages.count("bash") >= 7 and languages.count("python") >= 1


def test_every_curl_command_is_in_a_block_that_runs():
    run = "".join(code for _, _, code in walkthrough_blocks())
    commands = [
        line.strip()
        for text in pages().values()
        for line in text.splitlines()
        if line.startswith("    ") and re.match(r"\s*(\S+=\$\()?curl\s", line)
    ]
    assert len(commands) > 20
    missing = [line for line in commands if line not in run]
    assert missing == []


def test_walkthrough_examples_run(app, gunicorn_server, tmp_path):
    for tool in ("curl", "bash", "sha256sum", "cmp"):
        assert shutil.which(tool), f"{tool} is needed for this test"
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    assert Path(sys.executable).with_name("datahub").exists()
    result = run_bash(
        walkthrough_script(gunicorn_server.url), work, home, gunicorn_server.admin_password()
    )
    output = result.stdout
    assert result.returncode == 0, output + result.stderr
    lines = output.splitlines()
    # curl: auth, datasets, files, collections, users, sessions.
    assert '"email":"admin@example.com"' in output
    assert lines.count("same") == 2  # curl's and the command's download equal the upload
    assert "304" in lines  # If-None-Match with the sha256
    assert "date,temp" in lines  # the 9 bytes of the Range request
    # The dataset, the user and the other session deleted; a grant and a token revoked.
    assert lines.count("204") == 5
    assert "204 204 204 " in lines  # the access guide's dataset, group and user
    assert (
        '{"format":"csv","columns":[{"name":"date","type":"DATE"},{"name":"temp",'
        '"type":"BIGINT"},{"name":"note","type":"VARCHAR"}],'
        '"rows":[["2024-01-01",-3,null],["2024-01-02",-5,"windy"]],"truncated":false}'
    ) in lines  # preview
    assert '{"message":"Successfully logged out"}' in lines
    # The profile guide: the schema the worker read, and the Data Package's fields.
    assert (
        "([('station', 'VARCHAR', False), ('temp', 'DOUBLE', True), ('day', 'DATE', False)], 3)"
    ) in lines
    assert (
        "station 0.0 2 [{'value': 'Blindern', 'count': 2}, {'value': 'Flesland', 'count': 1}]"
        in lines
    )
    assert (
        '{"format":"csv","columns":[{"name":"city","type":"VARCHAR"},{"name":"population",'
        '"type":"BIGINT"}],"rows":[["Oslo",709000],["Bergen",291000]],"truncated":false}'
    ) in lines  # the steps' preview
    # Access: Bea's 404 before the grant and after its revocation, her 403 on a change,
    # the read-only token's 403, and the revoked token's 401.
    assert lines.count("404") == 2
    assert lines.count('{"detail":"Forbidden"}') == 2
    assert "{'write': False, 'manage': False}" in lines  # Bea's capabilities as a reader
    assert '{"detail":"Invalid token"}' in lines
    # Otherwise the only error on the way: the refresh after logout.
    assert output.count('"detail"') == 4 and '{"detail":"Not authenticated"}' in lines
    # The datahub command.
    assert f"Logged in to {gunicorn_server.url} as admin@example.com" in lines
    assert any(line.split()[1:3] == ["Bergen", "weather"] for line in lines if line.split())
    assert "Successfully logged out" in lines
    assert not (home / ".config/datahub/session.json").exists()  # logged out
    assert "Uploading" not in result.stderr  # progress only on a terminal, not into a pipe
    # The command's versions: the list, version 1's file, a pin, a restore.
    tables = [i for i, line in enumerate(lines) if line.split()[:2] == ["VERSION", "CREATED"]]
    assert len(tables) == 3
    rows = [lines[i].split() for i in (tables[0] + 1, tables[0] + 2)]
    assert [(row[0], row[-1]) for row in rows] == [("2", "corrected"), ("1", "-")]
    assert "version 1 as first uploaded" in lines
    assert lines[tables[1] + 1].split()[-4:] == ["yes", "published", "as", "published"]
    restore = lines[tables[2] + 1]
    assert restore.split()[0] == "3" and restore.endswith("  Restored from version 1")
    # The command's diff of versions 1 and 2 (keyed by date), then the lineage of the
    # curl guide's pipeline output: one line per run.
    diff = next(i for i, line in enumerate(lines) if line.endswith("(rows matched by date)"))
    assert re.fullmatch(
        r"Dataset \d+, version 1 -> version 2 \(rows matched by date\)", lines[diff]
    )
    assert lines[diff + 1 : diff + 8] == [
        "Columns: no changes",
        "Rows: 0 added, 0 removed, 1 changed, 1 unchanged",
        "",
        "Changed rows:",
        "      date        temp",
        "from  2024-01-01  4",
        "to    2024-01-01  5",
    ]
    # Then the drift, once the worker has profiled both versions (the temp's mean), and
    # the lineage.
    drift = lines[diff + 9]
    assert drift == "Drift: not known yet (a version is not profiled yet)" or (
        drift == "Drift:" and lines[diff + 11].split()[:5] == ["temp", "mean", "5", "->", "5.5;"]
    ), lines[diff + 9 : diff + 12]
    lineage = next(i for i in range(diff + 9, len(lines)) if lines[i].startswith("Cities@1"))
    assert re.fullmatch(
        r"Cities@1 -> run \d+ \(pipeline \d+\) -> Norwegian cities by size@1", lines[lineage]
    )
    # Versions with curl: three uploads, the list, version 1's sha256 and file.
    listed = lines.index("[(3, 'corrected'), (2, None), (1, 'first')]")
    assert lines[listed - 3 : listed] == ["1", "2", "3"]
    assert re.fullmatch("[0-9a-f]{64}", lines[listed + 1])
    assert lines[listed + 2 : listed + 4] == ["date,mm", "2024-01-01,3"]
    assert lines[listed + 4] == (
        "({'added': 0, 'removed': 0, 'changed': 1, 'unchanged': 0}, "
        "[{'key': ['2024-01-01'], 'from': ['2024-01-01', 3], 'to': ['2024-01-01', 4]}])"
    )
    assert "True" in lines and "(4, 'Restored from version 1')" in lines
    assert "deleted version 3: 204" in lines
    assert "deleting the current version: 409" in lines
    # The Python client.
    assert "409 Name already exists" in lines
    assert (work / "tromso-copy.csv").read_text() == "date,temp\n2024-01-01,-8\n"
    # The Python client's versions.
    tromso = lines.index("[(2, '4 mm'), (1, '3 mm')]")
    # its diff (changed: 1, to 4 mm) and the lineage of the pipeline output, edge by edge
    assert lines[tromso + 1] == "1 ['2024-01-01', 4]"
    read = re.fullmatch(r"dataset:\d+@1 -> (run:\d+)", lines[tromso + 2])
    assert read and re.fullmatch(rf"{read[1]} -> dataset:\d+@1", lines[tromso + 3])
    assert "3 Restored from version 1" in lines and "409 Version is current" in lines
    assert (work / "tromso-rain-v1.csv").read_text() == "date,mm\n2024-01-01,3\n"
    # Every stored file belongs to a dataset still there (the pipeline walk-through keeps
    # its source and output); the datasets deleted on the way took their files along.
    from datahub.app.extensions import db
    from datahub.datasets.models import DatasetVersion

    with app.app_context():
        keys = set(db.session.scalars(db.select(DatasetVersion.file_key)))
    stored = {path.name for path in (gunicorn_server.instance_path / "storage").iterdir()}
    assert stored == keys


def run_blocks(server, tmp_path, code, password):
    return subprocess.run(
        ["bash", "-c", script(server.url, [("bash", None, code)])],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", "DATAHUB_PASSWORD": password},
    )


def test_a_failing_step_shows_the_api_detail(gunicorn_server, tmp_path):
    """The walk-through stops at a step the API refuses, with the API's detail."""
    login = named_block("quickstart-login")
    refused = run_blocks(gunicorn_server, tmp_path, login, "not the password")
    assert refused.returncode != 0
    assert refused.stderr.strip() == "Error: Invalid email or password", refused.stderr

    invalid = run_blocks(
        gunicorn_server,
        tmp_path,
        login
        + """
        curl -sS -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
          -d '{"name": ""}' "$BASE/datasets/" | pick id
        echo not reached
    """,
        gunicorn_server.admin_password(),
    )
    assert invalid.returncode != 0 and "not reached" not in invalid.stdout
    assert invalid.stderr.startswith("Error: body.name: "), invalid.stderr
    assert "Traceback" not in refused.stderr + invalid.stderr
