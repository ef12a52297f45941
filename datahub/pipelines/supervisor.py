"""The worker process that gunicorn's master starts and keeps alive on the embedded
default (``PIPELINE_EMBEDDED_WORKER``, no broker): ``flask --app datahub worker``, started
again within seconds if it dies (``kill -9`` included), stopped with the master."""

import logging
import os
import subprocess
import sys
import threading
import time

from datahub.pipelines.commands import PARENT_ENV

log = logging.getLogger("datahub.pipelines.supervisor")

FIRST_DELAY = 0.5  # seconds before a worker that died is started again,
MAX_DELAY = 30.0  # doubling while it keeps dying within STABLE_SECONDS of its start
STABLE_SECONDS = 10.0


class WorkerSupervisor:
    def __init__(self, command=None):
        self.command = command or [sys.executable, "-m", "flask", "--app", "datahub", "worker"]
        self.process = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(
            target=self._supervise, daemon=True, name="datahub-worker-supervisor"
        )

    def start(self):
        self._spawn()
        self._thread.start()
        return self

    def _spawn(self):
        env = dict(os.environ)
        env[PARENT_ENV] = str(os.getpid())
        self.process = subprocess.Popen(self.command, env=env)
        log.info("pipeline worker process %s started", self.process.pid)

    def _supervise(self):
        delay = FIRST_DELAY
        while not self._stopping.is_set():
            started = time.monotonic()
            # gunicorn's master reaps every child it is told of (SIGCHLD), ours included:
            # poll() then says 0 instead of the status; either way the process is gone.
            while self.process.poll() is None:
                if self._stopping.wait(0.2):
                    return
            if self._stopping.is_set():
                return
            log.warning(
                "pipeline worker process %s exited (status %s); starting another",
                self.process.pid,
                self.process.returncode,
            )
            delay = (
                FIRST_DELAY
                if time.monotonic() - started > STABLE_SECONDS
                else min(delay * 2, MAX_DELAY)
            )
            if self._stopping.wait(delay):
                return
            try:
                self._spawn()
            except OSError:
                log.exception("could not start the pipeline worker process")

    def stop(self, timeout=30):
        """SIGTERM (a run in progress fails as shut down), then SIGKILL after ``timeout``."""
        self._stopping.set()
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        except ChildProcessError:
            pass
