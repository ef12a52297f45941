"""Identical gunicorn settings for datahub and the ceiling app (no access log: it would
measure the disk): the worker model deployed by gunicorn.conf.py (its worker class and
threads, and DATAHUB_WORKER_CLASS). Workers default to the CPU count."""

import multiprocessing
import os

bind = os.environ["BENCH_BIND"]
workers = int(os.environ.get("BENCH_WORKERS", multiprocessing.cpu_count()))
worker_class = (
    os.environ.get("DATAHUB_WORKER_CLASS") or "datahub.platform.serving.gunicorn_worker.Worker"
)
threads = int(os.environ.get("DATAHUB_THREADS", 64))
keepalive = 5
accesslog = None
errorlog = "-"
loglevel = "warning"
control_socket_disable = True


def when_ready(server):
    """With BENCH_PIPELINE_WORKER=1 the master starts and supervises the pipeline worker
    process, as gunicorn.conf.py does (runs no longer execute in a web worker); the
    ceiling app and the code before that change (``--old-engine``) leave it unset."""
    if os.environ.get("BENCH_PIPELINE_WORKER") == "1":
        from datahub.pipelines.supervisor import WorkerSupervisor

        server.bench_worker = WorkerSupervisor().start()


def on_exit(server):
    supervisor = getattr(server, "bench_worker", None)
    if supervisor is not None:
        supervisor.stop(timeout=30)
