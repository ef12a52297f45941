"""Where a run's time went: milliseconds by phase, kept on the run (``runs.timings``,
migration 0022) and shown in its JSON (docs/reference/pipelines.rst, "Runs").

The phases, in the order a run passes them; a phase the run did not reach is absent:

* ``claim``: the worker choosing and taking the run (its queries and its ``UPDATE``);
* ``plan``: the run's plan read and its owner re-authorised, its input versions recorded,
  its fingerprint and a reusable earlier run looked up;
* ``job_start``: from asking for a job process to the job running in it (a spare taken,
  its memory cgroup, the request written and read);
* ``compile``: in the job, the inputs' formats and headers read, the DuckDB connection
  made and the steps compiled (DuckDB describes each step's result);
* ``query``: DuckDB executing the query, writing the output file as it goes (``COPY``);
* ``row_counts``: the rows read from the source counted (``rows_in``);
* ``job_end``: from the job's answer to the run going on (the process's exit);
* ``write``: the output file made durable (``fsync``);
* ``hash``: the output's SHA-256, what was left of it once the job was over;
* ``store``: the output file put into storage;
* ``publish``: the transaction that adds the output version and marks the run succeeded;
* ``events``: the run's events (its outbox record at the end, OpenLineage's start).

The phases' sum is a little less than ``finished_at`` − ``started_at``: the moments
between them (a commit, a check) are nobody's.
"""

import contextlib
import time

PHASES = (
    "claim",
    "plan",
    "job_start",
    "compile",
    "query",
    "row_counts",
    "job_end",
    "write",
    "hash",
    "store",
    "publish",
    "events",
)


class Timings:
    """A run's phases as they pass: seconds by phase name, added up. A phase timed within
    another is not counted in the outer one as well."""

    def __init__(self):
        self._seconds = {}
        self._nested = 0.0  # seconds of inner phases within the phase being timed

    def add(self, phase, seconds):
        self._seconds[phase] = self._seconds.get(phase, 0.0) + max(0.0, seconds)

    def start(self, name):
        """Start timing phase ``name``; call what this answers to stop."""
        started, outer = time.monotonic(), self._nested
        self._nested = 0.0

        def stop():
            spent = time.monotonic() - started
            self.add(name, spent - self._nested)
            self._nested = outer + spent

        return stop

    @contextlib.contextmanager
    def phase(self, name):
        """Time the block as (part of) phase ``name``."""
        stop = self.start(name)
        try:
            yield
        finally:
            stop()

    def update(self, milliseconds):
        """Add phases measured elsewhere (the job's), in milliseconds."""
        for phase, ms in (milliseconds or {}).items():
            if phase in PHASES:
                self.add(phase, float(ms) / 1000)

    def as_json(self):
        """``{phase: milliseconds}`` in the phases' order, to 0.1 ms."""
        return {
            phase: milliseconds(self._seconds[phase]) for phase in PHASES if phase in self._seconds
        }


def milliseconds(seconds):
    return round(seconds * 1000, 1)
