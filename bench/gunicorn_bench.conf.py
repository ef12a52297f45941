"""Identical gunicorn settings for datahub and the ceiling app (no access log: it would
measure the disk): the worker model deployed by gunicorn.conf.py (its worker class and
threads, and DATAHUB_WORKER_CLASS). Workers default to the CPU count."""
import multiprocessing
import os

bind = os.environ["BENCH_BIND"]
workers = int(os.environ.get("BENCH_WORKERS", multiprocessing.cpu_count()))
worker_class = os.environ.get("DATAHUB_WORKER_CLASS") or "datahub.serving.gunicorn_worker.Worker"
threads = int(os.environ.get("DATAHUB_THREADS", 64))
keepalive = 5
accesslog = None
errorlog = "-"
loglevel = "warning"
control_socket_disable = True
