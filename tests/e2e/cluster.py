"""The service as a cluster, all real processes on loopback: two gunicorn hosts, each with
its own instance folder, behind one nginx (round robin, no stickiness), sharing a
PostgreSQL database, Redis (rate limits, auth-cache invalidation, the Celery broker), an
S3-compatible server (moto) for files, and one Celery worker executing the runs.

Used by tests/e2e/test_cluster.py; deploy/compose.yaml is the same topology in containers.
"""

import os
import re
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from tests import workers
from tests.e2e.conftest import ROOT, wait_until_ready
from tests.e2e.nginx_site import Nginx
from tests.processes import popen, stop_group
from tests.workers import free_port

DATABASE = "datahub_cluster"  # with the test worker's name under xdist (tests.workers)
BUCKET = "datahub-cluster"
ADMIN_EMAIL = "admin@example.com"
ADMIN_PASSWORD = "cluster admin password"
SECRET = "cluster-secret-" + "y" * 40


def server_database_url():
    """PostgreSQL's address (DATAHUB_TEST_DATABASE_URL's server when set, else the local
    one), with the cluster's own database, created empty."""
    url = workers.fresh_database(workers.postgres_server(), workers.database_name(DATABASE))
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


class Host:
    """One gunicorn host: its own process group, port and instance folder."""

    def __init__(self, name, folder, env):
        self.name, self.folder = name, Path(folder)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.folder / "gunicorn.log"
        self.env = {
            **env,
            "DATAHUB_BIND": f"127.0.0.1:{self.port}",
            "DATAHUB_INSTANCE_PATH": str(self.folder / "instance"),
        }
        self.process = None

    def start(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:
            self.process = popen(
                [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def wait_ready(self):
        wait_until_ready(
            self.url + "/readyz", self.process, self.log, f"host {self.name}", timeout=60
        )

    def kill(self):
        """The host dies at once: SIGKILL to gunicorn's master and every worker."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self):
        stop_group(self.process, timeout=20)

    def log(self):
        return self.log_path.read_text(errors="replace")


class CeleryWorker:
    """``flask --app datahub worker`` with a broker: a Celery worker for the runs."""

    def __init__(self, folder, env):
        self.folder = Path(folder)
        self.log_path = self.folder / "worker.log"
        self.env = {**env, "DATAHUB_INSTANCE_PATH": str(self.folder / "instance")}
        self.process = None

    def start(self, timeout=60):
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:
            self.process = popen(
                [sys.executable, "-m", "flask", "--app", "datahub", "worker"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while not re.search(r"worker \S+: ready \(celery", self.log()):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the Celery worker did not start:\n" + self.log())
            time.sleep(0.2)
        return self

    def stop(self):
        stop_group(self.process, timeout=30)

    def log(self):
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


class Cluster:
    """``database_url``, ``redis_url`` (the broker and the auth cache's channel) and
    ``rate_limit_url``: a test's own servers instead of the machine's shared ones (the
    fault tests stop them); ``env``: settings of every host and the worker."""

    def __init__(
        self,
        folder,
        s3_endpoint,
        *,
        database_url=None,
        redis_url=None,
        rate_limit_url=None,
        env=None,
    ):
        self.folder = Path(folder)
        self.database_url = database_url or server_database_url()
        # The broker (the channel has its own name), and the counts, which a test may empty.
        self.redis_url = redis_url or workers.redis_url(0)
        self.rate_limit_url = rate_limit_url or workers.redis_url(1)
        redis.Redis.from_url(self.redis_url).flushdb()  # fails loudly when Redis is down
        self.forget_rate_limits()
        self.s3_endpoint = s3_endpoint
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DATAHUB_", "AWS_"))},
            "DATAHUB_SQLALCHEMY_DATABASE_URI": self.database_url,
            # Every host must sign and check tokens with the same keys.
            "DATAHUB_SECRET_KEY": SECRET,
            "DATAHUB_JWT_SECRET_KEY": SECRET,
            "DATAHUB_BCRYPT_ROUNDS": "4",
            "DATAHUB_WORKERS": "2",
            "DATAHUB_ADMIN_EMAIL": ADMIN_EMAIL,
            "DATAHUB_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "DATAHUB_STORAGE_URL": f"s3://{BUCKET}/files",
            "DATAHUB_S3_ENDPOINT_URL": s3_endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "DATAHUB_RATELIMIT_STORAGE_URI": self.rate_limit_url,
            # The tests log in often, all from 127.0.0.1; the per-email limit stays.
            "DATAHUB_RATE_LIMIT_LOGIN_PER_ADDRESS": "1000/minute",
            "DATAHUB_AUTH_CACHE_REDIS_URL": self.redis_url,
            "DATAHUB_AUTH_CACHE_CHANNEL": workers.channel("datahub-test-cluster"),
            "DATAHUB_CELERY_BROKER_URL": self.redis_url,
            "DATAHUB_PIPELINE_STALE_AFTER_SECONDS": "10",
            **(env or {}),
        }
        self.hosts = [Host(name, self.folder / f"host-{name}", self.env) for name in "ab"]
        self.worker = CeleryWorker(self.folder / "worker", self.env)
        self.nginx = None

    def start(self):
        try:
            # Both hosts at once: they take turns migrating (an advisory lock).
            for host in self.hosts:
                host.start()
            for host in self.hosts:
                host.wait_ready()
            self.worker.start()
            self.nginx = Nginx(
                self.folder / "nginx",
                [h.url.removeprefix("http://") for h in self.hosts],
                max_body=200 * 1024 * 1024,
            ).start()
        except BaseException:
            self.stop()
            raise
        return self

    def forget_rate_limits(self):
        """Empty the shared rate-limit counts (the tests log the admin in more often than
        RATE_LIMIT_LOGIN_PER_EMAIL allows real users)."""
        redis.Redis.from_url(self.rate_limit_url).flushdb()

    def worker_pid(self):
        """The Celery worker's process: its runs are threads of it (``worker`` column
        ``host:pid:thread``)."""
        return self.worker.process.pid

    @property
    def ca_file(self):
        return str(self.nginx.folder / "cert.pem")

    def stop(self):
        if self.nginx is not None:
            self.nginx.stop()
        self.worker.stop()
        for host in self.hosts:
            host.stop()

    def logs(self):
        return (
            "\n".join(f"--- host {h.name}\n{h.log()[-4000:]}" for h in self.hosts)
            + f"\n--- worker\n{self.worker.log()[-4000:]}"
        )


@contextmanager
def running(cluster):
    """``cluster`` started (the test fails, saying why, when it cannot start), then
    stopped."""
    try:
        cluster.start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        yield cluster
    finally:
        cluster.stop()
