"""A real gunicorn (the project's gunicorn.conf.py) on a free loopback port."""

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.processes import popen
from tests.workers import free_port

ROOT = Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, process, url, log_path, env=None):
        self.process, self.url, self.log_path = process, url, log_path
        self.env = {k: v for k, v in (env or {}).items() if k.startswith("DATAHUB_")}

    def log(self):
        return self.log_path.read_text(errors="replace")

    def admin_password(self, timeout=10):
        """The first admin's password, as told once the server answers (it may be told
        just after the first answer)."""
        deadline = time.monotonic() + timeout
        while not (
            match := re.search(r"created the first admin \S+ with password (\S+)", self.log())
        ):
            assert time.monotonic() < deadline, self.log()
            time.sleep(0.05)
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
def pipeline_worker():
    """Whether ``gunicorn_server`` starts its supervised pipeline worker process; override
    with True in a module whose tests run pipelines. Off by default: that process is a
    second interpreter importing the whole app (about 1 s of CPU per server)."""
    return False


def wait_until_ready(url, process, log, what, timeout=30):
    """Wait until ``url`` answers 200; fail the test with ``log()`` when ``process`` ends
    or ``timeout`` seconds pass first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"{what} did not start:\n" + log())
        time.sleep(0.1)


def start_gunicorn(database_url, folder, workers=2, extra_env=None, **options):
    """gunicorn (the project's gunicorn.conf.py) on a free port against ``database_url``,
    its instance folder and log in ``folder``; returns a ready :class:`Server`."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DATAHUB_")},
        "DATAHUB_SQLALCHEMY_DATABASE_URI": database_url,
        "DATAHUB_INSTANCE_PATH": str(folder / "instance"),
        "DATAHUB_BCRYPT_ROUNDS": "4",
        "DATAHUB_BIND": f"127.0.0.1:{port}",
        "DATAHUB_WORKERS": str(workers),
        **(extra_env or {}),
    }
    log_path = folder / "gunicorn.log"
    with open(log_path, "wb") as log:
        process = popen(  # a session of its own: stop_gunicorn ends every worker too
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            **{"start_new_session": True, **options},
        )
    server = Server(process, f"http://127.0.0.1:{port}", log_path, env)
    server.instance_path = folder / "instance"
    wait_until_ready(server.url + "/readyz", process, server.log, "gunicorn")
    return server


def stop_gunicorn(server, quick=True, timeout=20):
    """SIGQUIT, gunicorn's quick shutdown (the test is over: a graceful SIGTERM took about
    3 s per test here, against 1-1.7 s), or SIGTERM with ``quick=False``; SIGKILL after
    ``timeout`` seconds."""
    process = server.process
    process.send_signal(signal.SIGQUIT if quick else signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    # A worker that outlived its master (stuck, or the master killed above) would go on
    # serving and running pipelines against the test database: none may.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture
def gunicorn_server(app, database_url, tmp_path, gunicorn_workers, gunicorn_env, pipeline_worker):
    """Start gunicorn against the test database (emptied by ``app``)."""
    env = {"DATAHUB_PIPELINE_EMBEDDED_WORKER": str(pipeline_worker).lower(), **gunicorn_env}
    server = start_gunicorn(database_url, tmp_path, gunicorn_workers, env)
    yield server
    stop_gunicorn(server)


@pytest.fixture(scope="module")
def module_gunicorn_env():
    """Extra environment (DATAHUB_* settings) for ``module_gunicorn_server``; override in a
    module (or a folder's conftest)."""
    return {}


@pytest.fixture(scope="module")
def module_pipeline_worker():
    """Whether ``module_gunicorn_server`` starts its pipeline worker process (as
    ``pipeline_worker``); override with True in a module whose shared tests run pipelines."""
    return False


@pytest.fixture(scope="module")
def module_gunicorn_server(tmp_path_factory, module_gunicorn_env, module_pipeline_worker):
    """One gunicorn (2 workers, ``module_gunicorn_env``'s settings) shared by a module's
    tests that only talk HTTP to it and need no database of their own: it has its own
    SQLite file, so only DATABASE_INDEPENDENT modules (tests/conftest.py) use it, and it is
    on SQLite in the PostgreSQL pass too. Its tests run one after the other (a module's
    tests on a pytest-xdist worker each start one), but see what the module's earlier tests
    made: they name what they make apart and never expect a whole list of their own. A
    server's start and stop cost about 2.7 s of CPU."""
    folder = tmp_path_factory.mktemp("server")
    env = {
        "DATAHUB_PIPELINE_EMBEDDED_WORKER": str(module_pipeline_worker).lower(),
        **module_gunicorn_env,
    }
    server = start_gunicorn(f"sqlite:///{folder / 'datahub.db'}", folder, extra_env=env)
    yield server
    stop_gunicorn(server)
