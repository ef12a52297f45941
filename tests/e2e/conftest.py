"""A real gunicorn (the project's gunicorn.conf.py) on a free loopback port."""
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, process, url, log_path, env=None):
        self.process, self.url, self.log_path = process, url, log_path
        self.env = {k: v for k, v in (env or {}).items() if k.startswith("DATAHUB_")}

    def log(self):
        return self.log_path.read_text(errors="replace")

    def admin_password(self):
        match = re.search(r"created the first admin \S+ with password (\S+)", self.log())
        assert match, self.log()
        return match.group(1)


@pytest.fixture
def gunicorn_workers():
    """How many workers ``gunicorn_server`` starts; override in a test module."""
    return 2


@pytest.fixture
def gunicorn_env():
    """Extra environment (DATAHUB_* settings) for ``gunicorn_server``; override in a module."""
    return {}


@pytest.fixture
def gunicorn_server(app, database_url, tmp_path, gunicorn_workers, gunicorn_env):
    """Start gunicorn against the test database (emptied by ``app``)."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DATAHUB_")},
        "DATAHUB_SQLALCHEMY_DATABASE_URI": database_url,
        "DATAHUB_INSTANCE_PATH": str(tmp_path / "instance"),
        "DATAHUB_BCRYPT_ROUNDS": "4",
        "DATAHUB_BIND": f"127.0.0.1:{port}",
        "DATAHUB_WORKERS": str(gunicorn_workers),
        **gunicorn_env,
    }
    log_path = tmp_path / "gunicorn.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    server = Server(process, f"http://127.0.0.1:{port}", log_path, env)
    server.instance_path = tmp_path / "instance"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(server.url + "/readyz", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("gunicorn did not start:\n" + server.log())
        time.sleep(0.1)
    yield server
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
