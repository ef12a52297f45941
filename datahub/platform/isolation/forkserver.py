"""The asking side of the fork server (its own side is zygote.py): one per process that
runs jobs, started the first time it needs one (so a web worker forked by gunicorn, or a
Celery worker's process, starts its own: the server is keyed by ``os.getpid()`` and
never used across a fork), started again when it has died. :func:`fork` answers a
:class:`ForkedProcess`, which behaves as the ``subprocess.Popen`` of a spawned job does
(``pid``, the three pipes, ``poll``, ``wait``, ``kill``, ``returncode``); or None where
no fork server can run, and the caller spawns the job's process as it did before.

``DATAHUB_JOB_FORK_SERVER=0`` in the environment turns it off (every job spawned)."""

import logging
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

log = logging.getLogger("datahub.isolation")

START_SECONDS = 30  # to import the jobs' modules, on a busy host
ANSWER_SECONDS = 10  # for the pid of a forked process
RETRY_SECONDS = 30  # after a fork server failed to start, spawn until then
EXIT_SECONDS = 5  # for a job whose fork server died to end once killed
UNKNOWN_STATUS = 1  # a job whose fork server died before it could say how it ended

# The fork server's answers on a job's status socket, and the descriptors of a request.
PID = struct.Struct("!q")
STATUS = struct.Struct("!i")
REQUEST_FDS = 4

_lock = threading.Lock()
_servers = {}  # os.getpid() → this process's ForkServer
_failed = {}  # os.getpid() → when starting one last failed


def package_root():
    """The folder that holds the ``datahub`` package (this file is datahub/platform/isolation/)."""
    here = os.path.abspath(__file__)
    for _ in range(4):
        here = os.path.dirname(here)
    return here


def environment():
    """The environment of a job's process (or of the fork server that forks them)."""
    env = dict(os.environ)
    # The datahub this process runs, whatever the child's current directory is.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root(), env.get("PYTHONPATH")) if p)
    env.setdefault("MALLOC_ARENA_MAX", "2")  # fewer 64 MiB reservations per thread
    env["DATAHUB_ISOLATION_PARENT"] = str(os.getpid())
    return env


def enabled():
    return os.environ.get("DATAHUB_JOB_FORK_SERVER", "1").strip().lower() not in (
        "0",
        "false",
        "no",
    )


def fork():
    """A new job process forked by this process's fork server (started if need be), or
    None where there is none (turned off, or it could not start)."""
    if not enabled():
        return None
    for _ in range(2):  # a server that died since the last job: once more, a new one
        server = _server()
        if server is None:
            return None
        try:
            return server.fork()
        except NotForked as exc:  # it lives but could not fork (no memory, no pid left)
            log.warning("the job fork server could not fork (%s): spawning the job", exc)
            return None
        except OSError as exc:
            log.warning("the job fork server failed (%s): starting it again", exc)
            _forget(server)
    return None


class NotForked(OSError):
    """The fork server answered, but with no process."""


def running_server():
    """This process's fork server's pid, or None (tests, operators)."""
    server = _servers.get(os.getpid())
    return server.process.pid if server is not None and server.alive() else None


def _server():
    pid = os.getpid()
    with _lock:
        server = _servers.get(pid)
        if server is not None and server.alive():
            return server
        if server is not None:
            server.close()
        _servers.clear()  # what a fork inherited is the parent's, not ours
        if time.monotonic() - _failed.get(pid, -RETRY_SECONDS) < RETRY_SECONDS:
            return None
        try:
            server = _servers[pid] = ForkServer()
        except OSError as exc:
            _failed[pid] = time.monotonic()
            log.warning("no job fork server (%s): job processes are spawned", exc)
            return None
        return server


def _forget(server):
    with _lock:
        if _servers.get(os.getpid()) is server:
            del _servers[os.getpid()]
    server.close()


class ForkServer:
    """A started fork server and this side of its control socket."""

    def __init__(self):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "datahub.app.jobs", "--fork-server", str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                env=environment(),
                close_fds=True,
                pass_fds=(theirs.fileno(),),
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.control = ours
        self._lock = threading.Lock()
        ready, _, _ = select.select([ours], [], [], START_SECONDS)
        if not ready or ours.recv(1) != b"R":
            self.close()
            raise OSError("the fork server did not start")

    def alive(self):
        return self.process.poll() is None

    def fork(self):
        stdin = os.pipe()
        stdout = os.pipe()
        stderr = os.pipe()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        given = (stdin[0], stdout[1], stderr[1], theirs.fileno())
        kept = (stdin[1], stdout[0], stderr[0])
        try:
            with self._lock:
                socket.send_fds(self.control, [b"J"], given)
            ready, _, _ = select.select([ours], [], [], ANSWER_SECONDS)
            if not ready:
                raise OSError("no answer from the fork server")
            data, fds, _, _ = socket.recv_fds(ours, PID.size, 1)
            if len(data) != PID.size:
                for fd in fds:
                    os.close(fd)
                raise NotForked("no process") if self.alive() else OSError("it died")
        except BaseException:
            ours.close()
            for fd in kept:
                os.close(fd)
            raise
        finally:
            theirs.close()
            for fd in given[:3]:
                os.close(fd)
        (pid,) = PID.unpack(data)
        return ForkedProcess(pid, fds[0] if fds else None, ours, kept)

    def close(self):
        self.control.close()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


class ForkedProcess:
    """A job's process forked by the fork server, as its ``subprocess.Popen`` would be."""

    def __init__(self, pid, pidfd, status, pipes):
        self.pid, self.returncode = pid, None
        self._pidfd, self._status = pidfd, status
        self.stdin = open(pipes[0], "wb")  # noqa: SIM115  (closed by stop_process)
        self.stdout = open(pipes[1], "rb")  # noqa: SIM115
        self.stderr = open(pipes[2], "rb")  # noqa: SIM115

    def poll(self):
        if self.returncode is None:
            try:
                data = self._status.recv(STATUS.size, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return None
            except OSError:
                data = b""
            if len(data) == STATUS.size:
                (self.returncode,) = STATUS.unpack(data)
            else:
                self._server_gone()
            self._release()
        return self.returncode

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"job process {self.pid}", timeout)
            select.select([self._status], [], [], left)
        return self.returncode

    def kill(self):
        if self.returncode is not None:
            return
        try:
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _server_gone(self):
        """Its fork server died before it: the job is killed, and ends as crashed."""
        log.warning("the fork server of job process %s died: the job is stopped", self.pid)
        self.kill()
        if self._pidfd is not None:  # readable once the process has ended
            select.select([self._pidfd], [], [], EXIT_SECONDS)
        self.returncode = UNKNOWN_STATUS

    def _release(self):
        self._status.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
