"""Isolation benchmark: memory bounds, latency under hostile jobs, and the cost of a
process per job (issue 23), against the service under gunicorn (2 web workers and the
pipeline worker process its master supervises; SQLite in a temporary instance folder).

    python -m bench.isolation                       # everything (a few minutes)
    python -m bench.isolation --skip-sort --small-runs 5 --rounds 1   # a quick check

See bench/README.rst ("Isolation").
"""

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import pipelines, proctree  # noqa: E402
from bench.pipelines import Client, RunFailed, Service, fmt_s, mib, parse_size, say  # noqa: E402

MEMORY_BOMB = "SELECT len(generate_series(1, 60000000)) AS n FROM input"
CROSS_JOIN = (
    "SELECT count(*) AS n FROM (SELECT unnest(generate_series(1, 40000)) AS a FROM "
    "input) x, (SELECT unnest(generate_series(1, 40000)) AS b FROM input) y "
    "WHERE (a * b) % 7 = 3"
)
ATTACKERS = 5
PREVIEWS = 4


def preview_bomb(path, rows=1000, chars=10_000_000):
    """A Parquet file of ``rows`` rows of one ``chars``-character string (zstd): a few KB
    on disk, ``rows * chars`` bytes once read. One constant string, dictionary-encoded, so
    DuckDB writes it without materialising the rows."""
    import duckdb

    with duckdb.connect() as con:
        con.execute(
            f"COPY (SELECT i, repeat('x', {chars}) AS s FROM range({rows}) t(i)) TO "
            f"{pipelines.sql_string(path)} (FORMAT parquet, COMPRESSION zstd)"
        )
    return path


def upload(client, path, name, content_type):
    dataset = client.json("POST", "/api/v1/datasets/", {"name": name}, expect=201)
    return client.json(
        "PUT",
        f"/api/v1/datasets/{dataset['id']}/file?filename={path.name}",
        path.read_bytes(),
        headers={"Content-Type": content_type},
    )


def pipeline(client, dataset_id, name, steps):
    return client.json(
        "POST",
        "/api/v1/pipelines/",
        {
            "name": name,
            "source_dataset_id": dataset_id,
            "steps": steps,
            "output_dataset_name": f"{name} out",
        },
        expect=201,
    )["id"]


def wait_run(client, pipeline_id, run, stop=None, poll=0.1):
    path = f"/api/v1/pipelines/{pipeline_id}/runs/{run['id']}"
    while run["status"] in ("queued", "running"):
        if stop is not None and stop.is_set():
            client.json("POST", f"{path}/cancel")
        time.sleep(poll)
        run = client.json("GET", path)
    return run


def attackers(service, scratch, count):
    """``count`` editor users, each with a 1-row CSV and two hostile pipelines."""
    source = scratch / "one-row.csv"
    source.write_text("id,name\n1,one\n")
    users = []
    for number in range(count):
        email = f"attacker{number}@example.com"
        service.client.json(
            "POST",
            "/api/v1/users/",
            {
                "email": email,
                "password": pipelines.PASSWORD,
                "name": f"Attacker {number}",
                "roles": ["editor"],
            },
            expect=201,
        )
        client = Client(service.port)
        token = client.json(
            "POST", "/api/v1/auth/login", {"email": email, "password": pipelines.PASSWORD}
        )["access_token"]
        client.headers["Authorization"] = f"Bearer {token}"
        dataset = upload(client, source, f"attacker {number} source", "text/csv")
        users.append(
            (
                client,
                [
                    pipeline(
                        client,
                        dataset["id"],
                        f"memory bomb {number}",
                        [{"op": "sql", "query": MEMORY_BOMB}],
                    ),
                    pipeline(
                        client,
                        dataset["id"],
                        f"cross join {number}",
                        [{"op": "sql", "query": CROSS_JOIN}],
                    ),
                ],
            )
        )
    return users


def budget_rows(report, name, sampler, budget_kib, outcome, ok_outcome):
    peak, pid, role = sampler.largest()
    say(f"{name}: {outcome}; {sampler.summary()}")
    report(
        f"{name}: peak RSS of the largest process",
        f"{mib(peak * 1024)} ({role})",
        mib(budget_kib * 1024),
        f"{peak / budget_kib:.2f}x of budget",
        f"<= limit + slack ({outcome})",
        peak <= budget_kib and ok_outcome,
    )
    growth = sampler.web_growth_kib()
    report(
        f"{name}: web workers' RSS growth",
        mib(growth * 1024),
        "50 MiB",
        f"{growth / 51200:.2f}x",
        "<= 50 MiB",
        growth <= 51200,
    )


def bench_memory(args, service, users, bomb_id, report):
    budget_kib = (parse_size(args.memory_limit) + parse_size(args.slack)) // 1024
    client, (bomb, _) = users[0]
    master = service.process.pid
    with proctree.TreeSampler(master) as sampler:
        run = wait_run(
            client, bomb, client.json("POST", f"/api/v1/pipelines/{bomb}/runs", expect=201)
        )
    budget_rows(
        report,
        "memory bomb (generate_series of 60M)",
        sampler,
        budget_kib,
        f"run {run['status']}: {run.get('error')}",
        run["status"] == "failed",
    )
    statuses = []

    def preview():
        status, data = Client(service.port).request(
            "GET", f"/api/v1/datasets/{bomb_id}/preview?limit=40", headers=service.client.headers
        )
        statuses.append((status, data[:200].decode(errors="replace")))

    with proctree.TreeSampler(master) as sampler:
        threads = [threading.Thread(target=preview) for _ in range(PREVIEWS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    answered = all(status in (200, 422) for status, _ in statuses)
    budget_rows(
        report,
        f"preview bomb ({PREVIEWS} at once, limit=40)",
        sampler,
        budget_kib,
        "answers " + ", ".join(str(status) for status, _ in statuses),
        answered,
    )
    if args.skip_sort:
        return
    limit = parse_size(args.memory_limit)
    rows = args.sort_rows or pipelines.rows_for_size(limit * args.sort_factor)
    source, _ = pipelines.cached_csv(args.cache, rows)
    dataset = service.upload(source, "sort source")
    sort = service.create_pipeline("sort", dataset["id"], pipelines.MEMCHECK_STEPS, "sort out")[
        "id"
    ]
    time.sleep(1)
    with proctree.TreeSampler(master) as sampler:
        try:
            seconds, run = service.run(sort, 0.05, args.run_timeout)
            outcome = f"succeeded in {fmt_s(seconds)}"
        except RunFailed as exc:
            run, outcome = exc.run, f"FAILED: {exc.run.get('error')}"
    budget_rows(
        report,
        f"sort of {mib(source.stat().st_size)} ({args.sort_factor:g}x limit)",
        sampler,
        budget_kib,
        outcome,
        run["status"] == "succeeded",
    )


class Probe(threading.Thread):
    """Requests ``path`` one after another, ``interval`` apart; latencies while ``on``."""

    def __init__(self, port, path, headers, interval):
        super().__init__(daemon=True)
        self.client, self.path, self.interval = Client(port), path, interval
        self.client.headers.update(headers)
        self.samples, self.errors = {"idle": [], "attack": []}, 0
        self.phase, self.done = None, threading.Event()

    def run(self):
        while not self.done.is_set():
            phase = self.phase
            start = time.perf_counter()
            try:
                status, _ = self.client.request("GET", self.path, timeout=30)
            except OSError:
                status = None
                self.client.close()
            seconds = time.perf_counter() - start
            if phase is not None:
                if status == 200:
                    self.samples[phase].append(seconds)
                else:
                    self.errors += 1
            time.sleep(self.interval)


def p99(values):
    return statistics.quantiles(values, n=100)[98] if len(values) >= 2 else float("nan")


def attack(service, users, bomb_id, seconds):
    """Hostile runs (each attacker in turn a memory bomb, a cross join) and previews of
    the bomb, kept going for ``seconds``; then cancelled and waited for. Outcomes."""
    stop, outcomes = threading.Event(), []

    def runs(client, ids):
        for number in range(10**6):
            if stop.is_set():
                return
            pipeline_id = ids[number % 2]
            run = client.json("POST", f"/api/v1/pipelines/{pipeline_id}/runs", expect=201)
            outcomes.append(wait_run(client, pipeline_id, run, stop)["status"])

    def previews():
        client = Client(service.port)
        client.headers.update(service.client.headers)
        while not stop.is_set():
            status, _ = client.request("GET", f"/api/v1/datasets/{bomb_id}/preview?limit=40")
            outcomes.append(f"preview {status}")

    threads = [threading.Thread(target=runs, args=user) for user in users]
    threads += [threading.Thread(target=previews) for _ in range(PREVIEWS)]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    return outcomes


def bench_latency(args, service, users, bomb_id, report):
    probes = {
        "/healthz": Probe(service.port, "/healthz", {}, args.probe_interval),
        "/api/v1/auth/me": Probe(
            service.port, "/api/v1/auth/me", service.client.headers, args.probe_interval
        ),
    }
    for probe in probes.values():
        probe.start()
    outcomes = []
    try:
        for number in range(1, args.rounds + 1):
            for probe in probes.values():
                probe.phase = "idle"
            time.sleep(args.attack_seconds)
            for probe in probes.values():
                probe.phase = "attack"
            outcomes += attack(service, users, bomb_id, args.attack_seconds)
            for probe in probes.values():
                probe.phase = None
            say(
                f"latency round {number}: "
                + "; ".join(
                    f"{path} p99 idle {fmt_s(p99(p.samples['idle']))}, under attack "
                    f"{fmt_s(p99(p.samples['attack']))}"
                    for path, p in probes.items()
                )
            )
            time.sleep(2)  # the cancelled runs' processes go
    finally:
        for probe in probes.values():
            probe.done.set()
    counts = {outcome: outcomes.count(outcome) for outcome in sorted(set(outcomes))}
    say("hostile jobs: " + ", ".join(f"{n} {outcome}" for outcome, n in counts.items()))
    for path, probe in probes.items():
        idle, loaded = p99(probe.samples["idle"]), p99(probe.samples["attack"])
        report(
            f"GET {path} p99 under attack vs idle ({len(probe.samples['attack'])} / "
            f"{len(probe.samples['idle'])} requests, {probe.errors} failed)",
            fmt_s(loaded),
            fmt_s(idle),
            f"{loaded / idle:.2f}x",
            "<= 2x",
            loaded / idle <= 2 and probe.errors == 0,
        )


def bench_small_runs(args, scratch, settings, service, report):
    """A 5-row CSV, one select step: POST .../runs to succeeded, here and in ``--old``."""
    source = scratch / "five.csv"
    source.write_text("id,name,n\n" + "".join(f"{i},row {i},{i * 7}\n" for i in range(1, 6)))
    old_root = pipelines.old_engine_tree(args.old, scratch / "old-source")
    with Service(old_root, scratch / "instance-old", settings, f"old {args.old}") as old:
        ids = {}
        for side in (service, old):
            dataset = side.upload(source, "five rows")
            ids[side.label] = side.create_pipeline(
                "small", dataset["id"], [{"op": "select", "columns": ["id", "n"]}], "small out"
            )["id"]
        times = {service.label: [], old.label: []}
        for number in range(args.small_runs + 1):  # the first of each: a warm-up
            for side in (service, old) if number % 2 else (old, service):
                seconds, _ = side.run(ids[side.label], 0.01, args.run_timeout)
                if number:
                    times[side.label].append(seconds)
    ours, before = (statistics.median(times[label]) for label in (service.label, old.label))
    say(
        f"small runs: ours {', '.join(fmt_s(s) for s in times[service.label])}; "
        f"{args.old} {', '.join(fmt_s(s) for s in times[old.label])}"
    )
    report(
        f"small run (5 rows, select), POST to succeeded, median of {args.small_runs}, "
        f"vs {args.old}",
        fmt_s(ours),
        fmt_s(before),
        f"+{ours - before:.3f} s",
        f"<= +{args.cost_target:g} s",
        ours <= before + args.cost_target,
    )


def run_benchmark(args, report):
    with contextlib.ExitStack() as stack:
        scratch = Path(
            stack.enter_context(
                tempfile.TemporaryDirectory(prefix="datahub-bench-isolation-", dir=args.scratch)
            )
        )
        (scratch / "spill").mkdir()
        settings = pipelines.engine_settings(
            args.memory_limit, None, scratch / "spill", 2 * 10**9, args.run_timeout
        )
        settings["DATAHUB_PIPELINE_CONCURRENCY"] = str(args.concurrency)
        settings["DATAHUB_PIPELINE_TIMEOUT_SECONDS"] = str(args.job_timeout)
        service = stack.enter_context(
            Service(ROOT, scratch / "instance", settings, "isolation", workers=2)
        )
        users = attackers(service, scratch, ATTACKERS)
        bomb = upload(
            service.client,
            preview_bomb(scratch / "bomb.parquet"),
            "preview bomb",
            "application/octet-stream",
        )
        say(f"preview bomb: {bomb['file']['size_bytes']:,} bytes of Parquet")
        if "memory" in args.parts:
            bench_memory(args, service, users, bomb["id"], report)
        if "latency" in args.parts:
            bench_latency(args, service, users, bomb["id"], report)
        if "cost" in args.parts:
            bench_small_runs(args, scratch, settings, service, report)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m bench.isolation",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--parts",
        default="memory,latency,cost",
        type=lambda text: set(text.split(",")),
        help="memory (bombs and the sort), latency, cost (small runs)",
    )
    parser.add_argument("--memory-limit", default="256MB", help="PIPELINE_MEMORY_LIMIT")
    parser.add_argument(
        "--slack", default="150MB", help="a process's peak RSS may pass the limit by this much"
    )
    parser.add_argument(
        "--sort-factor",
        type=float,
        default=4.0,
        help="the sort's CSV is about this many times the limit",
    )
    parser.add_argument("--sort-rows", type=int, default=None, help="or this many rows")
    parser.add_argument("--skip-sort", action="store_true")
    parser.add_argument("--concurrency", type=int, default=2, help="PIPELINE_CONCURRENCY")
    parser.add_argument(
        "--job-timeout",
        type=int,
        default=300,
        help="PIPELINE_TIMEOUT_SECONDS (the attack's runs are cancelled at the "
        "end of each attack phase)",
    )
    parser.add_argument("--run-timeout", type=int, default=600, help="ours, per run")
    parser.add_argument("--rounds", type=int, default=2, help="idle/attack rounds")
    parser.add_argument(
        "--attack-seconds", type=float, default=10, help="length of each idle and each attack phase"
    )
    parser.add_argument("--probe-interval", type=float, default=0.02)
    parser.add_argument("--small-runs", type=int, default=20)
    parser.add_argument("--old", default="ffbd1df", help="the revision before isolation")
    parser.add_argument("--cost-target", type=float, default=0.3, help="seconds more at most")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "datahub-bench-cache",
        help="generated CSVs, kept between runs",
    )
    parser.add_argument("--scratch", default=None, help="parent of the temporary folders")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    return pipelines.run_reported(
        lambda report: run_benchmark(args, report),
        lambda: f"{json.dumps(args.memory_limit)} limit, concurrency {args.concurrency}",
    )


if __name__ == "__main__":
    sys.exit(main())
