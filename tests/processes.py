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


def popen(args, **kwargs):
    """``subprocess.Popen`` for a process that must not outlive the test run. Call it from
    the main thread: the kernel signals the child when the thread that started it ends."""
    return subprocess.Popen(args, preexec_fn=_die_with_parent, **kwargs)


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
