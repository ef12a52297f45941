"""gunicorn settings. Every value can be overridden on the command line or with
GUNICORN_CMD_ARGS; DATAHUB_* variables configure the app itself."""
import multiprocessing
import os

wsgi_app = "wsgi:app"
bind = os.environ.get("DATAHUB_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("DATAHUB_WORKERS", multiprocessing.cpu_count() * 2 + 1))
# gthread with idle timeouts, JSON error pages and no accepting while every thread is busy
# (datahub/serving/gunicorn_worker.py). A slow client holds one thread, not a process, and
# is dropped after CLIENT_IDLE_TIMEOUT seconds without progress; a transfer that keeps
# moving is never cut (gthread's ``timeout`` watches the main loop, not the requests).
# That worker builds on gunicorn's internals; DATAHUB_WORKER_CLASS=gthread runs gunicorn's
# own threaded worker instead, should an upgrade of gunicorn break it (README "Library
# internals" says what is lost).
worker_class = os.environ.get("DATAHUB_WORKER_CLASS") or "datahub.serving.gunicorn_worker.Worker"
threads = int(os.environ.get("DATAHUB_THREADS", 64))
timeout = 30
graceful_timeout = 30
keepalive = 5
forwarded_allow_ips = "127.0.0.1,::1"
accesslog = "-"
access_log_format = (
    '%(h)s "%(r)s" %(s)s %(B)s %(M)sms request_id=%({x-request-id}o)s pid=%(p)s'
)
errorlog = "-"
# gunicorn >= 24 opens a control socket at one fixed path per user; several services
# (or test servers) on one host would fight over it. We manage it with signals instead.
control_socket_disable = True


def on_starting(server):
    """Runs once in the master, before any worker forks: migrations, first admin."""
    from datahub import create_app
    from datahub.bootstrap import prepare

    app = create_app()
    prepare(app)
    # Workers open their own connections after fork; the master keeps none.
    from datahub.extensions import db

    with app.app_context():
        db.engine.dispose()
    # Runs execute in a worker process of their own, never in a web worker: on the
    # embedded default (no broker) the master starts one and keeps it alive (when_ready).
    server.datahub_worker_wanted = bool(app.config["PIPELINE_EMBEDDED_WORKER"]) and \
        not app.config.get("CELERY_BROKER_URL")


def when_ready(server):
    """Start the supervised pipeline worker process (datahub/pipelines/supervisor.py)."""
    if getattr(server, "datahub_worker_wanted", False):
        from datahub.pipelines.supervisor import WorkerSupervisor

        server.datahub_worker = WorkerSupervisor().start()


def on_exit(server):
    """Stop the pipeline worker process: a run in progress fails as shut down."""
    supervisor = getattr(server, "datahub_worker", None)
    if supervisor is not None:
        supervisor.stop(timeout=graceful_timeout)


def post_worker_init(worker):
    """Runs in each worker once the app is loaded, also in one that replaces a killed
    worker: remove the files that interrupted uploads left in storage. In a thread, so
    that an unreachable database cannot hold up the worker's start (the sweep is safe
    beside requests, see datahub/datasets/storage.py)."""
    import threading

    from datahub.datasets.storage import sweep_storage

    threading.Thread(target=sweep_storage, args=(worker.wsgi,), name="storage-sweep",
                     daemon=True).start()
