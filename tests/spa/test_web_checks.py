"""The web app's own checks, in the test command: its type check (tsc), its lint (eslint
with jsx-a11y) and its component tests (Vitest), each run in web/ as ``npm run <check>``.

``python -m tests`` installs web/node_modules first (tests/__main__.py)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "web"


@pytest.mark.parametrize("script", ["typecheck", "lint", "test"])
def test_the_web_app_check_passes(script):
    npm = shutil.which("npm")
    assert npm, "npm is not installed: the web app needs Node.js 20.19 or later with npm"
    assert (WEB / "node_modules").is_dir(), "web/node_modules is not installed: `cd web && npm ci`"
    run = subprocess.run(
        [npm, "run", script],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "CI": "true", "NO_COLOR": "1", "FORCE_COLOR": "0"},
    )
    assert run.returncode == 0, f"`npm run {script}` in web/ failed:\n{run.stdout}\n{run.stderr}"
