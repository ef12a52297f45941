"""``flask --app datahub worker``: execute pipeline runs in their own process."""

import logging
import os
import signal
import sys
import threading
import time

import click
from flask import current_app
from flask.cli import with_appcontext

from datahub.events.webhooks.dispatch import Dispatcher
from datahub.pipelines import triggers
from datahub.pipelines.worker import Worker, reap_stale, run_pool
from datahub.platform import wakeups

# Set by the process that supervises this worker (gunicorn's master, gunicorn.conf.py):
# the worker stops once that process is gone, even if it was killed with SIGKILL.
PARENT_ENV = "DATAHUB_WORKER_PARENT_PID"

log = logging.getLogger("datahub.pipelines.worker")


@click.command("worker")
@click.option(
    "--once",
    is_flag=True,
    help="Execute the queued runs there are now (claimed "
    "from the database, also with a broker), then exit.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="Runs at once in this process (default PIPELINE_CONCURRENCY; with a "
    "broker CELERY_CONCURRENCY).",
)
@click.option(
    "--loglevel",
    default="INFO",
    show_default=True,
    type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
    help="With a broker: the Celery worker's log level.",
)
@with_appcontext
def worker_command(once, concurrency, loglevel):
    """Run pipeline runs. Start any number, on any number of hosts: each run is executed by
    exactly one. With CELERY_BROKER_URL set this is a Celery worker; without, it claims
    queued runs from the database. SIGTERM or Ctrl-C stops it; a run in progress then fails
    as shut down."""
    app = current_app._get_current_object()
    if app.extensions.get("celery") is not None and not once:
        from datahub.pipelines.tasks import run_celery_worker

        sys.exit(run_celery_worker(app, concurrency, loglevel.upper(), also=[triggers.sweep]))
    if not logging.getLogger().handlers:  # a log line per claimed, stopped or failed run
        logging.basicConfig(
            level=logging.INFO,
            stream=sys.stderr,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
    shutdown = threading.Event()

    def stop(signum, _frame):
        log.info("worker: signal %s, stopping", signum)
        shutdown.set()
        wakeups.notify(app.instance_path)  # out of its idle wait at once

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if os.environ.get(PARENT_ENV):
        threading.Thread(
            target=_stop_with_parent, args=(int(os.environ[PARENT_ENV]), stop), daemon=True
        ).start()
    pool = run_pool(app.config)
    worker = Worker(app, shutdown=shutdown, pool=pool)
    reaped = reap_stale(app)
    if reaped:
        log.info("worker: marked %s run(s) with a dead worker as failed", reaped)
    log.info("worker %s: started", worker.name)
    try:
        if once:
            while not shutdown.is_set() and worker.run_once() is not None:
                pass
        else:
            # Webhooks and triggers are the worker processes' (docs/guides/events.rst).
            Dispatcher(app, shutdown, also=[triggers.sweep]).start()
            worker.run_forever(concurrency or int(app.config["PIPELINE_CONCURRENCY"]))
    finally:
        pool.close()
    log.info("worker %s: stopped", worker.name)


def _stop_with_parent(parent, stop):
    while os.getppid() == parent:
        time.sleep(0.5)
    stop(signal.SIGTERM, None)
