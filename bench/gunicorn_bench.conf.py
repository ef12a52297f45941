"""Identical gunicorn settings for datahub and the ceiling app (no access log: it would
measure the disk). Workers default to the CPU count."""
import multiprocessing
import os

bind = os.environ["BENCH_BIND"]
workers = int(os.environ.get("BENCH_WORKERS", multiprocessing.cpu_count()))
worker_class = "sync"
keepalive = 5
accesslog = None
errorlog = "-"
loglevel = "warning"
control_socket_disable = True
