"""Each of the three memory bounds of an isolated job holds on its own (the watch, the
job's cgroup where the host allows one, the address-space backstop), and the job's
process is what pays: this process is untouched."""

import os

import pytest

from datahub.platform import isolation
from datahub.platform.isolation import cgroups

BOMB = "SELECT len(generate_series(1, 60000000)) AS n FROM input"
MEMORY = 64 * 10**6
MARGIN = 128 * 10**6


@pytest.fixture(params=["cold", "warm"])
def pool(request):
    """A pool whose job process is started as the job comes, or a warm spare (a worker's):
    started ahead, its DuckDB database made while it waits. The bounds hold in both."""
    pool = isolation.ProcessPool(spares=1, warm=request.param == "warm")
    if pool.warm:
        pool.refill()
    yield pool
    pool.close()


def bomb_args(tmp_path, query=BOMB):
    source = tmp_path / "one.csv"
    source.write_text("a\n1\n")
    output = tmp_path / "out.csv"
    return {
        "source": str(source),
        "joins": {},
        "output": str(output),
        "names": {str(source): "the source file", str(output): "the output file"},
        "steps": [{"op": "sql", "query": query}],
        "spill": str(tmp_path),
        "output_format": "csv",
        "memory_limit": "64MB",
        "threads": 1,
        "max_line_size": 4194304,
        "max_columns": 10000,
    }


@pytest.fixture
def without_the_watch(monkeypatch):
    original = isolation._reason_to_kill

    def no_memory_kill(process, limits, deadline):
        reason = original(process, limits, deadline)
        return None if reason == "memory" else reason

    monkeypatch.setattr(isolation, "_reason_to_kill", no_memory_kill)


def test_the_watch_alone_stops_a_memory_bomb(pool, tmp_path, monkeypatch):
    monkeypatch.setattr(cgroups, "attach", lambda pid, limit: None)
    monkeypatch.setattr(isolation, "ADDRESS_SPACE_EXTRA", 64 * 2**30)  # no backstop
    with pytest.raises(isolation.JobKilled) as killed:
        isolation.run_job(
            pool, "pipeline_run", bomb_args(tmp_path), isolation.Limits(MEMORY, MARGIN, seconds=60)
        )
    assert killed.value.reason == "memory"


def test_a_cgroup_alone_stops_a_memory_bomb(pool, tmp_path, monkeypatch, without_the_watch):
    if cgroups._parent() is None:  # noqa: SLF001
        pytest.fail(
            "this machine lets no process make a memory cgroup (as root, cgroup v1 "
            "or a delegated v2 tree): the bound it adds is not tested"
        )
    monkeypatch.setattr(isolation, "ADDRESS_SPACE_EXTRA", 64 * 2**30)
    parent = cgroups._parent()[1]  # noqa: SLF001

    def ours():  # other pools' spares of this process wait in cgroups of their own
        return {
            name for name in os.listdir(parent) if name.startswith(f"datahub-job-{os.getpid()}-")
        }

    before = ours()
    with pytest.raises(isolation.JobKilled) as killed:
        isolation.run_job(
            pool, "pipeline_run", bomb_args(tmp_path), isolation.Limits(MEMORY, MARGIN, seconds=60)
        )
    assert killed.value.reason == "memory"
    assert ours() <= before  # the job's cgroup removed after


def test_the_address_space_limit_alone_stops_a_memory_bomb(
    pool, tmp_path, monkeypatch, without_the_watch
):
    """The backstop is generous (twice the limit plus 1 GiB): a 2.4 GB list passes it."""
    monkeypatch.setattr(cgroups, "attach", lambda pid, limit: None)
    bigger = BOMB.replace("60000000", "300000000")
    with pytest.raises(isolation.JobKilled) as killed:
        isolation.run_job(
            pool,
            "pipeline_run",
            bomb_args(tmp_path, bigger),
            isolation.Limits(MEMORY, MARGIN, seconds=60),
        )
    assert killed.value.reason == "memory"


def test_a_job_past_its_deadline_is_killed(pool, tmp_path):
    slow = "SELECT count(*) AS n FROM range(100000) a, range(100000) b WHERE a.range + b.range = 7"
    with pytest.raises(isolation.JobKilled) as killed:
        isolation.run_job(
            pool,
            "pipeline_run",
            bomb_args(tmp_path, slow),
            isolation.Limits(512 * 10**6, MARGIN, seconds=0.5),
        )
    assert killed.value.reason == "timeout"
    assert isolation.running_jobs() == set()


def test_a_job_that_ends_normally_answers_its_result(pool, tmp_path):
    result = isolation.run_job(
        pool,
        "pipeline_run",
        bomb_args(tmp_path, "SELECT a + 1 AS b FROM input"),
        isolation.Limits(512 * 10**6, MARGIN, seconds=30),
    )
    assert result["rows_out"] == 1
    assert (tmp_path / "out.csv").read_text() == "b\n2\n"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("512MB", 512_000_000),
        ("512MiB", 512 * 2**20),
        ("1.5GB", 1_500_000_000),
        (" 64 mb ", 64_000_000),
        ("1000", 1000),
        (2048, 2048),
        ("0", 0),
    ],
)
def test_sizes_read_as_duckdb_reads_them(text, expected):
    assert isolation.parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "lots", "12 parsecs", "-5MB", "80%", True, -1])
def test_sizes_that_are_not(text):
    with pytest.raises(ValueError):
        isolation.parse_size(text)
