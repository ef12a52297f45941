"""Running a job (datahub.app.jobs) in an isolated process over stored files, as the
workers do for profiles and checks: each file fetched to a local path (the stored file
itself, or a temporary copy from S3 in ``PIPELINE_TEMP_DIR``, removed afterwards), the
pipelines' memory bound, and a deadline."""

import contextlib
import os
import threading

from datahub.platform import isolation
from datahub.platform.storage import get_storage


class FileMissing(Exception):
    """A stored file is gone."""


def run_stored_job(config, job, files, args, seconds, pool, check=None):
    """``job``'s answer, with ``args`` and, for each ``{arg: stored key}`` of ``files``, the
    local path of that file; :class:`FileMissing`, and whatever
    :func:`datahub.platform.isolation.run_job` raises."""
    temp_dir = config.get("PIPELINE_TEMP_DIR")
    with contextlib.ExitStack() as stack:
        paths = {}
        for arg, key in files.items():
            try:
                paths[arg] = stack.enter_context(get_storage().local_copy(key, temp_dir))
            except FileNotFoundError:
                raise FileMissing() from None
        bounded = {
            **args,
            **paths,
            "memory_limit": str(config["PIPELINE_MEMORY_LIMIT"]),
            "threads": config.get("PIPELINE_THREADS"),
            "temp_dir": temp_dir,
            "max_line_size": int(config["PIPELINE_MAX_LINE_SIZE"]),
            "max_columns": int(config["PIPELINE_MAX_COLUMNS"]),
        }
        limits = isolation.Limits(
            memory=isolation.parse_size(config["PIPELINE_MEMORY_LIMIT"]),
            margin=isolation.parse_size(config["PIPELINE_MEMORY_MARGIN"]),
            seconds=float(seconds),
        )
        return isolation.run_job(pool, job, bounded, limits, check)


_lock = threading.Lock()
_pools = {}  # pid → the pool of callers that bring none (a forked process builds its own)


def own_pool():
    """This process's pool of job processes for callers that bring none."""
    with _lock:
        pool = _pools.get(os.getpid())
        if pool is None:
            _pools.clear()
            pool = _pools[os.getpid()] = isolation.ProcessPool(spares=0)
        return pool


def quietly(work, label, log):
    """``work()``'s answer, or 0 when it failed: logged in one line, the next round retries
    (the database may be down)."""
    try:
        return work()
    except Exception as exc:  # noqa: BLE001
        log.warning(
            "%s: failed, trying again later: %s: %s",
            label,
            type(exc).__name__,
            str(exc).splitlines()[0] if str(exc) else "",
        )
        return 0


class Every:
    """A thread that calls ``work(pool, stop)`` every ``seconds`` until ``stop`` is set, with
    a pool of its own (a Celery worker process's profiles and checks)."""

    def __init__(self, seconds, work, stop, name):
        self.every, self.work, self.stop = max(0.1, float(seconds)), work, stop
        self.thread = threading.Thread(target=self._loop, daemon=True, name=name)

    def start(self):
        self.thread.start()
        return self

    def _loop(self):
        pool = isolation.ProcessPool(spares=0)
        try:
            while not self.stop.wait(self.every):
                self.work(pool, self.stop)
        finally:
            pool.close()
