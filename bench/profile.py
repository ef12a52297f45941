"""Profiles benchmark: a version's schema and profile (datahub.datasets.profiles.job) against
DuckDB's own ``SUMMARIZE`` of the same file, with the same threads and memory limit, on a
2,000,000-row × 6-column CSV and Parquet file; and a file four times the memory limit
profiled in an isolated process, as a worker does, with its peak resident memory.

    python -m bench.profile                  # ~2 minutes
    python -m bench.profile --rows 200000 --rounds 2 --skip-memory    # a quick check

See bench/README.rst ("Profiles").
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.proctree import status_kib  # noqa: E402
from datahub.datasets import tabular  # noqa: E402
from datahub.datasets.profiles.job import profile_job  # noqa: E402
from datahub.platform import isolation  # noqa: E402

LINE = 4 * 2**20


def write_files(folder, rows):
    """``{"csv": path, "parquet": path}``: ``rows`` rows of an integer, a measure, a label,
    free text, a date and a flag, with some nulls."""
    import duckdb

    query = (
        "SELECT i AS id, CASE WHEN i % 10 = 0 THEN NULL ELSE (i % 1000) / 7.0 END AS amount, "
        "['Oslo', 'Bergen', 'Trondheim', 'Tromsø', 'Stavanger'][i % 5 + 1] AS city, "
        "'note ' || (i * 7919 % 100003)::VARCHAR AS note, "
        "DATE '2020-01-01' + (i % 1500)::INTEGER AS day, i % 3 = 0 AS flag "
        f"FROM range({int(rows)}) t(i)"
    )
    paths = {"csv": folder / "data.csv", "parquet": folder / "data.parquet"}
    with duckdb.connect() as con:
        con.execute(f"COPY ({query}) TO '{paths['csv']}' (HEADER, DELIMITER ',')")
        con.execute(f"COPY ({query}) TO '{paths['parquet']}' (FORMAT parquet)")
    return paths


def summarize(path, memory_limit, threads, temp_dir):
    """DuckDB alone: ``SUMMARIZE`` of the file, read as the service reads it."""
    source, params = tabular.source_sql(str(path), tabular.detect_format(str(path)), LINE)
    con = tabular.connect(
        [str(path)], memory_limit=memory_limit, threads=threads, temp_dir=temp_dir
    )
    try:
        return con.execute(f"SUMMARIZE SELECT * FROM {source}", params).fetchall()
    finally:
        con.close()


def profile(path, memory_limit, threads, temp_dir):
    return profile_job(
        {
            "path": str(path),
            "name": path.name,
            "memory_limit": memory_limit,
            "threads": threads,
            "temp_dir": temp_dir,
            "max_line_size": LINE,
            "max_columns": 1000,
        }
    )


def timed(call):
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def bench_ratio(args, paths, temp_dir):
    """Median seconds of each, rounds alternating; the ratios."""
    rows = []
    for fmt, path in paths.items():
        ours, theirs = [], []
        for _ in range(args.rounds):
            theirs.append(timed(lambda: summarize(path, args.memory_limit, args.threads, temp_dir)))
            ours.append(timed(lambda: profile(path, args.memory_limit, args.threads, temp_dir)))
        ours_s, theirs_s = statistics.median(ours), statistics.median(theirs)
        rows.append((fmt, ours_s, theirs_s, ours_s / theirs_s))
    print(
        f"\nProfile of {args.rows:,} rows × 6 columns (threads {args.threads}, "
        f"memory_limit {args.memory_limit}; median of {args.rounds}):"
    )
    print(f"{'file':<8} {'profile_job':>12} {'SUMMARIZE':>10} {'ratio':>7}  target ≤ 1.30")
    for fmt, ours_s, theirs_s, ratio in rows:
        print(f"{fmt:<8} {ours_s:>11.2f}s {theirs_s:>9.2f}s {ratio:>6.2f}×")
    return rows


def bench_memory(args, folder, temp_dir):
    """A CSV four times the memory limit, profiled in an isolated process with the
    pipelines' bounds (the limit, a 150 MB margin): its outcome and peak resident memory."""
    limit = isolation.parse_size(args.small_memory_limit)
    rows = int(4 * limit / 48)  # ~48 bytes a row
    (folder / "big").mkdir()
    big = write_files(folder / "big", rows)["csv"]
    peak = [0]

    def sample():
        for pid in isolation.running_jobs():
            found = status_kib(pid)
            if found:
                peak[0] = max(peak[0], found[1])

    limits = isolation.Limits(memory=limit, margin=isolation.parse_size("150MB"), seconds=600)
    pool = isolation.ProcessPool(spares=0)
    started = time.perf_counter()
    try:
        args_ = {
            "path": str(big),
            "name": "big.csv",
            "memory_limit": args.small_memory_limit,
            "threads": args.threads,
            "temp_dir": temp_dir,
            "max_line_size": LINE,
            "max_columns": 1000,
        }
        try:
            found = isolation.run_job(pool, "profile", args_, limits, sample)
            outcome = f"ready, {found['profile']['rows']:,} rows"
        except (isolation.JobError, isolation.JobKilled) as exc:
            outcome = f"stopped: {exc}"
    finally:
        pool.close()
    size_mib = big.stat().st_size / 2**20
    print(
        f"\nA {size_mib:.0f} MiB CSV with memory_limit {args.small_memory_limit} in a job "
        f"process: {outcome} in {time.perf_counter() - started:.1f} s; peak resident "
        f"{peak[0] / 1024:.0f} MiB (the cap: the limit + 150 MB)"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--memory-limit", default="512MB")
    parser.add_argument("--small-memory-limit", default="128MB", help="the memory case's limit")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        temp_dir = str(folder / "spill")
        Path(temp_dir).mkdir()
        paths = write_files(folder, args.rows)
        bench_ratio(args, paths, temp_dir)
        if not args.skip_memory:
            bench_memory(args, folder, temp_dir)


if __name__ == "__main__":
    main()
