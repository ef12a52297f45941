"""The worker: claims queued runs fairly, executes them off the request path (each run's
query in a process of its own, datahub.platform.isolation), heartbeats them, and fails runs whose
worker died.

Fair: the next run is the oldest queued run of the owner with the fewest runs running,
ties going to the owner whose last run started longest ago, so one user's queue delays
another user's run by at most one run's slot. Claiming is safe with any number of
workers on any number of hosts: a run is taken with one atomic ``UPDATE ... WHERE id = :id
AND status = 'queued'``, and a worker that loses the race tries the next candidate. A
Celery task (datahub.pipelines.tasks) claims the same way. A running run's row carries
``worker`` and ``heartbeat_at``; a run whose heartbeat is older than
``PIPELINE_STALE_AFTER_SECONDS`` is marked ``failed``. ``cancel`` changes the status; the
heartbeat notices and the run's process is killed.

Runs never execute in a process that answers HTTP: ``flask --app datahub worker`` is the
worker process (under gunicorn, its master starts and supervises one: gunicorn.conf.py).
"""

import logging
import os
import socket
import threading
import time
from datetime import datetime, timedelta

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.checks import auditor
from datahub.datasets.profiles import profiler
from datahub.datasets.usage import prune_usage
from datahub.datasets.versions import prune_versions
from datahub.events.retention import prune_events
from datahub.pipelines.event_data import record_run_by_id
from datahub.pipelines.execute import RunStopped, execute_run
from datahub.pipelines.lineage import openlineage as lineage_events
from datahub.pipelines.models import Pipeline, Run
from datahub.pipelines.timings import Timings
from datahub.platform import isolation, metrics, wakeups
from datahub.platform.database import utcnow
from datahub.search import values

log = logging.getLogger("datahub.pipelines.worker")

STALE_ERROR = "the worker running this run stopped responding (no heartbeat for {seconds} s)"
SHUTDOWN_ERROR = "the worker shut down before the run finished"
CLAIM_TRIES = 5
FINISHED_STATUSES = frozenset({"succeeded", "failed", "cancelled"})


def worker_name():
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"[:255]


def reap_stale(app):
    """Fail every running run whose heartbeat is stale; returns how many."""
    seconds = float(app.config["PIPELINE_STALE_AFTER_SECONDS"])
    now = utcnow()
    failed = db.session.scalars(
        sa.update(Run)
        .where(Run.status == "running", Run.heartbeat_at < now - timedelta(seconds=seconds))
        .values(status="failed", finished_at=now, error=STALE_ERROR.format(seconds=f"{seconds:g}"))
        .returning(Run.id)
        .execution_options(synchronize_session=False)
    ).all()
    for run_id in failed:
        record_run_by_id("datahub.run.failed", run_id)
    db.session.commit()
    if failed:
        log.warning("marked %d run(s) with a stale heartbeat as failed", len(failed))
    return len(failed)


def _claimed(name):
    now = utcnow()
    return {"status": "running", "worker": name, "started_at": now, "heartbeat_at": now}


def fair_candidates():
    """Queued run ids in the order a fair worker takes them: per owner its oldest queued
    run, owners with fewer runs running first, then the one whose last run started
    longest ago, then the oldest run."""
    owner = Pipeline.owner_id
    from_runs = sa.select(owner).select_from(Run).join(Pipeline, Pipeline.id == Run.pipeline_id)
    first = dict(
        db.session.execute(
            from_runs.add_columns(sa.func.min(Run.id)).where(Run.status == "queued").group_by(owner)
        ).all()
    )
    if not first:
        return []
    owners = list(first)
    running = dict(
        db.session.execute(
            from_runs.add_columns(sa.func.count())
            .where(Run.status == "running", owner.in_(owners))
            .group_by(owner)
        ).all()
    )
    last = dict(
        db.session.execute(
            from_runs.add_columns(sa.func.max(Run.started_at))
            .where(owner.in_(owners), Run.started_at.is_not(None))
            .group_by(owner)
        ).all()
    )
    never = datetime.min
    owners.sort(key=lambda o: (running.get(o, 0), _naive(last.get(o)) or never, first[o]))
    return [first[o] for o in owners]


def _naive(moment):
    return moment.replace(tzinfo=None) if moment is not None else None


def claim(name):
    """Take the fairest queued run for worker ``name``; its id, or None."""
    for _ in range(CLAIM_TRIES):
        candidates = fair_candidates()
        db.session.commit()
        if not candidates:
            return None
        for run_id in candidates:
            if claim_run(run_id, name):
                return run_id
    return None


def claim_run(run_id, name):
    """Take run ``run_id`` for worker ``name`` if it is still queued (one atomic UPDATE);
    False when it is not: running elsewhere, cancelled, finished or deleted."""
    result = db.session.execute(
        sa.update(Run)
        .where(Run.id == run_id, Run.status == "queued")
        .values(**_claimed(name))
        .execution_options(synchronize_session=False)
    )
    if result.rowcount:
        record_run_by_id("datahub.run.started", run_id)
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
        self.thread = threading.Thread(
            target=self._beat, daemon=True, name=f"heartbeat-run-{run_id}"
        )

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
                        .where(
                            Run.id == self.run_id, Run.status == "running", Run.worker == self.name
                        )
                        .values(heartbeat_at=utcnow())
                    )
                if result.rowcount == 0:
                    self.lost.set()
                    return
            except sa.exc.SQLAlchemyError as exc:
                log.warning(
                    "heartbeat of run %s failed, retrying: %s",
                    self.run_id,
                    str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                )

    def check(self):
        if self.lost.is_set():
            raise RunStopped(None)
        if self.shutdown.is_set():
            raise RunStopped(SHUTDOWN_ERROR)


def run_pool(config):
    """The pool a worker process takes its runs' job processes from: a spare started ahead,
    already in its memory cgroup and its DuckDB database made (datahub.platform.isolation)."""
    cap = isolation.parse_size(config["PIPELINE_MEMORY_LIMIT"]) + isolation.parse_size(
        config["PIPELINE_MEMORY_MARGIN"]
    )
    return isolation.ProcessPool(spares=1, cap=cap, warm=True)


class Worker:
    """Claims and executes runs in ``concurrency`` threads of this process (``run_forever``)
    or one at a time (``run_once``); each run's query in a process from ``pool``."""

    def __init__(self, app, name=None, shutdown=None, pool=None, index_values=True):
        self.app = app
        self.name = name or worker_name()
        self.shutdown = shutdown or threading.Event()
        self.pool = pool or isolation.ProcessPool(spares=0)
        self.index_values = index_values  # False: a thread of its own does (Celery)
        self._last_reap = self._last_prune = 0.0
        # The first round of values one interval after the start, not before a first run.
        self._last_values = time.monotonic()
        self._reap_lock = threading.Lock()
        self._values_lock = threading.Lock()
        self._last_profiles = 0.0
        self._profiles_lock = threading.Lock()
        self._audits_lock = threading.Lock()

    def run_once(self, name=None):
        """Reap stale runs, claim the fairest queued run and execute it; its id, or None."""
        name = name or self.name
        with self.app.app_context():
            try:
                self._maybe_reap()
                self._maybe_prune()
                self._maybe_audit()  # first: a version waits for it to be published
                self._maybe_index_values()
                self._maybe_profile()
                timings = Timings()
                with timings.phase("claim"):
                    run_id = claim(name)
                if run_id is None:
                    return None
                self._execute(run_id, name, timings)
                return run_id
            finally:
                db.session.remove()

    def _execute(self, run_id, name, timings):
        log.info("worker %s claimed run %s", name, run_id)
        heartbeat = Heartbeat(
            db.engine,
            run_id,
            name,
            float(self.app.config["PIPELINE_HEARTBEAT_SECONDS"]),
            self.shutdown,
        )
        began = time.monotonic()
        with heartbeat:
            execute_run(self.app, run_id, name, heartbeat.check, self.pool, timings)
        run = db.session.get(Run, run_id, populate_existing=True)
        status = run and run.status
        if run is not None and lineage_events.emitter(self.app).client is not None:
            lineage_events.run_ended(run)
        db.session.commit()
        if status in FINISHED_STATUSES:
            metrics.observe_run(status, time.monotonic() - began)
        log.info("worker %s is done with run %s (%s)", name, run_id, status or "deleted")

    def _maybe_reap(self):
        every = float(self.app.config["PIPELINE_STALE_AFTER_SECONDS"]) / 2
        with self._reap_lock:
            if time.monotonic() - self._last_reap < every:
                return
            self._last_reap = time.monotonic()
        reap_stale(self.app)

    def _maybe_prune(self):
        """Retention of dataset versions (``VERSIONS_KEEP``), events
        (``EVENTS_RETENTION_DAYS``) and usage statistics' days, every
        ``VERSIONS_PRUNE_SECONDS``."""
        every = float(self.app.config["VERSIONS_PRUNE_SECONDS"])
        with self._reap_lock:
            if time.monotonic() - self._last_prune < every:
                return
            self._last_prune = time.monotonic()
        prune_versions(self.app.config["VERSIONS_KEEP"])
        prune_events(self.app.config["EVENTS_RETENTION_DAYS"])
        prune_usage()

    def _maybe_index_values(self):
        """The search index's values of datasets' new versions (datahub.search.values),
        every ``SEARCH_VALUES_SECONDS``, by one slot at a time: the others go on claiming."""
        if not self.index_values or not self._values_lock.acquire(blocking=False):
            return
        try:
            if time.monotonic() - self._last_values < float(
                self.app.config["SEARCH_VALUES_SECONDS"]
            ):
                return
            values.index_pending_quietly(self.app, pool=self.pool, shutdown=self.shutdown)
            self._last_values = time.monotonic()  # the wait counts from the end of a round
        finally:
            self._values_lock.release()

    def _maybe_profile(self):
        """Schemas and profiles of new versions (datahub.datasets.profiles.profiler), every
        ``PROFILE_SECONDS``, by one slot at a time: the others go on claiming."""
        if not self.index_values or not self._profiles_lock.acquire(blocking=False):
            return
        try:
            if time.monotonic() - self._last_profiles < float(self.app.config["PROFILE_SECONDS"]):
                return
            profiler.profile_pending_quietly(self.app, pool=self.pool, shutdown=self.shutdown)
            self._last_profiles = time.monotonic()
        finally:
            self._profiles_lock.release()

    def _maybe_audit(self):
        """The checks of pending versions (datahub.datasets.checks.auditor), every round
        (woken at once when a version is made pending on this host), by one slot at a
        time: the others go on claiming."""
        if not self.index_values or not self._audits_lock.acquire(blocking=False):
            return
        try:
            auditor.audit_pending_quietly(self.app, pool=self.pool, shutdown=self.shutdown)
        finally:
            self._audits_lock.release()

    def run_forever(self, concurrency=1):
        """Work in ``concurrency`` threads until ``shutdown`` is set."""
        threads = [
            threading.Thread(target=self._loop, name=f"datahub-run-slot-{slot}", daemon=True)
            for slot in range(max(1, concurrency))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _loop(self):
        """One slot: database trouble is logged and waited out."""
        poll = float(self.app.config["PIPELINE_POLL_SECONDS"])
        name = worker_name()
        log.info("pipeline worker %s started", name)
        with wakeups.Listener(self.app.instance_path) as wake:
            while not self.shutdown.is_set():
                try:
                    worked = self.run_once(name)
                except (sa.exc.OperationalError, sa.exc.InterfaceError) as exc:
                    # The database is down or unreachable: one line, then wait and retry.
                    log.warning(
                        "pipeline worker %s: database unavailable: %s",
                        name,
                        str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                    )
                    worked = None
                except Exception:
                    log.exception("pipeline worker %s: error between runs", name)
                    worked = None
                if worked is None and not self.shutdown.is_set():
                    wake.wait(poll)
        log.info("pipeline worker %s stopped", name)


def run_once(app):
    """Execute at most one queued run in this thread (tests, scripts)."""
    return Worker(app).run_once()
