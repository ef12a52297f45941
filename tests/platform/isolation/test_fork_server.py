"""Job processes forked by the fork server: one fresh process per job (never one job's
process for another), forked from a server that runs no job, has no thread and keeps
nothing of a job; the server starts again when it is killed; the exit status is known
(the OOM killer's SIGKILL is "memory", another death "crashed"); the job and the server
end with the process that asked; and jobs are spawned where there is no fork server."""

import logging
import os
import signal
import subprocess
import sys
import time

import pytest

from datahub.platform import isolation
from datahub.platform.isolation import forkserver
from tests.platform.isolation.test_bounds import MARGIN, bomb_args
from tests.test_processes import alive

LIMITS = isolation.Limits(512 * 10**6, MARGIN, seconds=60)
SLOW = "SELECT sum(range) AS n FROM range(100000000000)"


class RecordingPool(isolation.ProcessPool):
    """A pool that notes the pid and the parent pid of each process a job takes."""

    def __init__(self, spares=1):
        super().__init__(spares)
        self.taken = []

    def take(self):
        process = super().take()
        self.taken.append((process.pid, parent_of(process.pid)))
        return process


def parent_of(pid):
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


def threads_of(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def descriptors_of(pid):
    found = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            found.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except FileNotFoundError:
            pass
    return sorted(found)


@pytest.fixture(autouse=True)
def fork_server_on(monkeypatch):
    monkeypatch.delenv("DATAHUB_JOB_FORK_SERVER", raising=False)


@pytest.fixture
def pool():
    pool = RecordingPool(spares=1)
    yield pool
    pool.close()


def one(pool, tmp_path, query="SELECT a + 1 AS b FROM input"):
    return isolation.run_job(pool, "pipeline_run", bomb_args(tmp_path, query), LIMITS)


def test_each_job_has_a_fresh_process_forked_by_a_server_that_keeps_nothing(pool, tmp_path):
    one(pool, tmp_path)
    server = forkserver.running_server()
    assert server is not None
    time.sleep(0.2)  # it has closed the status socket of the job that ended
    before = descriptors_of(server)
    for _ in range(4):
        assert one(pool, tmp_path)["rows_out"] == 1
    pids = [pid for pid, _ in pool.taken]
    assert len(set(pids)) == len(pids) == 5  # never a process twice
    assert {parent for _, parent in pool.taken} == {server}
    assert server not in pids  # it runs no job itself
    # Each gone with its job: killed as its answer is read, reaped aside (off the run's
    # path), so within a moment however loaded the machine.
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids)
    assert forkserver.running_server() == server
    assert threads_of(server) == 1  # forking a process with threads is unsafe
    # No job's pipe or socket stays with it: its control socket, its wake-up pipe, and
    # the status sockets of the spares that wait (this pool's, and other pools' of this
    # process), as many as before.
    time.sleep(0.2)
    after = descriptors_of(server)
    assert [fd for fd in after if not fd.startswith("socket:")] == [
        fd for fd in before if not fd.startswith("socket:")
    ]
    assert len([fd for fd in after if fd.startswith("socket:")]) == len(
        [fd for fd in before if fd.startswith("socket:")]
    )


def test_a_job_process_holds_only_its_own_pipes(pool, tmp_path):
    seen = {}

    def look():
        (pid,) = isolation.running_jobs()
        seen.setdefault("fds", descriptors_of(pid))
        raise KeyboardInterrupt  # our cancel: the job is killed

    with pytest.raises(KeyboardInterrupt):
        isolation.run_job(pool, "pipeline_run", bomb_args(tmp_path, SLOW), LIMITS, check=look)
    fds = seen["fds"]
    assert not [fd for fd in fds if fd.startswith("socket:")]  # none of the server's
    assert len([fd for fd in fds if fd.startswith("pipe:")]) == 3  # stdin, stdout, stderr


def test_the_fork_server_starts_again_when_it_is_killed(pool, tmp_path):
    one(pool, tmp_path)
    server = forkserver.running_server()
    os.kill(server, signal.SIGKILL)
    while alive(server):
        time.sleep(0.02)
    assert one(pool, tmp_path)["rows_out"] == 1  # the spare it forked is dropped
    assert forkserver.running_server() not in (None, server)
    assert pool.taken[-1][1] == forkserver.running_server()


@pytest.mark.parametrize(
    "signum, reason", [(signal.SIGKILL, "memory"), (signal.SIGTERM, "crashed")]
)
def test_a_job_killed_from_outside_says_how_by_its_exit_status(pool, tmp_path, signum, reason):
    """A SIGKILL that was not ours is the kernel's OOM killer's: "memory"."""

    def kill_it():
        for pid in isolation.running_jobs():
            os.kill(pid, signum)

    with pytest.raises(isolation.JobKilled) as killed:
        isolation.run_job(pool, "pipeline_run", bomb_args(tmp_path, SLOW), LIMITS, check=kill_it)
    assert killed.value.reason == reason
    assert str(killed.value) == f"{reason}: exit status {-signum}"
    assert pool.taken[-1][1] == forkserver.running_server()


def test_a_job_over_its_memory_is_killed_by_the_watch_as_memory(pool, tmp_path, monkeypatch):
    from datahub.platform.isolation import cgroups

    monkeypatch.setattr(cgroups, "attach", lambda pid, limit: None)
    with pytest.raises(isolation.JobKilled) as killed:
        isolation.run_job(
            pool,
            "pipeline_run",
            bomb_args(tmp_path),
            isolation.Limits(64 * 10**6, MARGIN, seconds=60),
        )
    assert killed.value.reason == "memory"
    pid, parent = pool.taken[-1]
    assert parent == forkserver.running_server() and not alive(pid)


def test_what_a_job_writes_to_stderr_is_logged_here(pool, tmp_path, caplog):
    args = bomb_args(tmp_path)
    del args["steps"]  # the job fails with a traceback on its stderr
    with caplog.at_level(logging.WARNING, "datahub.isolation"):
        with pytest.raises(isolation.JobKilled) as killed:
            isolation.run_job(pool, "pipeline_run", args, LIMITS)
    assert killed.value.reason == "crashed"
    assert "KeyError: 'steps'" in caplog.text


@pytest.mark.parametrize("how", ["turned off", "cannot start"])
def test_without_a_fork_server_jobs_are_spawned(pool, tmp_path, monkeypatch, how):
    if how == "turned off":
        monkeypatch.setenv("DATAHUB_JOB_FORK_SERVER", "0")
    else:

        def fails():
            raise OSError("no fork server here")

        monkeypatch.setattr(forkserver, "_servers", {})
        monkeypatch.setattr(forkserver, "_failed", {})
        monkeypatch.setattr(forkserver, "ForkServer", fails)
    assert one(pool, tmp_path)["rows_out"] == 1
    assert pool.taken[-1][1] == os.getpid()  # a process of its own, started here
    assert one(pool, tmp_path)["rows_out"] == 1
    assert len({pid for pid, _ in pool.taken}) == 2


ASKER = """
import os, sys, threading, time
from datahub.platform import isolation
from datahub.platform.isolation import forkserver
from tests.platform.isolation.test_bounds import bomb_args
from tests.platform.isolation.test_fork_server import LIMITS, SLOW
from pathlib import Path

pool = isolation.ProcessPool(spares=0)
args = bomb_args(Path(sys.argv[1]), SLOW)
light = bomb_args(Path(sys.argv[1]), "SELECT a FROM input")
isolation.run_job(pool, "pipeline_run", light, LIMITS)
first = forkserver.running_server()
child = os.fork()
if child == 0:  # a forked process (as gunicorn's workers are) starts a server of its own
    isolation.run_job(pool, "pipeline_run", light, LIMITS)
    os._exit(0 if forkserver.running_server() not in (None, first) else 3)
assert os.waitpid(child, 0)[1] == 0
threading.Thread(target=isolation.run_job, args=(pool, "pipeline_run", args, LIMITS)).start()
while not isolation.running_jobs():
    time.sleep(0.02)
print(first, *isolation.running_jobs(), flush=True)
time.sleep(60)
"""


def test_the_job_and_its_server_end_with_the_process_that_asked(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    asker = subprocess.Popen(
        [sys.executable, "-c", ASKER, str(tmp_path)], cwd=root, env=env, stdout=subprocess.PIPE
    )
    try:
        server, job = map(int, asker.stdout.readline().split())
        assert alive(server) and alive(job) and parent_of(job) == server
    finally:
        asker.kill()  # no teardown of its own runs
        asker.wait()
    deadline = time.monotonic() + 10
    while alive(server) or alive(job):
        assert time.monotonic() < deadline, "a job process outlived the process that asked"
        time.sleep(0.05)
