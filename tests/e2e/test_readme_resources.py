"""The README's curl walk-through for datasets, files, collections and users, run as
written (with bash and the real curl) against a real gunicorn."""
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
    section = text[text.index("Datasets, files and collections with curl"):
                   text.index("Roles and ownership\n")]
    blocks = re.findall(r"\.\. code-block:: bash\n\n((?:    .*\n|\n)+)", section)
    assert len(blocks) == 2
    return "\n".join(line[4:] for block in blocks for line in block.splitlines())


def test_readme_walkthrough_runs(gunicorn_server, tmp_path):
    for tool in ("curl", "bash", "sha256sum", "cmp"):
        assert shutil.which(tool), f"{tool} is needed for this test"
    login = urllib.request.Request(
        gunicorn_server.url + "/api/v1/auth/login",
        data=json.dumps({"email": "admin@example.com",
                         "password": gunicorn_server.admin_password()}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(login, timeout=10) as response:
        token = json.load(response)["access_token"]
    script = "set -euo pipefail\n" + walkthrough()
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", "BASE": gunicorn_server.url + "/api/v1",
             "TOKEN": token},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "same" in lines  # the download equals the upload
    assert "304" in lines  # If-None-Match with the sha256
    assert "date,temp" in lines  # the 9 bytes of the Range request
    assert lines.count("204") == 2  # the dataset and the user deleted
    assert '"detail"' not in result.stdout, result.stdout  # no error on the way
    assert list((gunicorn_server.instance_path / "storage").iterdir()) == []
