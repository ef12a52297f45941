"""The tests' own process helper: what it starts dies with the test run."""

import signal
import subprocess
import sys
import time

from tests.e2e.conftest import ROOT

PARENT = """
import sys, time
from tests.processes import popen
child = popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(child.pid, flush=True)
time.sleep(60)
"""


def test_a_started_process_dies_when_the_test_process_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], cwd=ROOT, stdout=subprocess.PIPE)
    child = int(parent.stdout.readline())
    assert alive(child)
    parent.send_signal(signal.SIGKILL)  # no teardown runs
    parent.wait()
    deadline = time.monotonic() + 10
    while alive(child):
        assert time.monotonic() < deadline, "the child outlived the killed test process"
        time.sleep(0.05)


def alive(pid):
    """Whether ``pid`` runs (a zombie not yet reaped by its new parent does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
