"""The parts of the fault tests' cluster that a test stops and starts again: a Redis and a
PostgreSQL server of the test's own (never the machine's shared ones), and TCP proxies
(tests/e2e/tcp_proxy.py) in front of the S3 server and a webhook receiver, which cut them
off as their host going away would, without losing what they hold.

Start and restart them from the test's main thread: tests.processes.popen ties a child to
the thread that started it.
"""

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from tests.processes import popen, stop
from tests.workers import free_port


class OwnRedis:
    """``redis-server`` on a free port, appending every write to its file (a stop and a
    start keep the broker's queue, as a real deployment's Redis would)."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.port = free_port()
        self.process = None

    def url(self, database=0):
        return f"redis://127.0.0.1:{self.port}/{database}"

    def start(self, timeout=15):
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "redis.log", "ab") as log:
            self.process = popen(
                [
                    "redis-server",
                    *("--port", str(self.port), "--bind", "127.0.0.1"),
                    *("--dir", str(self.folder), "--appendonly", "yes", "--save", ""),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        deadline = time.monotonic() + timeout
        while True:
            try:
                client.ping()
                return self
            except redis.ConnectionError as exc:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start on port {self.port}") from exc
                time.sleep(0.05)

    def stop(self):
        stop(self.process)


def _postgres_bin(name):
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if found:
        return found[-1]
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(f"PostgreSQL's {name} is not installed")
    return path


class OwnPostgres:
    """A PostgreSQL server of the test's own: ``initdb`` into a new folder, ``pg_ctl`` to
    start, stop and restart it (as the ``postgres`` user when the tests run as root, which
    PostgreSQL refuses to run as)."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="datahub-faults-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.as_postgres = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            self.as_postgres = ["runuser", "-u", "postgres", "--"]

    @property
    def url(self):
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args):
        done = subprocess.run(
            [*self.as_postgres, *args], capture_output=True, text=True, timeout=120
        )
        if done.returncode:
            raise RuntimeError(f"{args[0]} failed:\n{done.stdout}\n{done.stderr}")

    def start(self):
        if not self.data.exists():
            self._run(
                _postgres_bin("initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "--no-sync",
            )
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c max_connections=200"
        )
        self._run(
            _postgres_bin("pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "start",
        )
        return self

    def stop(self, mode="fast"):
        self._run(_postgres_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def remove(self):
        try:
            self.stop("immediate")
        except RuntimeError:
            pass  # not running
        shutil.rmtree(self.folder, ignore_errors=True)

    def log(self):
        path = self.folder / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""
