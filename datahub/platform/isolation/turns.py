"""Jobs for requests: a pool of isolated processes and a number of turns, per web process
(a forked worker builds its own), so that at most that many jobs of a kind run at once in
it; each job within its deadline, waiting for a turn included."""

import os
import threading
import time

from datahub.platform import isolation


class Turns:
    """At most ``setting`` (a config key) jobs at once per process, from a pool of its own."""

    def __init__(self, setting):
        self.setting = setting
        self._lock = threading.Lock()
        self._state = {}  # pid → (pool, semaphore)

    def _pool_and_turns(self, config):
        with self._lock:
            state = self._state.get(os.getpid())
            if state is None:
                cap = isolation.parse_size(config["PIPELINE_MEMORY_LIMIT"]) + isolation.parse_size(
                    config["PIPELINE_MEMORY_MARGIN"]
                )
                state = (
                    isolation.ProcessPool(spares=1, cap=cap),
                    threading.BoundedSemaphore(int(config[self.setting])),
                )
                self._state.clear()
                self._state[os.getpid()] = state
            return state

    def run(self, job, args, config, seconds, timed_out, **limits):
        """Run ``job`` in a process of this process's pool, within ``seconds`` (waiting for
        a turn included: else ``timed_out`` is raised) and the pipelines' memory limit; as
        :func:`datahub.platform.isolation.run_job`. ``limits``: ``check`` (called while it
        runs; what it raises stops the job), ``output_path`` and ``output_bytes``."""
        started = time.monotonic()
        pool, turns = self._pool_and_turns(config)
        if not turns.acquire(timeout=seconds):
            raise timed_out()
        try:
            bounds = isolation.Limits(
                memory=isolation.parse_size(config["PIPELINE_MEMORY_LIMIT"]),
                margin=isolation.parse_size(config["PIPELINE_MEMORY_MARGIN"]),
                seconds=max(0.0, seconds - (time.monotonic() - started)),
                output_path=limits.get("output_path"),
                output_bytes=limits.get("output_bytes"),
            )
            return isolation.run_job(pool, job, args, bounds, check=limits.get("check"))
        finally:
            turns.release()
