"""The pipeline walk-through of the curl guide (docs/guides/curl.rst), run as written
after the quickstart's login (bash and the real curl) against a real gunicorn whose
embedded workers execute the run."""

import json
import shutil
import subprocess

import pytest

from tests.e2e.docs_examples import named_block, script

pytestmark = pytest.mark.e2e


@pytest.fixture
def pipeline_worker():
    return True  # the walk-through runs a pipeline


def test_the_pipeline_walkthrough_runs(gunicorn_server, tmp_path):
    for tool in ("curl", "bash", "seq", "python3"):
        assert shutil.which(tool), f"{tool} is needed for this test"
    blocks = [("bash", name, named_block(name)) for name in ("quickstart-login", "curl-pipelines")]
    result = subprocess.run(
        ["bash", "-c", script(gunicorn_server.url, blocks)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "DATAHUB_PASSWORD": gunicorn_server.admin_password(),
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == ["succeeded", "5 rows in, 3 rows out"], result.stdout
    assert lines[2:6] == ["city,population", "Oslo,709000", "Bergen,291000", "Tromso,77000"]
    runs = json.loads(lines[6])
    assert runs["total"] == 1 and runs["items"][0]["status"] == "succeeded"
    assert json.loads(lines[7]) == runs["items"][0]  # cancel of a finished run: unchanged
    assert '"detail"' not in result.stdout, result.stdout
    assert result.stderr == ""
