"""Starting and ending the processes that tests start (gunicorn, workers, nginx, slapd,
the OIDC provider, the S3 server)."""

import ctypes
import os
import signal
import subprocess

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with_parent():
    # Runs in the child before exec: SIGKILL when the test process dies, so that a test
    # run killed mid-way (a timeout, Ctrl-C twice) leaves no worker polling the test
    # database, or holding a port, for the next run to trip over.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _die_with_parent_and_hear_ctrl_c():
    _die_with_parent()
    # A shell that starts a job in the background (``cmd &``, as a CI runner may) has it
    # ignore SIGINT, and its children inherit that: Python then never raises
    # KeyboardInterrupt. A test of what Ctrl-C does needs it heard.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def popen(args, ctrl_c=False, **kwargs):
    """``subprocess.Popen`` for a process that must not outlive the test run. Call it from
    the main thread: the kernel signals the child when the thread that started it ends.
    ``ctrl_c``: the process hears SIGINT, whatever the test run ignores."""
    preexec = _die_with_parent_and_hear_ctrl_c if ctrl_c else _die_with_parent
    return subprocess.Popen(args, preexec_fn=preexec, **kwargs)


def stop(process, timeout=10):
    """SIGTERM, then SIGKILL if ``process`` has not ended within ``timeout`` seconds."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def stop_group(process, timeout):
    """SIGTERM to ``process``'s whole group (started with ``start_new_session``), then
    SIGKILL to the group if ``process`` has not ended within ``timeout`` seconds."""
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def children(pid):
    """``{pid: command line}`` of the live (not yet reaped) processes whose parent is
    ``pid``, read from /proc."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                state, parent = handle.read().rsplit(")", 1)[1].split()[:2]
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read()
        except (OSError, ValueError):
            continue
        if int(parent) == pid and state != "Z":
            found[int(entry)] = command
    return found


def gunicorn_workers(master):
    """gunicorn's web workers: the master's children that run the master's command line
    (not the pipeline worker process it supervises, gunicorn.conf.py)."""
    try:
        with open(f"/proc/{master}/cmdline", "rb") as handle:
            command = handle.read()
    except OSError:
        return []
    return sorted(pid for pid, line in children(master).items() if line == command)
