"""Versions benchmark: what versions cost and what they buy, each against a baseline in the
same run (bench/README.rst, "Versions").

    python -m bench.versions                   # every case (~10 minutes; + the data once)
    python -m bench.versions --cases diff,lineage --rows 200000    # a quick look

* ``upload``: a 1 GiB upload that becomes a new version, against the same upload to the
  code before versions (``--old``, served side by side from ``git archive``), interleaved
  rounds, medians; target ≤ 1.05×. Then an identical re-upload: bytes added to the storage
  folder (target 0).
* ``diff``: a keyed diff of two 2,000,000-row versions (1% of the rows changed, a column
  added) through ``GET /datasets/{id}/diff``, against DuckDB alone running the equivalent
  full-outer-join diff query (the four counts) on the same two stored files with the same
  memory limit and threads; target DuckDB / datahub ≥ 0.8.
* ``reuse``: a pipeline run over the 2,000,000-row version, then the same run again
  (reused), each from POST to ``succeeded``; target ≤ 0.1×.
* ``lineage``: a chain of 10 pipelines, each reading the previous one's output, with
  100,000 versions in the database; p50 of ``GET .../lineage?depth=10`` from either end;
  target ≤ 50 ms (``GET /datasets/{id}`` p50 on the same server for comparison).
"""

import argparse
import csv
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pipelines import (  # noqa: E402
    Service,
    duckdb_config,
    engine_settings,
    fmt_s,
    mib,
    old_engine_tree,
    run_reported,
    say,
)

GIB = 2**30
CASES = ("upload", "diff", "reuse", "lineage")


def folder_bytes(folder):
    return sum(path.stat().st_size for path in Path(folder).iterdir() if path.is_file())


def big_file(cache, size):
    path = cache / f"versions-{size}.bin"
    if not path.exists() or path.stat().st_size != size:
        cache.mkdir(parents=True, exist_ok=True)
        block = random.Random(7).randbytes(2**20)
        with open(path, "wb") as out:
            for _ in range(size // len(block)):
                out.write(block)
    return path


def stamp(path, number):
    """Make ``path``'s bytes differ from every earlier round's (its first 8 bytes)."""
    with open(path, "r+b") as handle:
        handle.write(number.to_bytes(8, "big"))


def upload_seconds(service, dataset_id, path):
    size = path.stat().st_size
    service.client.close()  # a fresh connection: the server drops idle keep-alive ones
    start = time.perf_counter()
    with open(path, "rb") as body:
        service.client.json(
            "PUT",
            f"/api/v1/datasets/{dataset_id}/file",
            body,
            headers={"Content-Type": "application/octet-stream", "Content-Length": str(size)},
            timeout=3600,
        )
    return time.perf_counter() - start


def bench_upload(args, scratch, report):
    source = big_file(args.cache, args.upload_bytes)
    old_root = old_engine_tree(args.old, scratch / "old-tree")
    settings = {"DATAHUB_MAX_CONTENT_LENGTH": str(2 * args.upload_bytes)}
    with (
        Service(ROOT, scratch / "new", settings, "versions") as new,
        Service(old_root, scratch / "old", settings, args.old) as old,
    ):
        ids = {
            service: service.client.json(
                "POST", "/api/v1/datasets/", {"name": "upload bench"}, expect=201
            )["id"]
            for service in (new, old)
        }
        times = {new: [], old: []}
        for number in range(args.rounds + 1):  # round 0 warms up
            for service in (new, old) if number % 2 else (old, new):
                stamp(source, number * 2 + (service is new))
                seconds = upload_seconds(service, ids[service], source)
                say(
                    f"round {number}: [{service.label}] {mib(args.upload_bytes)} in {fmt_s(seconds)}"
                )
                if number:
                    times[service].append(seconds)
        ours, theirs = statistics.median(times[new]), statistics.median(times[old])
        report(
            f"upload {mib(args.upload_bytes)}, a new version",
            fmt_s(ours),
            f"{fmt_s(theirs)} ({args.old})",
            f"{ours / theirs:.2f}x",
            "<= 1.05x",
            ours / theirs <= 1.05,
        )
        storage = scratch / "new" / "storage"
        stamp(source, 2**62)  # bytes no round sent: a new version, then the same again
        upload_seconds(new, ids[new], source)
        before = folder_bytes(storage)
        upload_seconds(new, ids[new], source)
        added = folder_bytes(storage) - before
        versions = new.client.json("GET", f"/api/v1/datasets/{ids[new]}/versions?limit=1")
        report(
            "identical re-upload: bytes stored",
            f"{added} B (version {versions['items'][0]['version']})",
            f"{mib(args.upload_bytes)} uploaded",
            "-",
            "0 B",
            added == 0,
        )


def write_versions(cache, rows):
    """Two CSVs of ``rows`` rows: the second with 1% of the rows changed and a column more."""
    first, second = (cache / f"diff-{rows}-{n}.csv" for n in (1, 2))
    if first.exists() and second.exists():
        return first, second
    cache.mkdir(parents=True, exist_ok=True)
    rng = random.Random(11)
    cities = ["Oslo", "Bergen", "Trondheim", "Stavanger", "Tromso"]
    with open(first, "w", newline="") as a, open(second, "w", newline="") as b:
        old, new = csv.writer(a), csv.writer(b)
        old.writerow(["id", "city", "temp", "note"])
        new.writerow(["id", "city", "temp", "note", "station"])
        for row_id in range(rows):
            city, temp = cities[row_id % 5], rng.randint(-30, 30)
            note = f"reading {row_id}"
            old.writerow([row_id, city, temp, note])
            new.writerow([row_id, city, temp + 1 if row_id % 100 == 0 else temp, note, row_id % 7])
    return first, second


DUCKDB_DIFF = """
SELECT count(*) FILTER (WHERE a.id IS NULL), count(*) FILTER (WHERE b.id IS NULL),
       count(*) FILTER (WHERE a.id IS NOT NULL AND b.id IS NOT NULL
                        AND (a.city IS DISTINCT FROM b.city OR a.temp IS DISTINCT FROM b.temp
                             OR a.note IS DISTINCT FROM b.note)),
       count(*) FILTER (WHERE a.id IS NOT NULL AND b.id IS NOT NULL
                        AND NOT (a.city IS DISTINCT FROM b.city OR a.temp IS DISTINCT FROM b.temp
                                 OR a.note IS DISTINCT FROM b.note))
FROM read_csv(?) a FULL OUTER JOIN read_csv(?) b ON a.id = b.id
"""


def bench_diff(args, scratch, report):
    import duckdb

    first, second = write_versions(args.cache, args.rows)
    settings = engine_settings(args.memory_limit, args.threads, scratch / "spill", 4 * GIB, 900)
    settings["DATAHUB_DIFF_TIMEOUT_SECONDS"] = "900"
    (scratch / "spill").mkdir(exist_ok=True)
    (scratch / "duckdb-spill").mkdir(exist_ok=True)
    config = duckdb_config(args.memory_limit, args.threads, scratch / "duckdb-spill")
    with Service(ROOT, scratch / "diff", settings, "diff") as service:
        dataset = service.upload(first, "diff bench")
        stored_first = service.stored_path(dataset)
        dataset = service.client.json(
            "PUT",
            f"/api/v1/datasets/{dataset['id']}/file",
            second.read_bytes(),
            headers={"Content-Type": "text/csv"},
            timeout=3600,
        )
        stored_second = service.stored_path(dataset)
        ours, theirs = [], []
        for number in range(args.rounds + 1):
            start = time.perf_counter()
            body = service.client.json(
                "GET", f"/api/v1/datasets/{dataset['id']}/diff?from=1&to=2&key=id", timeout=900
            )
            took = time.perf_counter() - start
            start = time.perf_counter()
            con = duckdb.connect(":memory:", config=config)
            counts = con.execute(DUCKDB_DIFF, [str(stored_first), str(stored_second)]).fetchone()
            con.close()
            alone = time.perf_counter() - start
            say(
                f"round {number}: datahub {fmt_s(took)} {body['rows']}, DuckDB {fmt_s(alone)} {counts}"
            )
            expected = dict(zip(("added", "removed", "changed", "unchanged"), counts, strict=True))
            if body["rows"] != expected:
                raise RuntimeError(f"the diffs differ: {body['rows']} != {expected}")
            if number:
                ours.append(took)
                theirs.append(alone)
        ratio = statistics.median(theirs) / statistics.median(ours)
        report(
            f"keyed diff, {args.rows:,} rows, 1% changed, a column added",
            fmt_s(statistics.median(ours)),
            f"{fmt_s(statistics.median(theirs))} (DuckDB alone)",
            f"{ratio:.2f}x",
            ">= 0.8x",
            ratio >= 0.8,
        )


def bench_reuse(args, scratch, report):
    first, _ = write_versions(args.cache, args.rows)
    settings = engine_settings(args.memory_limit, args.threads, scratch / "spill", 4 * GIB, 900)
    (scratch / "spill").mkdir(exist_ok=True)
    with Service(ROOT, scratch / "reuse", settings, "reuse") as service:
        dataset = service.upload(first, "reuse bench")
        steps = [
            {"op": "filter", "column": "temp", "operator": "lt", "value": 0},
            {"op": "select", "columns": ["id", "city", "temp"]},
        ]
        computed, reused = [], []
        for number in range(args.rounds):
            pipeline = service.create_pipeline(
                f"reuse {number}", dataset["id"], steps, f"reuse out {number}"
            )
            seconds, run = service.run(pipeline["id"], 0.02, 900)
            again, second = service.run(pipeline["id"], 0.02, 900)
            if second["reused_run_id"] != run["id"]:
                raise RuntimeError(f"run {second['id']} was not reused: {second}")
            say(f"round {number}: computed {fmt_s(seconds)}, reused {fmt_s(again)}")
            computed.append(seconds)
            reused.append(again)
        ratio = statistics.median(reused) / statistics.median(computed)
        report(
            f"a reused run ({args.rows:,} rows)",
            fmt_s(statistics.median(reused)),
            f"{fmt_s(statistics.median(computed))} (computed)",
            f"{ratio:.3f}x",
            "<= 0.1x",
            ratio <= 0.1,
        )


def seed_versions(database, count):
    """``count`` versions over datasets of 100 versions each, inserted in bulk."""
    con = sqlite3.connect(database)
    owner = con.execute("SELECT id FROM users LIMIT 1").fetchone()[0]
    now = "2026-01-01 00:00:00.000000"
    datasets = count // 100
    first = con.execute("SELECT coalesce(max(id), 0) FROM datasets").fetchone()[0] + 1
    con.executemany(
        "INSERT INTO datasets (id, name, name_key, description, owner_id, created_at, "
        "updated_at, current_version) VALUES (?, ?, ?, '', ?, ?, ?, 100)",
        [(first + n, f"seed {n}", f"seed {n}", owner, now, now) for n in range(datasets)],
    )
    con.executemany(
        "INSERT INTO dataset_versions (dataset_id, version, file_key, sha256, size_bytes, "
        "filename, content_type, created_at, pinned) VALUES (?, ?, ?, ?, 1, 'f', 'text/csv', ?, 0)",
        (
            (first + n, v, f"{n:016x}{v:016x}", "0" * 64, now)
            for n in range(datasets)
            for v in range(1, 101)
        ),
    )
    con.commit()
    con.close()


def p50_ms(service, path, count):
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        status, _ = service.client.request("GET", path)
        samples.append(time.perf_counter() - start)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status}")
    return statistics.median(samples) * 1000


def bench_lineage(args, scratch, report):
    settings = engine_settings(args.memory_limit, args.threads, scratch / "spill", GIB, 900)
    (scratch / "spill").mkdir(exist_ok=True)
    source = scratch / "chain.csv"
    source.write_text("id,city,temp\n1,Oslo,-3\n2,Bergen,5\n")
    with Service(ROOT, scratch / "lineage", settings, "lineage") as service:
        seed_versions(scratch / "lineage" / "datahub.sqlite", args.versions)
        dataset = service.upload(source, "chain 0")
        first, current = dataset["id"], dataset["id"]
        for depth in range(1, 11):
            pipeline = service.create_pipeline(f"chain {depth}", current, [], f"chain {depth}")
            _, run = service.run(pipeline["id"], 0.02, 120)
            current = run["output_dataset_id"]
        count = service.client.json("GET", f"/api/v1/datasets/{current}/versions")["total"]
        assert count == 1
        upstream = service.client.json(
            "GET", f"/api/v1/datasets/{current}/lineage?direction=upstream&depth=10"
        )
        if len(upstream["nodes"]) != 21:
            raise RuntimeError(f"the chain's lineage has {len(upstream['nodes'])} nodes, not 21")
        up = p50_ms(service, f"/api/v1/datasets/{current}/lineage?direction=upstream&depth=10", 200)
        down = p50_ms(
            service, f"/api/v1/datasets/{first}/lineage?direction=downstream&depth=10", 200
        )
        plain = p50_ms(service, f"/api/v1/datasets/{current}", 200)
        for name, value in (("upstream", up), ("downstream", down)):
            report(
                f"lineage, 10-deep chain, {name}, {args.versions:,} versions",
                f"{value:.1f} ms",
                f"{plain:.1f} ms (GET a dataset)",
                f"{value / plain:.1f}x",
                "<= 50 ms",
                value <= 50,
            )


def build_parser():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES), help=f"of {', '.join(CASES)}")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows of the diff's versions")
    parser.add_argument("--upload-bytes", type=int, default=GIB)
    parser.add_argument("--versions", type=int, default=100_000, help="seeded for lineage")
    parser.add_argument("--old", default="a30c6ac", help="the revision before versions")
    parser.add_argument("--memory-limit", default="512MB")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "datahub-bench-cache",
        help="generated files, kept between runs",
    )
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    cases = [case for case in args.cases.split(",") if case]
    unknown = set(cases) - set(CASES)
    if unknown:
        sys.exit(f"unknown cases: {', '.join(sorted(unknown))}")
    bench = {
        "upload": bench_upload,
        "diff": bench_diff,
        "reuse": bench_reuse,
        "lineage": bench_lineage,
    }

    def run(report):
        for case in cases:
            with tempfile.TemporaryDirectory(prefix=f"datahub-bench-{case}-") as folder:
                bench[case](args, Path(folder), report)

    return run_reported(run, lambda: f"rounds {args.rounds}, {os.cpu_count()} CPUs")


if __name__ == "__main__":
    sys.exit(main())
