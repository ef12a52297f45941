"""SQL console benchmark (``POST /api/v1/query``), against the service under gunicorn (2 web
workers, SQLite in a temporary instance folder), all in one run:

1. a filter + aggregate over a 2,000,000-row CSV through the API, end to end (HTTP and the
   job process included), against DuckDB alone on the same file read as the service reads
   it, with the same threads and memory limit: the ratio of their medians;
2. small queries (a 1,000-row dataset) from 4 clients at once, each a user of its own:
   p50 and p99;
3. a memory bomb and a cross join sent again and again, while a probe measures /healthz:
   its p99 against the same probe with nothing else running, and how each bomb ended.

    python -m bench.query                       # ~2 minutes
    python -m bench.query --rows 200000 --rounds 3 --small 100    # a quick check

See bench/README.rst ("SQL console").
"""

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import pipelines  # noqa: E402
from bench.isolation import Probe, p99  # noqa: E402
from bench.pipelines import Client, Service, engine_settings, say  # noqa: E402
from datahub.datasets import tabular  # noqa: E402

AGGREGATE = (
    "SELECT city, count(*) AS n, sum(quantity) AS quantity, avg(CAST(amount AS DOUBLE)) AS "
    "amount FROM {table} WHERE quantity > 10 AND day >= DATE '2024-06-01' GROUP BY city "
    "ORDER BY city"
)
SMALL = "SELECT city, count(*) AS n, max(quantity) AS q FROM small GROUP BY city ORDER BY n DESC"
BOMBS = {
    "memory bomb": "SELECT list(range) AS l FROM range(400000000)",
    "cross join": "SELECT count(*) FROM range(200000) a, range(200000) b WHERE a.range < b.range",
}
PASSWORD = "bench query password"


def upload(client, path, name):
    dataset = client.json("POST", "/api/v1/datasets/", {"name": name}, expect=201)
    client.json(
        "PUT",
        f"/api/v1/datasets/{dataset['id']}/file?filename={path.name}",
        path.read_bytes(),
        headers={"Content-Type": "text/csv"},
    )
    return dataset


def through_api(client, sql):
    started = time.perf_counter()
    answer = client.json("POST", "/api/v1/query", {"sql": sql})
    return time.perf_counter() - started, answer["rows"]


def duckdb_alone(path, sql, args):
    """Seconds DuckDB alone takes for ``sql`` over the file, read as the service reads it
    (the same read_csv options), with the same threads and memory limit; and its rows."""
    import duckdb

    source, params = tabular.source_sql(str(path), "csv", 4 * 2**20, 10000)
    config = {"memory_limit": args.memory_limit, "threads": args.threads}
    started = time.perf_counter()
    with duckdb.connect(":memory:", config=config) as con:
        rows = con.execute(
            f"WITH big AS (SELECT * FROM {source}) " + sql.format(table="big"), params
        ).fetchall()
    return time.perf_counter() - started, [list(row) for row in rows]


def large(service, path, args):
    through_api(service.client, AGGREGATE.format(table='"bench sales"'))  # warm the page cache
    duckdb_alone(path, AGGREGATE, args)
    api, alone = [], []
    for _ in range(args.rounds):  # alternated: both see the same machine
        seconds, api_rows = through_api(service.client, AGGREGATE.format(table='"bench sales"'))
        api.append(seconds)
        seconds, alone_rows = duckdb_alone(path, AGGREGATE, args)
        alone.append(seconds)
    assert len(api_rows) == len(alone_rows) == 20, (api_rows, alone_rows)
    ratio = statistics.median(alone) / statistics.median(api)
    say(
        f"filter + aggregate, {args.rows:,} rows: API median {statistics.median(api):.3f} s, "
        f"DuckDB alone {statistics.median(alone):.3f} s: {ratio:.2f}x of DuckDB alone "
        "(target >= 0.8x)"
    )
    return ratio


def clients_of(service, count, prefix):
    """``count`` logged-in clients, each a user of its own (a user's queries are bounded)."""
    clients = []
    for number in range(count):
        email = f"{prefix}{number}@example.com"
        service.client.json(
            "POST",
            "/api/v1/users/",
            {"email": email, "password": PASSWORD, "roles": ["viewer"]},
            expect=201,
        )
        client = Client(service.port)
        login = client.json("POST", "/api/v1/auth/login", {"email": email, "password": PASSWORD})
        client.headers["Authorization"] = f"Bearer {login['access_token']}"
        clients.append(client)
    return clients


def small(service, args):
    clients = clients_of(service, 4, "query")
    for client in clients:
        through_api(client, SMALL)
    samples, lock = [], threading.Lock()

    def work(client):
        for _ in range(args.small):
            seconds, rows = through_api(client, SMALL)
            assert len(rows) == 20
            with lock:
                samples.append(seconds)

    threads = [threading.Thread(target=work, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cuts = statistics.quantiles(samples, n=100)
    say(
        f"small query (1,000 rows), 4 clients, {len(samples)} queries: p50 "
        f"{cuts[49] * 1000:.0f} ms, p99 {cuts[98] * 1000:.0f} ms (targets 100 / 300 ms)"
    )
    return cuts[49], cuts[98]


def hostile(service, args):
    probe = Probe(service.port, "/healthz", {}, 0.02)
    probe.start()
    probe.phase = "idle"
    time.sleep(args.probe_seconds)
    probe.phase = "attack"
    outcomes, stop = [], threading.Event()

    def attacker(sql, client):
        while not stop.is_set():
            started = time.perf_counter()
            status, body = client.request("POST", "/api/v1/query", {"sql": sql}, timeout=120)
            outcomes.append((sql, status, body[:60], time.perf_counter() - started))

    users = clients_of(service, len(BOMBS), "attacker")
    attackers = [
        threading.Thread(target=attacker, args=(sql, client))
        for sql, client in zip(BOMBS.values(), users, strict=True)
    ]
    for thread in attackers:
        thread.start()
    time.sleep(args.attack_seconds)
    stop.set()
    for thread in attackers:
        thread.join()
    probe.phase = None
    probe.done.set()
    idle, attack = p99(probe.samples["idle"]), p99(probe.samples["attack"])
    for name, sql in BOMBS.items():
        ended = [(status, body, seconds) for text, status, body, seconds in outcomes if text == sql]
        kinds = sorted({f"{status} {body.decode(errors='replace')}" for status, body, _ in ended})
        worst = max(seconds for _, _, seconds in ended)
        say(f"{name}: {len(ended)} sent, ended as {kinds}, slowest {worst:.1f} s")
    say(
        f"/healthz p99 idle {idle * 1000:.1f} ms, under the bombs {attack * 1000:.1f} ms: "
        f"{attack / idle:.2f}x (target <= 2x); {probe.errors} probe errors"
    )
    return attack / idle


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--small", type=int, default=200, help="queries per small client")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--memory-limit", default="512MB")
    parser.add_argument("--probe-seconds", type=float, default=5)
    parser.add_argument("--attack-seconds", type=float, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-query-") as folder:
        folder = Path(folder)
        path = folder / "sales.csv"
        pipelines.generate_csv(path, args.rows)
        small_path = folder / "small.csv"
        pipelines.generate_csv(small_path, 1000)
        settings = engine_settings(args.memory_limit, args.threads, folder, 2**31, 600)
        settings["DATAHUB_QUERY_TIMEOUT_SECONDS"] = "10"
        with Service(ROOT, folder / "instance", settings, "datahub", workers=2) as service:
            upload(service.client, path, "bench sales")
            upload(service.client, small_path, "small")
            large(service, path, args)
            small(service, args)
            hostile(service, args)


if __name__ == "__main__":
    main()
