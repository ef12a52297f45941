"""Work that a user's data or query decides (pipeline runs, previews) executes in a process
of its own, never in a process that answers HTTP, and is bounded by the OS and by this
process watching it, not by DuckDB's settings alone.

One job, one process: :class:`ProcessPool` keeps ``spares`` processes started ahead (each
has imported DuckDB and waits for its job on stdin), hands one to :func:`run_job` and
starts the next: forked by this process's fork server (forkserver.py, zygote.py), which
has imported the jobs' modules once, or spawned as a new interpreter where it cannot run.
Three bounds hold its memory: where the host allows, a memory cgroup of its own limited
to ``memory + margin`` (the kernel kills it there; cgroups.py); this
side's watch of its resident memory every ``POLL_SECONDS``, which kills it at that bound
too; and its own address-space limit (``RLIMIT_AS``), a generous backstop. The watch
also kills it at the deadline, when an output file grows past its bound, or when
``check()`` raises (a cancel). A killed process gives its memory back at once. DuckDB's ``memory_limit`` bounds only its buffer manager (a
``generate_series`` or a wide JSON value can take gigabytes past it), hence the process.
"""

import json
import logging
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from datahub.platform.isolation import cgroups, forkserver

log = logging.getLogger("datahub.isolation")

POLL_SECONDS = 0.02
# The child's RLIMIT_AS: twice the memory limit plus this. DuckDB reserves address space
# well beyond what it touches (a 4x sort under 512MB peaked at 1.3 GB virtual, 0.6 GB
# resident), so the tight bound is the resident-memory watch; this one stops what the
# watch could not see in time.
ADDRESS_SPACE_EXTRA = 1024 * 2**20

_UNITS = {
    "": 1,
    "b": 1,
    "bytes": 1,
    "k": 10**3,
    "kb": 10**3,
    "m": 10**6,
    "mb": 10**6,
    "g": 10**9,
    "gb": 10**9,
    "t": 10**12,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


def parse_size(value):
    """Bytes in ``value``: an integer, or text as DuckDB reads ``memory_limit`` ("512MB"
    is 512,000,000 bytes, "512MiB" 536,870,912). ValueError when it is neither."""
    if isinstance(value, bool):
        raise ValueError(f"not a size: {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"not a size: {value!r}")
        return value
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", str(value))
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {value!r} (write it as 512MB, 1GiB or a number of bytes)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


class JobError(Exception):
    """What the job itself reported: ``kind`` (its own word, e.g. ``pipeline``,
    ``not_tabular``, ``too_large``) and a message for the user."""

    def __init__(self, kind, message=""):
        super().__init__(message)
        self.kind, self.message = kind, message


class JobKilled(Exception):
    """The job was stopped from outside: ``reason`` is ``memory``, ``timeout``,
    ``output`` or ``crashed``."""

    def __init__(self, reason, detail=""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass(frozen=True)
class Limits:
    memory: int  # DuckDB's memory_limit, bytes
    margin: int  # resident memory allowed past ``memory`` before the process is killed
    seconds: float | None = None  # the deadline, from the job's start
    output_path: str | None = None  # a file the job writes, killed once it is larger
    output_bytes: int | None = None  # than this

    @property
    def resident_cap(self):
        return self.memory + self.margin

    @property
    def address_space(self):
        return 2 * self.memory + ADDRESS_SPACE_EXTRA


def start_process():
    """A new job process that has imported its jobs' modules and waits for one job on
    stdin: forked by this process's fork server (forkserver.py), or, where none can run,
    a new interpreter."""
    process = forkserver.fork()
    return process if process is not None else spawn_process()


def spawn_process():
    """A job process of a new interpreter (``python -m datahub.app.jobs``): the way
    without a fork server."""
    return subprocess.Popen(
        [sys.executable, "-m", "datahub.app.jobs"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=forkserver.environment(),
        close_fds=True,
    )


class ProcessPool:
    """Processes started ahead of their jobs; each serves one job and exits. With ``cap``
    (the resident bytes its jobs may use), each spare is put in its memory cgroup as it is
    started (cgroups.py), not when its job arrives: making a cgroup takes milliseconds.
    ``warm``: each spare also prepares what its job will need (a DuckDB database: the
    program's ``prepare``, datahub.app.jobs) while it waits, off the job's path."""

    def __init__(self, spares=1, cap=None, warm=False):
        self.spares = max(0, int(spares))
        self.cap = cap
        self.warm = warm
        self._lock = threading.Lock()
        self._ready = []
        self._pid = os.getpid()

    def take(self):
        """A process for a job: a spare, or a new one. :meth:`refill` starts the next."""
        with self._lock:
            if self._pid != os.getpid():  # forked: those spares are the parent's
                self._ready, self._pid = [], os.getpid()
            while self._ready:
                process = self._ready.pop()
                if process.poll() is None:
                    return process
                _stop_spare(process)
        return start_process()

    def refill(self):
        """Start spares until there are ``spares`` (once a job has been handed its own)."""
        with self._lock:
            if self._pid != os.getpid():
                return
            while len(self._ready) < self.spares:
                process = start_process()
                if self.cap is not None:
                    process.datahub_cgroup = (cgroups.attach(process.pid, self.cap), self.cap)
                if self.warm:
                    try:
                        process.stdin.write(PREPARE_LINE)
                        process.stdin.flush()
                    except BrokenPipeError:
                        pass  # it died: take() passes it over
                self._ready.append(process)

    def close(self):
        with self._lock:
            ready, self._ready = self._ready, []
            if self._pid != os.getpid():
                return
        for process in ready:
            _stop_spare(process)


def _stop_spare(process):
    stop_process(process)
    cgroups.remove(getattr(process, "datahub_cgroup", (None, None))[0])


def _cgroup_of(process, cap):
    """The job's memory cgroup limited to ``cap``: the one its spare was put in, or a new
    one (a spare prepared for another cap leaves its own, removed)."""
    prepared, prepared_cap = getattr(process, "datahub_cgroup", (None, None))
    if prepared is not None and prepared_cap == cap:
        return prepared
    cgroup = cgroups.attach(process.pid, cap)
    cgroups.remove(prepared)
    return cgroup


def stop_process(process):
    if process.poll() is None:
        try:
            process.kill()
        except ProcessLookupError:
            pass
    process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass


def resident_bytes(pid):
    """The resident memory of process ``pid`` (Linux), or None where /proc has none."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _file_size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


_running = set()  # the pids of this process's jobs in progress (tests, operators)
PREPARE_LINE = b'{"prepare": true}\n'  # to a warm pool's spare: get ready (child.py)


def running_jobs():
    return set(_running)


def run_job(pool, job, args, limits, check=None):
    """Run ``job`` (a name in :data:`datahub.app.jobs.JOBS`) with ``args`` in a
    process of ``pool``; its result. Raises :class:`JobError` for what the job reported,
    :class:`JobKilled` when it was stopped, and whatever ``check()`` raised (the process
    killed first)."""
    request = json.dumps(
        {"job": job, "args": args, "memory": limits.memory, "address_space": limits.address_space}
    ).encode("utf-8")
    process = pool.take()
    deadline = None if limits.seconds is None else time.monotonic() + limits.seconds
    _running.add(process.pid)
    cgroup = _cgroup_of(process, limits.resident_cap)
    output = _Output(process)
    try:
        try:  # one line; its stdin stays open while it runs: its end would end the job
            process.stdin.write(request + b"\n")
            process.stdin.flush()
        except BrokenPipeError:
            pass  # it died before reading it: its exit status says why
        pool.refill()  # while the job starts
        while True:
            ended = output.read(POLL_SECONDS)  # both pipes at their end: it is exiting
            if output.answered():  # all it will say: it is exiting, reaped aside
                break
            if ended:
                try:
                    process.wait(timeout=POLL_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    pass
            killed = _reason_to_kill(process, limits, deadline)
            if killed is None and check is not None:
                try:
                    check()
                except BaseException:
                    stop_process(process)
                    raise
            if killed is not None:
                stop_process(process)
                raise JobKilled(killed)
    finally:
        _running.discard(process.pid)
        if output.answered():  # off the caller's path: killed, reaped, its cgroup removed
            threading.Thread(target=_end, args=(process, cgroup), daemon=True).start()
        else:
            _end(process, cgroup)
    return _outcome(process, output.out, output.err)


def _end(process, cgroup):
    """Stop the job's process if it still runs (its pipes closed), then its cgroup."""
    stop_process(process)
    cgroups.remove(cgroup)


class _Output:
    """What a job process writes to its stdout and stderr, read as it comes."""

    def __init__(self, process):
        self._out, self._err = process.stdout.fileno(), process.stderr.fileno()
        self._chunks = {self._out: [], self._err: []}
        self._open = set(self._chunks)
        self._poll = select.poll()
        for fd in self._open:
            self._poll.register(fd, select.POLLIN)

    def read(self, timeout):
        """Read what came within ``timeout`` seconds; whether both pipes are at their end."""
        if self._open:
            for fd, _ in self._poll.poll(timeout * 1000):
                chunk = os.read(fd, 65536)
                if chunk:
                    self._chunks[fd].append(chunk)
                else:
                    self._open.discard(fd)
                    self._poll.unregister(fd)
        return not self._open

    def answered(self):
        """Whether its answer is complete: one line (child.py), then nothing more."""
        chunks = self._chunks[self._out]
        return bool(chunks) and chunks[-1].endswith(b"\n")

    @property
    def out(self):
        return b"".join(self._chunks[self._out])

    @property
    def err(self):
        return b"".join(self._chunks[self._err])


def _reason_to_kill(process, limits, deadline):
    resident = resident_bytes(process.pid)
    if resident is not None and resident > limits.resident_cap:
        return "memory"
    if deadline is not None and time.monotonic() > deadline:
        return "timeout"
    if (
        limits.output_path
        and limits.output_bytes is not None
        and _file_size(limits.output_path) > limits.output_bytes
    ):
        return "output"
    return None


def _outcome(process, out, err):
    if err:
        log.warning(
            "isolated job wrote to stderr: %s", err[-4000:].decode("utf-8", "replace").strip()
        )
    try:
        answer = json.loads(out) if out else None
    except ValueError:
        answer = None
    if answer is None:
        code = process.returncode
        # SIGKILL that was not ours: the kernel's OOM killer (or an operator's kill).
        reason = "memory" if code == -signal.SIGKILL else "crashed"
        raise JobKilled(reason, f"exit status {code}")
    if answer.get("ok"):
        return answer.get("result")
    kind = answer.get("kind", "crashed")
    if kind in ("memory", "crashed"):
        raise JobKilled(kind, answer.get("message", ""))
    raise JobError(kind, answer.get("message", ""))
