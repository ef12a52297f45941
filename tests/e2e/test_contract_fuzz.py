"""Contract fuzzing: schemathesis 4 generates valid and invalid requests for every
operation in the service's own OpenAPI document, sends them to a real gunicorn, and runs
all its checks on every response (documented status codes, bodies matching their
schemas, content types, no 5xx...), NUL and control characters included. Zero failures."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture
def gunicorn_env():
    """Every generated request logs in afresh; the login rate limit would answer 429."""
    return {"DATAHUB_RATELIMIT_ENABLED": "false"}


HERE = Path(__file__).parent


def test_schemathesis_finds_nothing(gunicorn_server, tmp_path):
    schemathesis = shutil.which("schemathesis", path=os.path.dirname(sys.executable))
    assert schemathesis, "schemathesis (test extra) is not installed"
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "fuzz_hooks",
        "PYTHONPATH": str(HERE),
        "FUZZ_BASE_URL": gunicorn_server.url,
        "FUZZ_EMAIL": "admin@example.com",
        "FUZZ_PASSWORD": gunicorn_server.admin_password(),
        # For the hooks' in-process repair of the fuzzing admin: the server's own settings.
        **gunicorn_server.env,
    }
    result = subprocess.run(
        [
            schemathesis,
            "--config-file",
            str(HERE / "schemathesis.toml"),
            "run",
            f"{gunicorn_server.url}/api/v1/openapi.json",
            # No --max-time: with it, fuzzing goes on until the budget is spent.
            "--mode",
            "all",
            # 25 examples per operation in the fuzzing phase (and as many stateful steps),
            # beside the coverage phase's systematic boundary and hostile values: about
            # 2 CPU-minutes, where 50 took about 3.
            "--max-examples",
            "25",  # all checks: see schemathesis.toml
            "--generation-deterministic",
            # Every phase, the stateful one (chained requests) included; the two checks it
            # would misapply to the file endpoints are turned off there (schemathesis.toml).
            "--phases",
            "examples,coverage,fuzzing,stateful",
            # NUL and control characters are generated too (schemathesis' default): the
            # document states where they are refused (patterns), and the service agrees.
            "--report",
            "junit",
            "--report-dir",
            str(tmp_path),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,  # about 165 s alone, 385 s beside CI's other workers
    )
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
