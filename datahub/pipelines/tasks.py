"""Pipeline runs dispatched through Celery, on when ``CELERY_BROKER_URL`` is set.

The database stays the truth: a run is a row first. Creating it commits the row
(``queued``), then sends a task that carries only the run's id. A task is one slot: it
claims the fairest queued run (``Worker.run_once``, the claim-loop worker's rule: ``UPDATE
... WHERE id = :id AND status = 'queued'``), which is its own run unless another user's
run has waited longer, so a message delivered twice, or redelivered after its worker
died, finds nothing left to claim and does nothing. A :class:`Sweeper` thread in each
Celery worker process covers what the broker can lose: it re-sends runs queued for longer
than ``PIPELINE_REDISPATCH_SECONDS`` and fails runs whose heartbeat is stale.

For a queued run, ``heartbeat_at`` records when its task was last re-sent (it is set anew
when the run is claimed), so that of all the sweepers on all hosts one re-sends it.
"""

import logging
import os
import socket
import threading
from datetime import timedelta

import click
import sqlalchemy as sa
from celery import Celery, Task, signals

from datahub.app.extensions import db
from datahub.datasets.checks import auditor
from datahub.datasets.profiles import profiler
from datahub.datasets.usage import prune_usage
from datahub.datasets.versions import prune_versions
from datahub.events.retention import prune_events
from datahub.events.webhooks.dispatch import Dispatcher
from datahub.pipelines.models import Run
from datahub.pipelines.worker import Worker, reap_stale, run_pool
from datahub.platform.database import utcnow
from datahub.search import values

log = logging.getLogger("datahub.pipelines.tasks")

TASK_NAME = "datahub.pipelines.execute_run"
QUEUE = "datahub.pipelines"
# A run that waits long (every worker busy) is re-sent at R, 2R, 4R ... seconds, then at
# most every BACKOFF_CAP * R: duplicates are harmless, but they should not pile up.
BACKOFF_CAP = 10
READY_LINE = "worker {hostname}: ready (celery, concurrency {concurrency})"

_pools = {}  # os.getpid() → the pool of this Celery worker process's runs (a warm spare)

# Set when the Celery worker of this process is asked to stop: a run in progress fails as
# shut down at its next check, as in the claim-loop worker.
_shutdown = threading.Event()


def celery_init_app(app):
    """Build the Celery app of this Flask app (Flask's documented pattern: every task runs
    in an app context) and keep it in ``app.extensions["celery"]``. Not made the default
    Celery app: each Flask app (tests build many) owns its own."""

    class FlaskTask(Task):
        def __call__(self, *args, **kwargs):
            with app.app_context():
                return self.run(*args, **kwargs)

    config = app.config
    celery_app = Celery(app.import_name, task_cls=FlaskTask, set_as_current=False)
    celery_app.conf.update(
        broker_url=config["CELERY_BROKER_URL"],
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            # A message not acked this long is delivered again; the claim makes that safe.
            "visibility_timeout": int(config["CELERY_VISIBILITY_TIMEOUT"]),
            # A request that sends a task never waits long on a dead broker.
            "socket_connect_timeout": 3,
            "socket_timeout": 10,
        },
        task_publish_retry_policy={
            "max_retries": 2,
            "interval_start": 0,
            "interval_step": 0.5,
            "interval_max": 0.5,
        },
        task_default_queue=QUEUE,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        task_acks_late=True,  # a worker that dies mid-run leaves its message for another
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a busy worker holds no message another could run
        worker_concurrency=int(config["CELERY_CONCURRENCY"]),
        worker_redirect_stdouts=False,
    )

    @celery_app.task(name=TASK_NAME)
    def execute_run(run_id):  # a slot: the fairest queued run is taken
        if _shutdown.is_set():
            return  # a task taken during shutdown: the run stays queued, a sweep re-sends it
        pool = _pools.get(os.getpid()) or _pools.setdefault(os.getpid(), run_pool(app.config))
        if Worker(app, shutdown=_shutdown, pool=pool, index_values=False).run_once() is None:
            log.info(
                "run %s is not queued (taken, cancelled, finished or deleted) and no "
                "other run waits: nothing to do",
                run_id,
            )

    app.extensions["celery"] = celery_app
    # The broker's workers execute runs: no web process runs them as well.
    config["PIPELINE_EMBEDDED_WORKER"] = False
    return celery_app


def dispatch(app, run_id):
    """Send the task of a committed, queued run. If the broker cannot take it, the run
    stays queued and a sweeper re-sends it: log it and go on."""
    try:
        app.extensions["celery"].send_task(TASK_NAME, args=[run_id])
    except Exception as exc:  # noqa: BLE001  any failure: the row is committed either way
        log.warning(
            "run %s: could not send it to the broker (%s: %s); it stays queued and "
            "is sent again after PIPELINE_REDISPATCH_SECONDS",
            run_id,
            type(exc).__name__,
            str(exc).splitlines()[0] if str(exc) else "",
        )


def redispatch(app):
    """Re-send the runs queued for longer than ``PIPELINE_REDISPATCH_SECONDS`` since
    their last send; how many were sent."""
    seconds = float(app.config["PIPELINE_REDISPATCH_SECONDS"])
    now = utcnow()
    last_sent = sa.func.coalesce(Run.heartbeat_at, Run.created_at)
    rows = db.session.execute(
        sa.select(Run.id, Run.created_at, last_sent)
        .where(Run.status == "queued", last_sent < now - timedelta(seconds=seconds))
        .order_by(last_sent, Run.id)
        .limit(1000)  # the longest unsent first
    ).all()
    db.session.commit()
    sent = 0
    for run_id, created_at, last in rows:
        wait = min(max(seconds, (last - created_at).total_seconds()), seconds * BACKOFF_CAP)
        if now - last < timedelta(seconds=wait):
            continue
        # Compare and set: one sweeper of all those on all hosts re-sends the run.
        won = db.session.execute(
            sa.update(Run)
            .where(Run.id == run_id, Run.status == "queued", last_sent <= last)
            .values(heartbeat_at=now)
            .execution_options(synchronize_session=False)
        ).rowcount
        db.session.commit()
        if not won:
            continue
        try:
            app.extensions["celery"].send_task(TASK_NAME, args=[run_id])
        except Exception as exc:  # noqa: BLE001  the broker is down: the next sweep retries
            log.warning(
                "run %s: could not re-send it (%s: %s)",
                run_id,
                type(exc).__name__,
                str(exc).splitlines()[0] if str(exc) else "",
            )
            db.session.execute(  # not sent: due again at the next sweep, not after a backoff
                sa.update(Run)
                .where(Run.id == run_id, Run.heartbeat_at == now)
                .values(heartbeat_at=last)
                .execution_options(synchronize_session=False)
            )
            db.session.commit()
            break
        sent += 1
    if sent:
        log.warning("re-sent %d queued run(s) whose task had not run after %g s", sent, seconds)
    return sent


class Sweeper:
    """A thread of the Celery worker process: from its start, then every ``min(
    PIPELINE_REDISPATCH_SECONDS, PIPELINE_STALE_AFTER_SECONDS / 2)``, fails stale runs
    and re-sends runs whose task was lost. The database or broker being down is logged
    and waited out."""

    def __init__(self, app):
        self.app = app
        self.stop = threading.Event()
        config = app.config
        self.every = max(
            0.1,
            min(
                float(config["PIPELINE_REDISPATCH_SECONDS"]),
                float(config["PIPELINE_STALE_AFTER_SECONDS"]) / 2,
            ),
        )
        self.thread = threading.Thread(target=self._loop, daemon=True, name="run-sweeper")

    def start(self):
        self.thread.start()

    def _loop(self):
        while True:
            with self.app.app_context():
                try:
                    reap_stale(self.app)
                    redispatch(self.app)
                    prune_versions(self.app.config["VERSIONS_KEEP"])
                    prune_events(self.app.config["EVENTS_RETENTION_DAYS"])
                    prune_usage()
                except Exception as exc:  # noqa: BLE001  the next sweep tries again
                    log.warning(
                        "sweep failed, retrying in %g s: %s: %s",
                        self.every,
                        type(exc).__name__,
                        str(exc).splitlines()[0] if str(exc) else "",
                    )
                finally:
                    db.session.rollback()
                    db.session.remove()
            if self.stop.wait(self.every):
                return


def run_celery_worker(app, concurrency=None, loglevel="INFO", also=()):
    """Run a Celery worker in this process until it is stopped; its exit code. Runs are
    threads of this process (the ``threads`` pool), like the claim-loop worker's; webhooks
    are delivered and each of ``also`` called by a dispatcher thread."""
    celery_app = app.extensions["celery"]
    concurrency = int(concurrency or app.config["CELERY_CONCURRENCY"])
    hostname = f"datahub-{os.getpid()}@{socket.gethostname()}"
    sweeper = Sweeper(app)

    def ready(**_kwargs):
        click.echo(READY_LINE.format(hostname=hostname, concurrency=concurrency), err=True)

    def shutting_down(**_kwargs):
        _shutdown.set()

    signals.worker_ready.connect(ready, weak=False, dispatch_uid="datahub-ready")
    signals.worker_shutting_down.connect(shutting_down, weak=False, dispatch_uid="datahub-shutdown")
    worker = celery_app.Worker(
        hostname=hostname,
        pool_cls="threads",
        concurrency=concurrency,
        loglevel=loglevel,
        queues=[QUEUE],
        without_gossip=True,
        without_mingle=True,
        without_heartbeat=True,
        quiet=True,
    )
    sweeper.start()  # at once: failing stale runs needs no broker
    # The search index's values of datasets' new versions (datahub.search.values).
    values.in_background(app, sweeper.stop).start()
    # Schemas and profiles of new versions (datahub.datasets.profiles.profiler).
    profiler.in_background(app, sweeper.stop).start()
    # The checks of versions made pending (datahub.datasets.checks.auditor).
    auditor.in_background(app, sweeper.stop).start()
    # Webhooks, and ``also``: the triggers (docs/guides/events.rst).
    dispatcher = Dispatcher(app, sweeper.stop, also).start()
    worker.start()
    sweeper.stop.set()
    dispatcher.thread.join(10)
    return worker.exitcode
