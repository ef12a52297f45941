"""The README's pipeline walk-through, run as written (bash and the real curl) against a
real gunicorn whose embedded workers execute the run."""
import json
import re
import shutil
import subprocess
import urllib.request

import pytest

from tests.e2e.conftest import ROOT

pytestmark = pytest.mark.e2e


def walkthrough():
    text = (ROOT / "README.rst").read_text()
    section = text[text.index("Pipelines and runs with curl\n"):text.index("\nSteps\n-----\n")]
    [block] = re.findall(r"\.\. code-block:: bash\n\n((?:    .*\n|\n)+)", section)
    return "\n".join(line[4:] for line in block.splitlines())


def test_readme_pipeline_walkthrough_runs(gunicorn_server, tmp_path):
    for tool in ("curl", "bash", "seq"):
        assert shutil.which(tool), f"{tool} is needed for this test"
    login = urllib.request.Request(
        gunicorn_server.url + "/api/v1/auth/login",
        data=json.dumps({"email": "admin@example.com",
                         "password": gunicorn_server.admin_password()}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(login, timeout=10) as response:
        token = json.load(response)["access_token"]
    result = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + walkthrough()], cwd=tmp_path,
        capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", "BASE": gunicorn_server.url + "/api/v1",
             "TOKEN": token},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "succeeded", result.stdout
    assert result.stderr.split() == ["5", "3"]  # rows_in, rows_out
    assert lines[1:5] == ["city,population", "Oslo,709000", "Bergen,291000", "Tromso,77000"]
    runs = json.loads(lines[5])
    assert runs["total"] == 1 and runs["items"][0]["status"] == "succeeded"
    assert json.loads(lines[6]) == runs["items"][0]  # cancel of a finished run: unchanged
    assert '"detail"' not in result.stdout, result.stdout
