"""Checks benchmark (write, audit, publish): the ten types of check, one each, on a
2,000,000-row × 6-column CSV and Parquet file (datahub.datasets.checks.job) against the
same predicates run by DuckDB alone (each a count over the file, read as the service reads
it), with the same threads and memory limit; and how long after a 10 MB upload answers its
version is published, on the service under gunicorn with its pipeline worker.

    python -m bench.checks                    # ~2 minutes
    python -m bench.checks --rows 200000 --rounds 2 --uploads 3    # a quick check

See bench/README.rst ("Checks").
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pipelines import Service, engine_settings  # noqa: E402
from datahub.datasets import tabular  # noqa: E402
from datahub.datasets.checks.job import checks_job  # noqa: E402
from datahub.platform.database import isoformat, utcnow  # noqa: E402

LINE = 4 * 2**20


def write_files(folder, rows):
    """``{"csv": path, "parquet": path}``: ``rows`` rows of an integer, a measure (10%
    null), a label, a note, a date and a flag."""
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


def timed(call):
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


CHECKS = [
    {"name": "ids", "type": "unique", "columns": ["id"]},
    {"name": "amounts", "type": "not_null", "column": "amount", "severity": "warn"},  # 10% are
    {"name": "cities", "type": "accepted_values", "column": "city",
     "values": ["Oslo", "Bergen", "Trondheim", "Tromsø", "Stavanger"]},
    {"name": "range", "type": "range", "column": "amount", "min": 0, "max": 1000},
    {"name": "notes", "type": "regex", "column": "note", "pattern": "note [0-9]+"},
    {"name": "rows", "type": "row_count", "min": 1},
    {"name": "change", "type": "row_count_change", "max_drop_fraction": 0.5},
    {"name": "schema", "type": "schema", "columns": [{"name": "id", "type": "BIGINT"}, {"name": "day"}]},
    {"name": "fresh", "type": "freshness", "column": "day", "max_age": "P10000D"},
    {"name": "sql", "type": "sql", "query": "SELECT * FROM input WHERE amount > 1000 AND flag"},
]  # fmt: skip
# The same predicates as DuckDB alone runs them: one count each over the file.
PREDICATES = [
    "SELECT sum(n) FROM (SELECT count(*) AS n FROM {s} GROUP BY id HAVING count(*) > 1)",
    "SELECT count(*) FROM {s} WHERE amount IS NULL",
    "SELECT count(*) FROM {s} WHERE city IS NOT NULL AND city NOT IN "
    "('Oslo', 'Bergen', 'Trondheim', 'Tromsø', 'Stavanger')",
    "SELECT count(*) FROM {s} WHERE amount < 0 OR amount > 1000",
    "SELECT count(*) FROM {s} WHERE NOT regexp_full_match(note, 'note [0-9]+')",
    "SELECT count(*) FROM {s}",
    "DESCRIBE SELECT * FROM {s}",
    "SELECT max(day) FROM {s}",
    "SELECT count(*) FROM {s} WHERE amount > 1000 AND flag",
]


def duckdb_alone(path, memory_limit, threads, temp_dir):
    source, params = tabular.source_sql(str(path), tabular.detect_format(str(path)), LINE)
    con = tabular.connect(
        [str(path)], memory_limit=memory_limit, threads=threads, temp_dir=temp_dir
    )
    try:
        for sql in PREDICATES:
            con.execute(sql.format(s=source), params * sql.count("{s}")).fetchall()
    finally:
        con.close()


def ours(path, memory_limit, threads, temp_dir):
    answer = checks_job(
        {
            "path": str(path),
            "name": path.name,
            "checks": CHECKS,
            "previous_rows": 1,
            "now": isoformat(utcnow()),
            "memory_limit": memory_limit,
            "threads": threads,
            "temp_dir": temp_dir,
            "max_line_size": LINE,
            "max_columns": 1000,
        }
    )
    errors = [r for r in answer["results"] if r["status"] == "error"]
    assert not errors, errors
    return answer


def bench_ratio(args, paths, temp_dir):
    print(
        f"\nThe ten checks on {args.rows:,} rows × 6 columns (threads {args.threads}, "
        f"memory_limit {args.memory_limit}; median of {args.rounds}):"
    )
    print(f"{'file':<8} {'checks_job':>11} {'DuckDB alone':>13} {'ratio':>7}  target ≤ 1.50")
    for fmt, path in paths.items():
        mine, theirs = [], []
        for _ in range(args.rounds):
            theirs.append(
                timed(lambda: duckdb_alone(path, args.memory_limit, args.threads, temp_dir))
            )
            mine.append(timed(lambda: ours(path, args.memory_limit, args.threads, temp_dir)))
        a, b = statistics.median(mine), statistics.median(theirs)
        print(f"{fmt:<8} {a:>10.2f}s {b:>12.2f}s {a / b:>6.2f}×")


def bench_publish(args, folder):
    """Seconds from a 10 MB upload's answer to its version being published."""
    rows = int(10 * 2**20 / 48)
    (folder / "upload").mkdir()
    source = write_files(folder / "upload", rows)["csv"]
    settings = engine_settings(args.memory_limit, args.threads, folder / "tmp", 64 * 2**20, 600)
    (folder / "tmp").mkdir()
    waits = []
    with Service(ROOT, folder / "instance", settings, "checks") as service:
        client = service.client
        dataset = client.json("POST", "/api/v1/datasets/", {"name": "Checked sales"}, expect=201)
        client.json("PUT", f"/api/v1/datasets/{dataset['id']}/checks", {"checks": CHECKS})
        body = source.read_bytes()
        for number in range(1, args.uploads + 1):
            client.json(
                "PUT",
                f"/api/v1/datasets/{dataset['id']}/file",
                body + f"{10**9 + number},{number},Oslo,note 1,2024-01-01,true\n".encode(),
                headers={"Content-Type": "text/csv"},
            )
            answered = time.perf_counter()
            url = f"/api/v1/datasets/{dataset['id']}/versions/{number}/checks"
            while (state := client.json("GET", url)["state"]) == "pending":
                time.sleep(0.01)
            waits.append(time.perf_counter() - answered)
            assert state == "published", client.json("GET", url)["results"]
    print(
        f"\nA {len(body) / 2**20:.0f} MB upload to a dataset with the ten checks, from the "
        f"upload's answer to published ({args.uploads} uploads): median "
        f"{statistics.median(waits):.2f} s, worst {max(waits):.2f} s (target ≤ 1 s)"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--memory-limit", default="512MB")
    parser.add_argument("--uploads", type=int, default=10)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        temp_dir = str(folder / "spill")
        Path(temp_dir).mkdir()
        bench_ratio(args, write_files(folder, args.rows), temp_dir)
        if args.uploads:
            bench_publish(args, folder)


if __name__ == "__main__":
    main()
