"""The fork server's side (``python -m datahub.app.jobs --fork-server FD``, started by
datahub.platform.isolation.forkserver): a process that has imported the jobs' modules,
and done nothing more (no thread, no DuckDB database, no job), forks one process per job
asked for on its control socket, and reports each one's pid and, once it has reaped it,
its exit status. The job itself runs in the forked process (datahub.platform.isolation.child);
this process never runs one, so nothing of one job is in the next one's process.

Its control socket is one end of a socket pair whose other end only the process that
started it holds: no address on the file system, no one else can ask it for a process.
A request is one message with four descriptors: the job's stdin, stdout and stderr (pipes
that the asking process made and keeps the other ends of) and a status socket. On the
status socket the answer is the pid (8 bytes, with a pidfd where the kernel has them:
signalling through it cannot hit a reused pid) then the exit status (4 bytes:
``os.waitstatus_to_exitcode``, so a SIGKILL is -9). It exits when its control socket
closes or its parent is gone."""

import os
import select
import signal
import socket
import sys
import traceback

from datahub.platform.isolation import child
from datahub.platform.isolation.forkserver import PID, REQUEST_FDS, STATUS

WATCH_SECONDS = 0.5


def serve_forks(jobs, control_fd, prepare=None):
    """Fork a process that runs one job of ``jobs`` for each request on ``control_fd``
    (``prepare``: as child.serve's)."""
    control = socket.socket(fileno=control_fd)
    parent = os.getppid()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    signal.set_wakeup_fd(wake_w)  # a SIGCHLD wakes the select below at once
    signal.signal(signal.SIGCHLD, lambda *_: None)
    running = {}  # pid → the status socket of its job
    own = (control.fileno(), wake_r, wake_w)
    control.sendall(b"R")  # ready: the modules are imported
    while os.getppid() == parent:
        ready, _, _ = select.select([control, wake_r], [], [], WATCH_SECONDS)
        if wake_r in ready:
            _drain(wake_r)
        _reap(running)
        if control in ready:
            try:
                data, fds, _, _ = socket.recv_fds(control, 1, REQUEST_FDS)
            except OSError:
                break
            if not data:
                break  # the process that asked for jobs is gone
            if len(fds) != REQUEST_FDS:
                for fd in fds:
                    os.close(fd)
                continue
            _fork_one(jobs, fds, running, own, prepare)
    os._exit(0)


def _drain(fd):
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _reap(running):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        sock = running.pop(pid, None)
        if sock is not None:
            try:
                sock.send(STATUS.pack(os.waitstatus_to_exitcode(status)))
            except OSError:
                pass  # the asking side let go of it
            sock.close()


def _fork_one(jobs, fds, running, own, prepare):
    stdin, stdout, stderr, status_fd = fds
    status = socket.socket(fileno=status_fd)
    try:
        pid = os.fork()
    except OSError:  # no memory or no pid left: its end of file tells the asking side
        for fd in (stdin, stdout, stderr):
            os.close(fd)
        status.close()
        return
    if pid == 0:
        _become_job(jobs, (stdin, stdout, stderr), [status, *running.values()], own, prepare)
    for fd in (stdin, stdout, stderr):
        os.close(fd)  # the job's alone now: its end of file is its exit
    pidfd = _pidfd(pid)
    try:
        socket.send_fds(status, [PID.pack(pid)], [pidfd] if pidfd is not None else [])
    except OSError:
        pass  # the asking side let go: the job reads an end of file and exits
    if pidfd is not None:
        os.close(pidfd)
    running[pid] = status


def _pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _become_job(jobs, pipes, sockets, own, prepare):
    """In the forked process: keep the job's pipes as 0, 1 and 2, and nothing else of the
    fork server's; run the job."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for sock in sockets:
            sock.close()
        for fd in own:
            os.close(fd)
        for target, fd in enumerate(pipes):  # each ≥ 3: the server keeps 0, 1 and 2 open
            os.dup2(fd, target)
            os.close(fd)
        child.serve(jobs, parent=os.getppid(), prepare=prepare)
        code = 0
    except BaseException:  # noqa: BLE001  (the asking side reads a crash in its stderr)
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os._exit(code)
