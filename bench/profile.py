"""Profiles benchmark: the profile job against DuckDB's own ``SUMMARIZE`` of the same file
(bench/README.rst, "Profiles").

    python -m bench.profile                     # ~3 minutes
    python -m bench.profile --rows 200000 --rounds 1 --skip-memory     # a quick check

1. Speed: a ``--rows`` × 6-column file (``id`` integer, ``amount`` float, ``city`` a
   label of 20 values, ``note`` free text, ``day`` a date, ``flag`` a boolean; made by
   DuckDB from hashes of the row number), as CSV and as Parquet in a temporary folder.
   ``profile_job`` runs in this process against ``SUMMARIZE SELECT * FROM <the file>`` on
   a connection made the same way (``tabular.connect``, the same reader SQL), both with
   ``--threads`` and ``--memory-limit``; a warm-up, then ``--rounds`` rounds, their order
   alternating. Medians; ratio = profile / SUMMARIZE, target ≤ 1.3.
2. Memory: a CSV of ``--memory-factor`` × ``--memory-case-limit`` profiled in a new
   process with that memory limit: the outcome, the time and the process's peak RSS
   (``VmHWM``) against its RSS before (``duckdb`` and the job imported); the same for
   ``SUMMARIZE``.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

from datahub.datasets import tabular  # noqa: E402
from datahub.datasets.profiles.job import profile_job  # noqa: E402

TARGET = 1.3
MAX_LINE_SIZE = 4 * 2**20

TABLE = """
SELECT i AS id,
  (hash(i, 'a') % 100000) / 100.0 AS amount,
  'city_' || (hash(i, 'c') % 20)::VARCHAR AS city,
  left(md5(i::VARCHAR) || md5((i + 1)::VARCHAR), 10 + (hash(i, 'n') % 31)::INT) AS note,
  DATE '2024-01-01' + (hash(i, 'd') % 731)::INT AS day,
  hash(i, 'b') % 3 = 0 AS flag
FROM range({rows}) r(i)
"""


def generate(folder, rows, formats=("csv", "parquet")):
    """``{format: path}`` of the bench's table of ``rows`` rows."""
    paths = {}
    con = duckdb.connect()
    try:
        con.execute(f"CREATE TABLE g AS {TABLE.format(rows=int(rows))}")
        for fmt in formats:
            path = os.path.join(folder, f"table.{fmt}")
            options = "(HEADER)" if fmt == "csv" else "(FORMAT parquet)"
            con.execute(f"COPY g TO '{path}' {options}")
            paths[fmt] = path
    finally:
        con.close()
    return paths


def job_args(path, memory_limit, threads, temp_dir):
    return {
        "path": path,
        "name": os.path.basename(path),
        "memory_limit": memory_limit,
        "threads": threads,
        "temp_dir": temp_dir,
        "max_line_size": MAX_LINE_SIZE,
        "max_columns": 10000,
    }


def run_profile(path, memory_limit, threads, temp_dir):
    found = profile_job(job_args(path, memory_limit, threads, temp_dir))
    if "unreadable" in found:
        raise SystemExit(f"profile of {path}: {found['unreadable']}")
    return found


def run_summarize(path, memory_limit, threads, temp_dir):
    source, params = tabular.source_sql(path, tabular.detect_format(path), MAX_LINE_SIZE)
    con = tabular.connect([path], memory_limit=memory_limit, threads=threads, temp_dir=temp_dir)
    try:
        return con.execute(f"SUMMARIZE SELECT * FROM {source}", params).fetchall()
    finally:
        con.close()


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def cpu_timed(function, *args):
    """``(wall seconds, CPU seconds of this process's threads, result)``."""
    start, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    return time.perf_counter() - start, time.process_time() - cpu, result


def speed(paths, args, temp_dir):
    """``{format: (profile median, SUMMARIZE median, ratio, CPU ratio)}``; prints them."""
    sides = {"profile": run_profile, "summarize": run_summarize}
    results = {}
    for fmt, path in paths.items():
        times = {"profile": [], "summarize": []}
        cpu = {"profile": [], "summarize": []}
        for side in sides.values():  # warm-up: the file in the page cache
            side(path, args.memory_limit, args.threads, temp_dir)
        for round_ in range(args.rounds):
            order = ["profile", "summarize"] if round_ % 2 == 0 else ["summarize", "profile"]
            for name in order:
                wall, used, _ = cpu_timed(
                    sides[name], path, args.memory_limit, args.threads, temp_dir
                )
                times[name].append(wall)
                cpu[name].append(used)
        profile, summarize = (
            statistics.median(times["profile"]),
            statistics.median(times["summarize"]),
        )
        cpu_ratio = statistics.median(cpu["profile"]) / statistics.median(cpu["summarize"])
        results[fmt] = (profile, summarize, profile / summarize, cpu_ratio)
        print(
            f"{fmt:8} profile {profile:6.3f} s  SUMMARIZE {summarize:6.3f} s  "
            f"ratio {profile / summarize:.2f}x (target <= {TARGET}x); CPU time "
            f"{statistics.median(cpu['profile']):.3f} s / {statistics.median(cpu['summarize']):.3f} s "
            f"= {cpu_ratio:.2f}x\n"
            f"         rounds (s): profile {fmt_times(times['profile'])}; "
            f"SUMMARIZE {fmt_times(times['summarize'])}",
            flush=True,
        )
    return results


def fmt_times(values):
    return ", ".join(f"{value:.2f}" for value in values)


def memory_case(folder, args):
    """Profile and SUMMARIZE of a CSV ``--memory-factor`` times the limit, each in a new
    process: ``{side: child's report}``."""
    limit = tabular_bytes(args.memory_case_limit)
    sample = generate(folder, 100_000, ("csv",))["csv"]
    row_bytes = os.path.getsize(sample) / 100_000
    rows = int(args.memory_factor * limit / row_bytes)
    path = generate(folder, rows, ("csv",))["csv"]
    size = os.path.getsize(path)
    print(
        f"memory: {rows:,} rows, {size / 2**20:,.0f} MiB CSV, limit {args.memory_case_limit} "
        f"({size / limit:.1f}x), threads {args.threads}",
        flush=True,
    )
    reports = {}
    for side in ("profile", "summarize"):
        command = [sys.executable, "-m", "bench.profile", "--child", side, path]
        command += ["--memory-limit", args.memory_case_limit, "--threads", str(args.threads)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        try:
            report = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            report = {"outcome": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
        reports[side] = report
        peak = report.get("peak_mib")
        print(
            f"  {side:9} {report['outcome']}"
            + (
                f", {report['seconds']:.1f} s, peak RSS {peak:.0f} MiB "
                f"(before {report['idle_mib']:.0f} MiB; limit {limit / 2**20:.0f} MiB)"
                if peak is not None
                else ""
            ),
            flush=True,
        )
    return reports


def tabular_bytes(text):
    from datahub.platform.isolation import parse_size

    return parse_size(text)


def status_mib(field):
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return None


def child(side, path, memory_limit, threads):
    """One side of the memory case, in this (new) process; its report as a JSON line."""
    idle = status_mib("VmRSS")
    with tempfile.TemporaryDirectory() as temp_dir:
        function = run_profile if side == "profile" else run_summarize
        try:
            elapsed, result = timed(function, path, memory_limit, threads, temp_dir)
            outcome = "ok"
            if side == "profile":
                outcome += f" ({result['profile']['rows']:,} rows)"
        except duckdb.OutOfMemoryException as exc:
            elapsed, outcome = None, f"out of memory: {str(exc).splitlines()[0]}"
    report = {"outcome": outcome, "seconds": elapsed, "idle_mib": idle}
    report["peak_mib"] = status_mib("VmHWM") if elapsed is not None else None
    print(json.dumps(report))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--memory-limit", default="512MB")
    parser.add_argument("--memory-case-limit", default="128MB")
    parser.add_argument("--memory-factor", type=float, default=4.0)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("SIDE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.memory_limit, args.threads)
        return 0
    with tempfile.TemporaryDirectory(prefix="datahub-bench-profile-") as folder:
        temp_dir = os.path.join(folder, "spill")
        os.mkdir(temp_dir)
        paths = generate(folder, args.rows)
        for fmt, path in paths.items():
            print(f"{fmt:8} {args.rows:,} rows, {os.path.getsize(path) / 2**20:.1f} MiB")
        print(f"threads {args.threads}, memory limit {args.memory_limit}", flush=True)
        results = speed(paths, args, temp_dir)
        met = all(ratio <= TARGET for _, _, ratio, _ in results.values())
        if not args.skip_memory:
            reports = memory_case(folder, args)
            met = met and reports["profile"]["outcome"].startswith("ok")
    print("target met" if met else "target NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
