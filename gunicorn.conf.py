"""gunicorn settings. Every value can be overridden on the command line or with
GUNICORN_CMD_ARGS; DATAHUB_* variables configure the app itself."""

import multiprocessing
import os

wsgi_app = "wsgi:app"
bind = os.environ.get("DATAHUB_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("DATAHUB_WORKERS", multiprocessing.cpu_count() * 2 + 1))
# gthread with idle timeouts, JSON error pages and no accepting while every thread is busy
# (datahub/platform/serving/gunicorn_worker.py). A slow client holds one thread, not a process, and
# is dropped after CLIENT_IDLE_TIMEOUT seconds without progress; a transfer that keeps
# moving is never cut (gthread's ``timeout`` watches the main loop, not the requests).
# That worker builds on gunicorn's internals; DATAHUB_WORKER_CLASS=gthread runs gunicorn's
# own threaded worker instead, should an upgrade of gunicorn break it (docs/contributing/internals.rst
# says what is lost).
worker_class = (
    os.environ.get("DATAHUB_WORKER_CLASS") or "datahub.platform.serving.gunicorn_worker.Worker"
)
threads = int(os.environ.get("DATAHUB_THREADS", 64))
timeout = 30
graceful_timeout = 30
keepalive = 5
forwarded_allow_ips = "127.0.0.1,::1"
accesslog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(B)s %(M)sms request_id=%({x-request-id}o)s pid=%(p)s'
errorlog = "-"
# gunicorn >= 24 opens a control socket at one fixed path per user; several services
# (or test servers) on one host would fight over it. We manage it with signals instead.
control_socket_disable = True
# DATAHUB_LOG_FORMAT=json: gunicorn's own lines (access and error log) as JSON objects too,
# like the app's (datahub/web/logs.py), read as the app reads it (``"json"``, JSON text,
# counts; an unknown format stops the start). Only the environment variable counts here.
from datahub.web.logs import environment_log_format  # noqa: E402  (light: no app)

if environment_log_format() == "json":
    logconfig_dict = {
        "root": {"level": "INFO", "handlers": ["json_stderr"]},
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["json_stderr"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["json_stdout"], "propagate": False},
        },
        "handlers": {
            "json_stderr": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            },
            "json_stdout": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stdout",
            },
        },
        "formatters": {"json": {"()": "datahub.web.logs.JsonFormatter"}},
    }


def on_starting(server):
    """Runs once in the master, before any worker forks: migrations, first admin."""
    prepare_metrics_folder()
    import functools

    from datahub import create_app
    from datahub.app.bootstrap import prepare, tell
    from datahub.platform.serving.announce import Announcement

    app = create_app()
    lines = prepare(app)
    # Told once the server answers (when_ready starts the wait), below the start-up lines.
    server.datahub_announcement = Announcement(
        server.cfg.bind[0] if server.cfg.bind else "", lines, functools.partial(tell, app)
    )
    # Workers open their own connections after fork; the master keeps none.
    from datahub.app.extensions import db

    with app.app_context():
        db.engine.dispose()
    # Runs execute in a worker process of their own, never in a web worker: on the
    # embedded default (no broker) the master starts one and keeps it alive (when_ready).
    server.datahub_worker_wanted = bool(
        app.config["PIPELINE_EMBEDDED_WORKER"]
    ) and not app.config.get("CELERY_BROKER_URL")
    freeze_heap()


def when_ready(server):
    """Start the supervised pipeline worker process (datahub/pipelines/supervisor.py);
    tell the first admin's password and where to go once a worker answers."""
    if getattr(server, "datahub_worker_wanted", False):
        from datahub.pipelines.supervisor import WorkerSupervisor

        server.datahub_worker = WorkerSupervisor().start()
    announcement = getattr(server, "datahub_announcement", None)
    if announcement is not None:
        announcement.settled = lambda: len(server.WORKERS) >= server.num_workers
        announcement.start()


def on_exit(server):
    """Stop the pipeline worker process: a run in progress fails as shut down. A password
    not yet told (the server never answered) is told now: it is shown only once."""
    announcement = getattr(server, "datahub_announcement", None)
    if announcement is not None:
        announcement.tell_now()
    supervisor = getattr(server, "datahub_worker", None)
    if supervisor is not None:
        supervisor.stop(timeout=graceful_timeout)


def prepare_metrics_folder():
    """prometheus_client's multiprocess mode (datahub/platform/metrics.py): every process of this
    server writes its counts to files in PROMETHEUS_MULTIPROC_DIR, which must be set before
    prometheus_client is first imported (create_app imports it), and be empty at start.
    An operator's folder is emptied; otherwise a new temporary one, removed at exit."""
    import atexit
    import glob
    import shutil
    import sys
    import tempfile

    if os.environ.get("_DATAHUB_METRICS_MASTER") == str(os.getpid()):
        return  # done already: this file is read again (a reload), or on_starting
    if "prometheus_client" in sys.modules:
        raise RuntimeError(
            "prometheus_client was imported before gunicorn.conf.py was "
            "read: its metrics would not be shared by the workers"
        )
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given and given != os.environ.get("_DATAHUB_METRICS_TEMP"):  # not a parent master's
        os.makedirs(given, exist_ok=True)
        for path in glob.glob(os.path.join(given, "*.db")):
            os.unlink(path)
        os.environ["_DATAHUB_METRICS_MASTER"] = str(os.getpid())
        return
    folder = tempfile.mkdtemp(prefix="datahub-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.environ["_DATAHUB_METRICS_TEMP"] = folder
    os.environ["_DATAHUB_METRICS_MASTER"] = str(os.getpid())
    master = os.getpid()  # a worker runs the atexit handlers it inherits too: not there
    atexit.register(lambda: os.getpid() == master and shutil.rmtree(folder, True))


# gunicorn reads this file (as module ``__config__``) before it loads the app, also with
# --preload: the one moment before anything imports prometheus_client.
if __name__ == "__config__":
    prepare_metrics_folder()


def freeze_heap():
    """Move every object alive now (modules, the app) out of the garbage collector's
    reach (``gc.freeze``). They live as long as the process anyway; without this,
    collecting them took 1-2 s of every process's exit (a quick shutdown included, 3 s
    under load), and the collections of a worker copied the master's pages it shares."""
    import gc

    gc.freeze()


def child_exit(server, worker):
    """A worker ended: prometheus_client drops its live gauges (its counts are kept)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker):
    """Runs in each worker once the app is loaded, also in one that replaces a killed
    worker: remove the files that interrupted uploads left in storage. In a thread, so
    that an unreachable database cannot hold up the worker's start (the sweep is safe
    beside requests, see datahub/datasets/storage.py)."""
    import threading

    from datahub.datasets.storage import sweep_storage

    freeze_heap()

    threading.Thread(
        target=sweep_storage, args=(worker.wsgi,), name="storage-sweep", daemon=True
    ).start()


def worker_exit(server, worker):
    """A worker ends: its event streams end first, each with a proper end, and their
    clients reconnect to another worker (datahub/platform/serving/streams.py); then its
    datasets' usage counts not yet written are (atexit would too, but a worker may leave
    without running it)."""
    from datahub.datasets import usage
    from datahub.platform.serving import streams

    streams.close_all()
    if getattr(worker, "wsgi", None) is not None:
        usage.flush(worker.wsgi)
