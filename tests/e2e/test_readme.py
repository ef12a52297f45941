"""Every bash and Python example of README.rst, run in order as written (bash, the real
curl, the ``datahub`` command, the Python client) against a real gunicorn, so that the
documentation cannot drift from the service. Only the documented address is replaced by
the test server's."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT

pytestmark = pytest.mark.e2e

DOCUMENTED_URL = "http://127.0.0.1:8000"
BLOCK = re.compile(r"^\.\. code-block:: (\w+)\n\n((?:(?:    .*)?\n)+)", re.MULTILINE)


def readme_blocks():
    """(language, code) of every bash and python code block, in document order."""
    text = (ROOT / "README.rst").read_text()
    blocks = [(language, "\n".join(line[4:] for line in body.splitlines()).strip() + "\n")
              for language, body in BLOCK.findall(text)]
    return [(language, code) for language, code in blocks if language in ("bash", "python")]


def readme_script(url):
    parts = ["set -euo pipefail"]
    for number, (language, code) in enumerate(readme_blocks()):
        code = code.replace(DOCUMENTED_URL, url)
        if language == "python":
            parts.append(f'"$PYTHON" - <<\'PYTHON_BLOCK_{number}\'\n{code}PYTHON_BLOCK_{number}')
        else:
            parts.append(code)
    return "\n".join(parts) + "\n"


def test_every_curl_example_is_in_a_block_that_runs():
    text = (ROOT / "README.rst").read_text()
    run = "".join(code for _, code in readme_blocks())
    examples = [line.strip() for line in text.splitlines()
                if line.startswith("    ") and re.search(r"\bcurl\s", line)]
    assert len(examples) > 20
    missing = [line for line in examples if line not in run]
    assert missing == []
    languages = [language for language, _ in readme_blocks()]
    assert languages.count("bash") >= 5 and languages.count("python") >= 1


def test_readme_examples_run(app, gunicorn_server, tmp_path):
    for tool in ("curl", "bash", "sha256sum", "cmp"):
        assert shutil.which(tool), f"{tool} is needed for this test"
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    venv_bin = str(Path(sys.executable).parent)  # where the `datahub` command is installed
    assert Path(venv_bin, "datahub").exists()
    result = subprocess.run(
        ["bash", "-c", readme_script(gunicorn_server.url)], cwd=work, capture_output=True,
        text=True, timeout=120, stdin=subprocess.DEVNULL,
        env={"PATH": f"{venv_bin}:/usr/bin:/bin:/usr/local/bin", "HOME": str(home),
             "PYTHON": sys.executable, "DATAHUB_PASSWORD": gunicorn_server.admin_password()},
    )
    output = result.stdout
    assert result.returncode == 0, output + result.stderr
    lines = output.splitlines()
    # curl: auth, datasets, files, collections, users, sessions.
    assert '"email":"admin@example.com"' in output
    assert lines.count("same") == 2  # curl's and the command's download equal the upload
    assert "304" in lines  # If-None-Match with the sha256
    assert "date,temp" in lines  # the 9 bytes of the Range request
    assert lines.count("204") == 3  # the dataset, the user and the other session deleted
    assert ('{"format":"csv","columns":[{"name":"date","type":"DATE"},{"name":"temp",'
            '"type":"BIGINT"},{"name":"note","type":"VARCHAR"}],'
            '"rows":[["2024-01-01",-3,null],["2024-01-02",-5,"windy"]],"truncated":false}') in lines  # preview
    assert '{"message":"Successfully logged out"}' in lines
    # The only error on the way: the refresh after logout.
    assert output.count('"detail"') == 1 and '{"detail":"Not authenticated"}' in lines
    # The datahub command.
    assert f"Logged in to {gunicorn_server.url} as admin@example.com" in lines
    assert any(line.split()[1:3] == ["Bergen", "weather"] for line in lines if line.split())
    assert "Successfully logged out" in lines
    assert not (home / ".config/datahub/session.json").exists()  # logged out
    assert "Uploading" not in result.stderr  # progress only on a terminal, not into a pipe
    # The Python client.
    assert "409 Name already exists" in lines
    assert (work / "tromso-copy.csv").read_text() == "date,temp\n2024-01-01,-8\n"
    # Every stored file belongs to a dataset still there (the pipeline walk-through keeps
    # its source and output); the datasets deleted on the way took their files along.
    from datahub.datasets.models import Dataset
    from datahub.app.extensions import db

    with app.app_context():
        keys = set(db.session.scalars(db.select(Dataset.file_key).where(
            Dataset.file_key.is_not(None))))
    stored = {path.name for path in (gunicorn_server.instance_path / "storage").iterdir()}
    assert stored == keys
