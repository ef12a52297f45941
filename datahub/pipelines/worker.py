"""The worker: claims queued runs, executes them off the request path, heartbeats them,
and fails runs whose worker died.

Claiming is safe with any number of workers on any number of hosts: PostgreSQL claims with
``SELECT ... FOR UPDATE SKIP LOCKED``; SQLite with one atomic ``UPDATE ... WHERE id =
(oldest queued) AND status = 'queued'``. A Celery task (datahub.pipelines.tasks) claims the
one run it names with ``UPDATE ... WHERE id = :id AND status = 'queued'`` and then
executes it the same way (``Worker.run_by_id``). A running run's row carries ``worker`` and
``heartbeat_at``; a run whose heartbeat is older than ``PIPELINE_STALE_AFTER_SECONDS``
is marked ``failed``. ``cancel`` changes the status; the heartbeat notices and stops.
"""
import logging
import os
import socket
import threading
import time
from datetime import timedelta

import sqlalchemy as sa

from datahub.database import utcnow
from datahub.extensions import db
from datahub.pipelines.execute import RunStopped, execute_run
from datahub.pipelines.models import Run

log = logging.getLogger("datahub.pipelines.worker")

STALE_ERROR = "the worker running this run stopped responding (no heartbeat for {seconds} s)"
SHUTDOWN_ERROR = "the worker shut down before the run finished"


# Set when a request of this process queues a run: its embedded worker looks at once
# instead of at its next poll (runs queued on other hosts wait for the poll).
_queued = threading.Event()


def notify_queued():
    _queued.set()


def worker_name():
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"[:255]


def reap_stale(app):
    """Fail every running run whose heartbeat is stale; returns how many."""
    seconds = float(app.config["PIPELINE_STALE_AFTER_SECONDS"])
    now = utcnow()
    result = db.session.execute(
        sa.update(Run)
        .where(Run.status == "running", Run.heartbeat_at < now - timedelta(seconds=seconds))
        .values(status="failed", finished_at=now, error=STALE_ERROR.format(seconds=f"{seconds:g}"))
        .execution_options(synchronize_session=False)
    )
    db.session.commit()
    if result.rowcount:
        log.warning("marked %d run(s) with a stale heartbeat as failed", result.rowcount)
    return result.rowcount


def _claimed(name):
    now = utcnow()
    return {"status": "running", "worker": name, "started_at": now, "heartbeat_at": now}


def claim(name):
    """Take the oldest queued run for worker ``name``; its id, or None."""
    oldest = sa.select(Run.id).where(Run.status == "queued").order_by(Run.id).limit(1)
    if db.session.get_bind().dialect.name == "postgresql":
        run_id = db.session.scalar(oldest.with_for_update(skip_locked=True))
        if run_id is not None and not claim_run(run_id, name):
            run_id = None  # cannot happen under the row lock; never hold a run twice
    else:
        run_id = db.session.scalar(
            sa.update(Run)
            .where(Run.id == oldest.scalar_subquery(), Run.status == "queued")
            .values(**_claimed(name))
            .returning(Run.id)
            .execution_options(synchronize_session=False)
        )
    db.session.commit()
    return run_id


def claim_run(run_id, name):
    """Take run ``run_id`` for worker ``name`` if it is still queued (one atomic UPDATE);
    False when it is not: running elsewhere, cancelled, finished or deleted."""
    result = db.session.execute(
        sa.update(Run)
        .where(Run.id == run_id, Run.status == "queued")
        .values(**_claimed(name))
        .execution_options(synchronize_session=False)
    )
    db.session.commit()
    return bool(result.rowcount)


class Heartbeat:
    """Beats every ``interval`` seconds in a thread; ``check()`` raises
    :class:`RunStopped` once the run is no longer ours (cancelled, reaped, deleted) or
    the worker is shutting down."""

    def __init__(self, engine, run_id, name, interval, shutdown):
        self.engine, self.run_id, self.name = engine, run_id, name
        self.interval, self.shutdown = interval, shutdown
        self.lost = threading.Event()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._beat, daemon=True,
                                       name=f"heartbeat-run-{run_id}")

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()

    def _beat(self):
        while not self.done.wait(self.interval):
            try:
                with self.engine.begin() as conn:
                    result = conn.execute(
                        sa.update(Run)
                        .where(Run.id == self.run_id, Run.status == "running",
                               Run.worker == self.name)
                        .values(heartbeat_at=utcnow())
                    )
                if result.rowcount == 0:
                    self.lost.set()
                    return
            except sa.exc.SQLAlchemyError as exc:
                log.warning("heartbeat of run %s failed, retrying: %s", self.run_id,
                            str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    def check(self):
        if self.lost.is_set():
            raise RunStopped(None)
        if self.shutdown.is_set():
            raise RunStopped(SHUTDOWN_ERROR)


class Worker:
    def __init__(self, app, name=None, shutdown=None):
        self.app = app
        self.name = name or worker_name()
        self.shutdown = shutdown or threading.Event()
        self._last_reap = 0.0

    def run_once(self):
        """Reap stale runs, claim one queued run and execute it; its id, or None."""
        with self.app.app_context():
            try:
                self._maybe_reap()
                run_id = claim(self.name)
                if run_id is None:
                    return None
                self._execute(run_id)
                return run_id
            finally:
                db.session.remove()

    def run_by_id(self, run_id):
        """Claim run ``run_id`` and execute it (a Celery task's work); False, doing
        nothing, if it is not queued."""
        with self.app.app_context():
            try:
                if not claim_run(run_id, self.name):
                    log.info("run %s is not queued (taken, cancelled, finished or deleted): "
                             "nothing to do", run_id)
                    return False
                self._execute(run_id)
                return True
            finally:
                db.session.remove()

    def _execute(self, run_id):
        log.info("worker %s claimed run %s", self.name, run_id)
        heartbeat = Heartbeat(db.engine, run_id, self.name,
                              float(self.app.config["PIPELINE_HEARTBEAT_SECONDS"]),
                              self.shutdown)
        with heartbeat:
            execute_run(self.app, run_id, self.name, heartbeat.check)
        log.info("worker %s is done with run %s", self.name, run_id)

    def _maybe_reap(self):
        every = float(self.app.config["PIPELINE_STALE_AFTER_SECONDS"]) / 2
        if time.monotonic() - self._last_reap >= every:
            reap_stale(self.app)
            self._last_reap = time.monotonic()

    def run_forever(self):
        """Work until ``shutdown`` is set; database trouble is logged and waited out."""
        poll = float(self.app.config["PIPELINE_POLL_SECONDS"])
        log.info("pipeline worker %s started", self.name)
        while not self.shutdown.is_set():
            try:
                worked = self.run_once()
            except (sa.exc.OperationalError, sa.exc.InterfaceError) as exc:
                # The database is down or unreachable: one line, then wait and retry.
                log.warning("pipeline worker %s: database unavailable: %s", self.name,
                            str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
                worked = None
            except Exception:
                log.exception("pipeline worker %s: error between runs", self.name)
                worked = None
            if worked is None:
                _queued.wait(poll)
                _queued.clear()
        log.info("pipeline worker %s stopped", self.name)


def run_once(app):
    """Execute at most one queued run in this thread (tests, scripts)."""
    return Worker(app).run_once()


_embedded_lock = threading.Lock()


def ensure_embedded_worker(app):
    """Start this process's embedded worker thread once (after a fork: again, in the
    child). Called before each request when ``PIPELINE_EMBEDDED_WORKER`` is true."""
    state = app.extensions.get("datahub.pipeline_worker")
    if state is not None and state[0] == os.getpid():
        return
    with _embedded_lock:
        state = app.extensions.get("datahub.pipeline_worker")
        if state is not None and state[0] == os.getpid():
            return
        worker = Worker(app)
        thread = threading.Thread(target=worker.run_forever, daemon=True,
                                  name="datahub-pipeline-worker")
        app.extensions["datahub.pipeline_worker"] = (os.getpid(), worker, thread)
        thread.start()


def stop_embedded_worker(app, timeout=10):
    """Ask the embedded worker to stop (a run in progress fails as shut down) and wait."""
    state = app.extensions.get("datahub.pipeline_worker")
    if state is None or state[0] != os.getpid():
        return
    _, worker, thread = state
    worker.shutdown.set()
    _queued.set()  # out of its wait at once
    thread.join(timeout)
