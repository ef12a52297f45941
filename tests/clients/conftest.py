"""What the tests of the OpenAPI document as a client's developer sees it share: the Node
tooling of this folder (installed by ``npm ci`` from package-lock.json when
``node_modules`` is missing or older than the lock file), the document itself, and the
real gunicorn of tests/e2e.

A missing tool fails the tests that need it, with what to install: none is skipped."""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.conftest import (  # noqa: F401
    gunicorn_env,
    gunicorn_server,
    gunicorn_workers,
    pipeline_worker,
)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NODE_MODULES = HERE / "node_modules"
# Written after a successful ``npm ci``: the sha256 of the package-lock.json installed.
INSTALLED_LOCK = NODE_MODULES / ".datahub-installed-lock"
MIN_NODE = (20, 19)  # @hey-api/openapi-ts 0.95 wants Node 20.19 or later


def run(command, *, cwd, timeout, env=None):
    """Run ``command``; returns the CompletedProcess (text, stdout and stderr kept)."""
    return subprocess.run(
        command,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def required_tool(name, install):
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"`{name}` is not on PATH: {install}", pytrace=False)
    return path


def node_environment():
    """The environment the Node tools run in: no usage reports, no update checks."""
    return {
        **os.environ,
        "SCARF_ANALYTICS": "false",
        "DO_NOT_TRACK": "1",
        "NO_UPDATE_NOTIFIER": "1",
        "NODE_NO_WARNINGS": "1",
    }


@pytest.fixture(scope="session")
def node_tools():
    """``tests/clients/node_modules/.bin``, installed with ``npm ci`` when missing or stale."""
    install = "install Node.js 20.19 or later, with npm (Debian 12's own nodejs is 18.19)"
    node = required_tool("node", install)
    npm = required_tool("npm", install)
    version = run([node, "--version"], cwd=HERE, timeout=30).stdout.strip()
    found = tuple(int(part) for part in version.lstrip("v").split(".")[:2])
    if found < MIN_NODE:
        pytest.fail(f"Node {version} is too old: {install}", pytrace=False)
    # One ``npm ci`` at a time: test workers (pytest-xdist) each get here; the others wait
    # for it, holding package-lock.json's flock, and then find it installed.
    with open(HERE / "package-lock.json", "rb") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        lock = hashlib.sha256(lock_file.read()).hexdigest()
        installed = INSTALLED_LOCK.read_text().strip() if INSTALLED_LOCK.exists() else None
        if installed != lock:
            result = run([npm, "ci"], cwd=HERE, timeout=600, env=node_environment())
            if result.returncode != 0:
                pytest.fail(
                    f"npm ci failed in {HERE}:\n{result.stdout}\n{result.stderr}", pytrace=False
                )
            INSTALLED_LOCK.write_text(lock + "\n")
    return NODE_MODULES / ".bin"


def fetch_document(server, destination):
    """The OpenAPI document as the running server serves it, written to ``destination``."""
    with urllib.request.urlopen(server.url + "/api/v1/openapi.json", timeout=30) as response:
        document = json.load(response)
    destination.write_text(json.dumps(document, indent=2))
    return document


@pytest.fixture
def admin(gunicorn_server):  # noqa: F811
    """(email, password) of the admin the server's first start created."""
    return "admin@example.com", gunicorn_server.admin_password()
