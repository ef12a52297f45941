"""datahub benchmarks: ratios against baselines measured side by side in the same run.

    python bench/run.py                    # SQLite
    python bench/run.py --database-url postgresql://postgres@127.0.0.1:5432/bench

Each case prints what it measured and the ratio to its baseline; see bench/README.rst.
"""

import argparse
import contextlib
import http.client
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import slow  # noqa: E402

EMAIL, PASSWORD = "bench@example.com", "bench-password-1"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A gunicorn process with the bench settings, serving ``wsgi``."""

    def __init__(self, wsgi, env, workers):
        self.port = free_port()
        self.env = {
            **os.environ,
            **env,
            "BENCH_BIND": f"127.0.0.1:{self.port}",
            "BENCH_WORKERS": str(workers),
        }
        self.wsgi = wsgi
        self.process = None

    def __enter__(self):
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                str(ROOT / "bench/gunicorn_bench.conf.py"),
                self.wsgi,
            ],
            cwd=ROOT,
            env=self.env,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{self.wsgi} did not start")

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=30)

    def request(self, method, path, body=None, headers=None):
        return _request(self.port, method, path, body, headers)


def _request(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    payload = json.dumps(body).encode() if body is not None else None
    conn.request(
        method, path, body=payload, headers={"Content-Type": "application/json", **(headers or {})}
    )
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data, response


def wrk_output(port, path, headers, seconds, connections, threads=2):
    """What wrk (Debian's package) prints, ``--latency`` included; raises on any non-2xx."""
    args = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for key, value in headers.items():
        args += ["-H", f"{key}: {value}"]
    out = subprocess.run(
        args + [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True
    ).stdout
    if "Non-2xx" in out:
        raise RuntimeError(f"wrk saw errors:\n{out}")
    return out


def wrk(port, path, headers, seconds, connections, threads=2):
    """Requests per second from wrk."""
    out = wrk_output(port, path, headers, seconds, connections, threads)
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def datahub_env(instance, database_url, rounds):
    env = {
        "DATAHUB_INSTANCE_PATH": str(instance),
        "DATAHUB_BCRYPT_ROUNDS": str(rounds),
        "DATAHUB_JWT_COOKIE_SECURE": "false",
        # Rate limiting stays on, as deployed (its per-request cost is part of what /me
        # measures); only the login limits are raised: the login case logs in many times.
        "DATAHUB_RATE_LIMIT_LOGIN_PER_EMAIL": "1000000/minute",
        "DATAHUB_RATE_LIMIT_LOGIN_PER_ADDRESS": "1000000/minute",
    }
    if database_url:
        env["DATAHUB_SQLALCHEMY_DATABASE_URI"] = database_url
    return env


def prepare_datahub(env):
    """Migrate, and create the bench user (in-process, before any server starts)."""
    os.environ.update(env)
    import flask_migrate

    from datahub import create_app
    from datahub.app.extensions import db
    from datahub.identity.users import services

    app = create_app()
    with app.app_context():
        if app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
            db.session.execute(db.text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
            db.session.commit()
        flask_migrate.upgrade()
        if services.find_by_email(EMAIL) is None:
            services.create_user(email=EMAIL, password=PASSWORD, name="Bench", roles=["editor"])
        db.engine.dispose()
    return app


def median_rate(measure, rounds):
    return statistics.median(measure() for _ in range(rounds))


def bench_me(args, env, report):
    """GET /auth/me against the bare-Flask ceiling with a body of the same size."""
    with Server("wsgi:app", env, args.workers) as datahub:
        status, body, _ = datahub.request(
            "POST", "/api/v1/auth/login", {"email": EMAIL, "password": PASSWORD}
        )
        assert status == 200, body
        headers = {"Authorization": f"Bearer {json.loads(body)['access_token']}"}
        status, me_body, _ = datahub.request("GET", "/api/v1/auth/me", headers=headers)
        assert status == 200, me_body
        ceiling_env = {"CEILING_BODY": me_body.decode()}
        with Server("bench.ceiling_app:app", ceiling_env, args.workers) as ceiling:
            rates = {"datahub": [], "ceiling": []}
            for _ in range(args.rounds):  # interleaved, so drift hits both alike
                rates["ceiling"].append(
                    wrk(ceiling.port, "/api/v1/auth/me", headers, args.seconds, args.connections)
                )
                rates["datahub"].append(
                    wrk(datahub.port, "/api/v1/auth/me", headers, args.seconds, args.connections)
                )
    ours, ceiling_rate = statistics.median(rates["datahub"]), statistics.median(rates["ceiling"])
    report(
        "GET /auth/me req/s vs bare Flask",
        f"{ours:.0f}",
        f"{ceiling_rate:.0f}",
        ours / ceiling_rate,
        ">= 0.6",
        ours / ceiling_rate >= 0.6,
    )


def bench_login(args, env, report):
    """Login p50 against one bcrypt.checkpw at the configured cost."""
    import bcrypt

    rounds = int(env["DATAHUB_BCRYPT_ROUNDS"])
    hashed = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(rounds))
    with Server("wsgi:app", env, args.workers) as datahub:
        logins, checks = [], []
        for _ in range(args.login_samples):
            start = time.perf_counter()
            bcrypt.checkpw(PASSWORD.encode(), hashed)
            checks.append(time.perf_counter() - start)
            start = time.perf_counter()
            status, body, _ = datahub.request(
                "POST", "/api/v1/auth/login", {"email": EMAIL, "password": PASSWORD}
            )
            logins.append(time.perf_counter() - start)
            assert status == 200, body
    ours, base = statistics.median(logins), statistics.median(checks)
    report(
        f"login p50 vs bcrypt.checkpw (cost {rounds})",
        f"{ours * 1000:.1f} ms",
        f"{base * 1000:.1f} ms",
        ours / base,
        "<= 1.1",
        ours / base <= 1.1,
    )


def _seed_datasets(env, count):
    """Insert ``count`` datasets owned by the bench user, in bulk (not through the API)."""
    import sqlalchemy as sa

    from datahub import create_app
    from datahub.app.extensions import db
    from datahub.datasets.models import Dataset
    from datahub.identity.users import services
    from datahub.platform.database import utcnow

    os.environ.update(env)
    app = create_app()
    with app.app_context():
        owner = services.find_by_email(EMAIL).id
        db.session.execute(sa.delete(Dataset))
        now = utcnow()
        if count:  # one INSERT ... SELECT over a recursive CTE: 1..count
            series = sa.select(sa.literal(1).label("i")).cte("series", recursive=True)
            series = series.union_all(sa.select(series.c.i + 1).where(series.c.i < count))
            name = sa.literal("dataset ").concat(sa.cast(series.c.i, sa.String))
            stamp = sa.bindparam("now", now, type_=Dataset.created_at.type)
            db.session.execute(
                sa.insert(Dataset).from_select(
                    ["name", "name_key", "description", "owner_id", "created_at", "updated_at"],
                    sa.select(name, name, sa.literal(""), sa.literal(owner), stamp, stamp),
                )
            )
        db.session.commit()
        db.engine.dispose()


def bench_list(args, env, report):
    """GET /datasets/?limit=20 p50 with 100,000 datasets against 100 (the same query)."""

    def p50_for(count):
        _seed_datasets(env, count)
        with Server("wsgi:app", env, args.workers) as datahub:
            status, body, _ = datahub.request(
                "POST", "/api/v1/auth/login", {"email": EMAIL, "password": PASSWORD}
            )
            headers = {"Authorization": f"Bearer {json.loads(body)['access_token']}"}
            samples = []
            for i in range(args.list_samples):
                path = f"/api/v1/datasets/?limit=20&offset={(i * 20) % 80}"
                start = time.perf_counter()
                status, body, _ = datahub.request("GET", path, headers=headers)
                samples.append(time.perf_counter() - start)
                assert status == 200 and json.loads(body)["total"] == count, body[:200]
            return statistics.median(samples)

    small, large = p50_for(100), p50_for(100_000)
    _seed_datasets(env, 0)
    report(
        "GET /datasets/?limit=20 p50, 100k vs 100 rows",
        f"{large * 1000:.2f} ms",
        f"{small * 1000:.2f} ms",
        large / small,
        "<= 1.5",
        large / small <= 1.5,
    )


def _rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith("VmRSS")).split()[1])


def _worker_pids(master_pid):
    children = Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    return [int(pid) for pid in children]


def _copy_seconds(source, target):
    """``cp`` as the baseline: an in-kernel copy (``copyfile`` uses ``sendfile``), made
    durable with ``fsync`` as an upload is."""
    start = time.perf_counter()
    shutil.copyfile(source, target)
    fd = os.open(target, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    seconds = time.perf_counter() - start
    os.unlink(target)
    return seconds


class PeakRss:
    """A thread sampling a process's RSS every 50 ms; ``growth_mib`` over the start."""

    def __init__(self, pid):
        self.pid, self.start_kib = pid, _rss_kib(pid)
        self.peak_kib, self.running = self.start_kib, True
        self.thread = threading.Thread(target=self._sample)

    def _sample(self):
        while self.running:
            self.peak_kib = max(self.peak_kib, _rss_kib(self.pid))
            time.sleep(0.05)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        self.thread.join()

    @property
    def growth_mib(self):
        return (self.peak_kib - self.start_kib) / 1024


def _upload_seconds(port, path, source, size, headers, content_type="application/octet-stream"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3600, blocksize=1024 * 1024)
    start = time.perf_counter()
    with open(source, "rb") as body_file:
        conn.request(
            "PUT",
            path,
            body=body_file,
            headers={**headers, "Content-Type": content_type, "Content-Length": str(size)},
        )
        response = conn.getresponse()
        response.read()
    seconds = time.perf_counter() - start
    conn.close()
    assert response.status == 200, response.status
    return seconds


def _download_seconds(port, path, size, headers):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    start = time.perf_counter()
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    received = 0
    while chunk := response.read(1024 * 1024):
        received += len(chunk)
    seconds = time.perf_counter() - start
    conn.close()
    assert received == size
    return seconds


def bench_files(args, env, report):
    """Upload and download of a large file against ``cp`` of the same file, in interleaved
    rounds (medians), and the worker's peak RSS growth meanwhile (one worker, so it is the
    one serving)."""
    size = args.file_mib * 1024 * 1024
    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        source, copy = Path(scratch) / "source.bin", Path(scratch) / "copy.bin"
        with open(source, "wb") as out:
            block = os.urandom(1024 * 1024)
            for _ in range(args.file_mib):
                out.write(block)
        os.sync()  # the source's own writeback must not land in any measurement

        file_env = {**env, "DATAHUB_MAX_CONTENT_LENGTH": str(size + 1)}
        with Server("wsgi:app", file_env, 1) as datahub:
            status, body, _ = datahub.request(
                "POST", "/api/v1/auth/login", {"email": EMAIL, "password": PASSWORD}
            )
            headers = {"Authorization": f"Bearer {json.loads(body)['access_token']}"}
            status, body, _ = datahub.request(
                "POST", "/api/v1/datasets/", {"name": "big file"}, headers=headers
            )
            assert status == 201, body
            file_path = f"/api/v1/datasets/{json.loads(body)['id']}/file"
            (worker,) = _worker_pids(datahub.process.pid)
            times = {"cp": [], "upload": [], "download": []}
            with PeakRss(worker) as rss:
                for _ in range(args.rounds):
                    times["cp"].append(_copy_seconds(source, copy))
                    times["upload"].append(
                        _upload_seconds(
                            datahub.port, file_path + "?filename=big.bin", source, size, headers
                        )
                    )
                    times["download"].append(
                        _download_seconds(datahub.port, file_path, size, headers)
                    )
                    os.sync()  # each round starts with nothing left to write back
    cp, upload, download = (statistics.median(times[k]) for k in ("cp", "upload", "download"))

    def mib_s(seconds):
        return f"{size / seconds / 2**20:.0f} MiB/s"

    report(
        f"upload {args.file_mib} MiB, throughput vs cp",
        mib_s(upload),
        mib_s(cp),
        cp / upload,
        ">= 0.5",
        cp / upload >= 0.5,
    )
    report(
        f"download {args.file_mib} MiB, throughput vs cp",
        mib_s(download),
        mib_s(cp),
        cp / download,
        ">= 0.5",
        cp / download >= 0.5,
    )
    report(
        "worker peak RSS growth during both",
        f"{rss.growth_mib:.1f} MiB",
        "50 MiB",
        rss.growth_mib / 50,
        "< 1.0",
        rss.growth_mib < 50,
    )


def _write_csv(path, mib):
    """A CSV of about ``mib`` MiB: id, city, temp, note."""
    cities = ["Oslo", "Bergen", "Trondheim", "Stavanger", "Tromso"]
    row_count = 0
    with open(path, "w", newline="") as out:
        out.write("id,city,temp,note\n")
        target = mib * 1024 * 1024
        written = 0
        block = []
        while written < target:
            for _ in range(10000):
                row_count += 1
                block.append(
                    f"{row_count},{cities[row_count % 5]},{row_count % 41 - 10},"
                    f"reading number {row_count} of the bench\n"
                )
            text = "".join(block)
            out.write(text)
            written += len(text)
            block.clear()
    return row_count


def _baseline_rows_per_second(path):
    """The same filter + select with the csv module alone, in this process."""
    import csv

    start = time.perf_counter()
    rows = 0
    with open(path, newline="") as src, open(os.devnull, "w", newline="") as sink:
        reader, writer = csv.reader(src), csv.writer(sink)
        header = next(reader)
        city, temp = header.index("city"), header.index("temp")
        writer.writerow(["city", "temp"])
        for row in reader:
            rows += 1
            if row[city] == "Oslo":
                writer.writerow([row[city], row[temp]])
    return rows / (time.perf_counter() - start)


def bench_pipeline(args, env, report):
    """A pipeline run (filter + select) over a large CSV: rows/s against the csv module
    alone, and the web worker's peak RSS growth (one web worker; the run executes in the
    pipeline worker process gunicorn's master supervises, BENCH_PIPELINE_WORKER)."""
    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        source = Path(scratch) / "readings.csv"
        rows = _write_csv(source, args.csv_mib)
        size = source.stat().st_size
        baseline = _baseline_rows_per_second(source)
        run_env = {
            **env,
            "DATAHUB_MAX_CONTENT_LENGTH": str(size + 1),
            "DATAHUB_PIPELINE_EMBEDDED_WORKER": "true",
            "BENCH_PIPELINE_WORKER": "1",
        }
        with Server("wsgi:app", run_env, 1) as datahub:
            status, body, _ = datahub.request(
                "POST", "/api/v1/auth/login", {"email": EMAIL, "password": PASSWORD}
            )
            headers = {"Authorization": f"Bearer {json.loads(body)['access_token']}"}
            status, body, _ = datahub.request(
                "POST", "/api/v1/datasets/", {"name": "readings"}, headers=headers
            )
            dataset_id = json.loads(body)["id"]
            _upload_seconds(
                datahub.port,
                f"/api/v1/datasets/{dataset_id}/file?filename=r.csv",
                source,
                size,
                headers,
                content_type="text/csv",
            )
            status, body, _ = datahub.request(
                "POST",
                "/api/v1/pipelines/",
                {
                    "name": "oslo readings",
                    "source_dataset_id": dataset_id,
                    "output_dataset_name": "oslo readings out",
                    "steps": [
                        {"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"},
                        {"op": "select", "columns": ["city", "temp"]},
                    ],
                },
                headers=headers,
            )
            assert status == 201, body
            pipeline_id = json.loads(body)["id"]
            from bench.proctree import web_workers

            (worker,) = web_workers(datahub.process.pid)
            with PeakRss(worker) as rss:
                status, body, _ = datahub.request(
                    "POST", f"/api/v1/pipelines/{pipeline_id}/runs", headers=headers
                )
                assert status == 201, body
                run = json.loads(body)
                while run["status"] in ("queued", "running"):
                    time.sleep(0.2)
                    status, body, _ = datahub.request(
                        "GET", f"/api/v1/pipelines/{pipeline_id}/runs/{run['id']}", headers=headers
                    )
                    run = json.loads(body)
            assert run["status"] == "succeeded" and run["rows_in"] == rows, run
    started = datetime.fromisoformat(run["started_at"].replace("Z", "+00:00"))
    finished = datetime.fromisoformat(run["finished_at"].replace("Z", "+00:00"))
    ours = rows / (finished - started).total_seconds()
    growth_mib = rss.growth_mib
    report(
        f"pipeline filter+select over {args.csv_mib} MiB CSV, rows/s vs csv module",
        f"{ours:,.0f}",
        f"{baseline:,.0f}",
        ours / baseline,
        ">= 0.5",
        ours / baseline >= 0.5,
    )
    report(
        "web worker peak RSS growth during the run",
        f"{growth_mib:.1f} MiB",
        "50 MiB",
        growth_mib / 50,
        "< 1.0",
        growth_mib < 50,
    )


def _fmt_seconds(seconds, timeout):
    if math.isinf(seconds):
        return f">{timeout:g} s"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _summary(samples, timeout):
    failed = slow.failures(samples)
    text = (
        f"p50 {_fmt_seconds(slow.percentile(samples, 0.5), timeout)}, "
        f"p99 {_fmt_seconds(slow.percentile(samples, 0.99), timeout)} "
        f"({len(samples)} requests"
    )
    if failed:
        text += ", failed: " + ", ".join(f"{count} {name}" for name, count in failed.items())
    return text + ")"


def _range(values):
    return f"{min(values)}" if min(values) == max(values) else f"{min(values)}-{max(values)}"


def streams_names(streams):
    return [stream[0] for stream in streams]


def _slow_variant(args, env, report, variant, folder, source, size):
    """One variant (``gunicorn`` alone or ``nginx`` in front): baseline, then loaded."""

    def say(text):
        print(f"[slow, {variant}] {text}", flush=True)

    extra = (
        {"DATAHUB_PROXY_FIX_X_FOR": "1", "DATAHUB_PROXY_FIX_X_PROTO": "1"}
        if (variant == "nginx")
        else {}
    )
    folder.mkdir()
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(slow.DeployedServer({**env, **extra}, folder / "gunicorn.log"))
        settings = server.settings
        say(
            "gunicorn.conf.py as deployed: "
            + ", ".join(f"{k}={v}" for k, v in settings.items())
            + f"; {server.worker_count} worker processes running"
        )
        status, body, _ = _request(
            server.port, "POST", "/api/v1/auth/login", {"email": EMAIL, "password": PASSWORD}
        )
        assert status == 200, body
        token = json.loads(body)["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        paths = {}
        for role in ("download", "upload"):
            status, body, _ = _request(
                server.port,
                "POST",
                "/api/v1/datasets/",
                {"name": f"slow {role} {variant}"},
                headers,
            )
            assert status == 201, body
            paths[role] = f"/api/v1/datasets/{json.loads(body)['id']}/file"
        _upload_seconds(server.port, paths["download"] + "?filename=big.bin", source, size, headers)
        ports = {"gunicorn": server.port}
        if variant == "nginx":
            from datahub.app.config import DefaultConfig
            from tests.e2e.nginx_site import Nginx

            limit = int(env.get("DATAHUB_MAX_CONTENT_LENGTH", DefaultConfig.MAX_CONTENT_LENGTH))
            # worker_connections: the slow clients, the probe's connections and nginx's own
            # upstream connections for each need more than the tests' 256 (Debian: 768).
            proxy = stack.enter_context(
                Nginx(
                    folder / "nginx",
                    f"127.0.0.1:{server.port}",
                    limit + 65536,
                    worker_connections=1024,
                )
            )
            target, ports["nginx"] = slow.Target(proxy.port, tls=True), proxy.port
        else:
            target = slow.Target(server.port, tls=False)

        streams = [
            ("healthz", "GET", "/healthz", None, args.slow_healthz_interval),
            (
                "login",
                "POST",
                "/api/v1/auth/login",
                slow.login_body(EMAIL, PASSWORD),
                args.slow_login_interval,
            ),
        ]
        timeout = args.slow_timeout
        baseline = {name: [] for name, *_ in streams}
        loaded = {name: [] for name, *_ in streams}
        held, total = None, args.slow_bodies + args.slow_downloads
        for round_number in range(1, args.slow_rounds + 1):  # interleaved: drift hits both

            def said(text):
                say(f"round {round_number}: {text}")

            for name, samples in slow.probe(target, streams, args.slow_seconds, timeout).items():
                baseline[name] += samples
                said(f"no slow clients: {name} {_summary(samples, timeout)}")
            clients = slow.SlowClients(
                target,
                bodies=args.slow_bodies,
                downloads=args.slow_downloads,
                token=token,
                upload_path=paths["upload"],
                download_path=paths["download"],
            )
            with clients:
                time.sleep(args.slow_settle)  # let the slow requests reach the server
                with slow.Sampler(clients, ports) as sampler:
                    measured = slow.probe(target, streams, args.slow_seconds, timeout)
            samples = sampler.samples
            assert samples, "no sample of the slow clients was taken"
            round_held = min(sample["open"] for sample in samples)
            held = round_held if held is None else min(held, round_held)
            said(
                f"slow clients open during the measurement: "
                f"{_range([s['open'] for s in samples])} of {total} ({args.slow_bodies} trickling"
                f" bodies, {args.slow_downloads} slow downloads), {len(samples)} samples"
            )
            for name, port in ports.items():
                opened = [s["tcp"][name][0] for s in samples]
                queued = [s["tcp"][name][1] for s in samples]
                served = [o - q for o, q in zip(opened, queued, strict=False)]
                said(
                    f"{name} port {port}: connections accepted {_range(served)}, waiting in"
                    f" its accept queue {_range(queued)} (slow clients and probes together)"
                )
            receiving = [s["receiving"] for s in samples[1:]] or [0]
            said(
                f"downloads answered 200: {_range([s['downloads_started'] for s in samples])},"
                f" receiving data in a given second: {_range(receiving)} of"
                f" {args.slow_downloads}; body bytes trickled {samples[-1]['body_bytes_sent']},"
                f" download bytes read {samples[-1]['download_bytes']}"
            )
            said(
                "slow clients at the end: "
                + ", ".join(
                    f"{count} {state}" for state, count in sorted(samples[-1]["states"].items())
                )
            )
            for name, samples in measured.items():
                loaded[name] += samples
                said(f"with slow clients: {name} {_summary(samples, timeout)}")
            # What the slow clients and the probes left queued drains before the next round.
            drained = slow.wait_idle(server.port, args.slow_recover)
            said(
                f"server idle again after {drained:.1f} s"
                if drained is not None
                else f"server NOT idle again within {args.slow_recover:g} s; going on"
            )
        for name in streams_names(streams):
            say(f"all rounds, no slow clients: {name} {_summary(baseline[name], timeout)}")
            say(f"all rounds, with slow clients: {name} {_summary(loaded[name], timeout)}")

    for name, label in (("healthz", "/healthz"), ("login", "login")):
        base = slow.percentile(baseline[name], 0.99)
        ours = slow.percentile(loaded[name], 0.99)
        failed = sum(slow.failures(loaded[name]).values())
        text = _fmt_seconds(ours, timeout) + (
            f" ({failed}/{len(loaded[name])} failed)" if failed else ""
        )
        if math.isinf(base) or math.isnan(base):
            ratio, ok = "n/a", False
        elif math.isinf(ours):
            ratio, ok = f">{timeout / base:.0f}x", False
        else:
            ratio, ok = ours / base, ours / base <= 2
        report(
            f"slow clients: {label} p99 loaded vs none ({variant})",
            text,
            _fmt_seconds(base, timeout),
            ratio,
            "<= 2",
            ok,
        )
    report(
        f"slow clients held open meanwhile ({variant})",
        f"{held}/{total}",
        f"{total}",
        held / total,
        "= 1.0",
        held == total,
    )


def bench_slow(args, env, report):
    """p99 of /healthz and of a login while slow clients trickle bodies and read downloads
    slowly, against the same requests with none; the service as deployed (gunicorn.conf.py),
    alone and behind deploy/nginx/datahub.conf."""
    size = args.slow_download_mib * 1024 * 1024
    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
        source = Path(scratch) / "download.bin"
        with open(source, "wb") as out:
            block = os.urandom(1024 * 1024)
            for _ in range(args.slow_download_mib):
                out.write(block)
        for variant in args.slow_variants.split(","):
            _slow_variant(args, env, report, variant, Path(scratch) / variant, source, size)


def bench_pipelines(args, env, report):
    """Pipeline runs through the service against DuckDB alone on the same file, and the
    memory check: ``python -m bench.pipelines`` with its defaults, or --pipelines-args."""
    import shlex

    from bench import pipelines

    argv = shlex.split(args.pipelines_args)
    if args.scratch and "--scratch" not in argv:
        argv += ["--scratch", args.scratch]
    pipelines.run_benchmark(pipelines.build_parser().parse_args(argv), report)


def bench_isolation(args, env, report):
    """Memory bombs, latency under hostile jobs, and the cost of a process per run:
    ``python -m bench.isolation`` with its defaults, or --isolation-args."""
    import shlex

    from bench import isolation

    argv = shlex.split(args.isolation_args)
    if args.scratch and "--scratch" not in argv:
        argv += ["--scratch", args.scratch]
    isolation.run_benchmark(isolation.build_parser().parse_args(argv), report)


def bench_me_cache(args, env, report):
    """GET /auth/me with and without the auth cache against the ceiling, and a logout
    seen by another host at the next request (bench/auth_cache.py)."""
    from bench import auth_cache

    auth_cache.bench_me_cache(args, env, report)


def bench_me_pat(args, env, report):
    """GET /auth/me with a personal access token against a JWT, without and with the auth
    cache (bench/personal_tokens.py)."""
    from bench import personal_tokens

    personal_tokens.bench_me_pat(args, env, report)


def bench_internals(args, env, report):
    """Each use of a library's private parts on and off, on the case it speeds up
    (bench/internals.py): ``--internals-args`` for its options."""
    import shlex

    from bench import internals

    options = internals.build_parser().parse_args(shlex.split(args.internals_args))
    for name in ("workers", "seconds", "rounds", "connections", "scratch"):
        setattr(options, name, getattr(args, name))
    options.slow_defaults = args  # the slow case's settings, for the worker's runs
    internals.run_benchmark(options, env, report)


CASES = {
    "me": bench_me,
    "me_cache": bench_me_cache,
    "me_pat": bench_me_pat,
    "login": bench_login,
    "list": bench_list,
    "files": bench_files,
    "pipeline": bench_pipeline,
    "pipelines": bench_pipelines,
    "isolation": bench_isolation,
    "slow": bench_slow,
    "internals": bench_internals,
}


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database-url", help="PostgreSQL URL (its public schema is rebuilt)")
    parser.add_argument(
        "--cases",
        default=",".join(c for c in CASES if c != "internals"),
        help="comma-separated: " + ",".join(CASES) + " (internals only when named)",
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--seconds", type=int, default=5, help="wrk duration per round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per case")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--login-samples", type=int, default=30)
    parser.add_argument("--bcrypt-rounds", type=int, default=12)
    parser.add_argument("--list-samples", type=int, default=200)
    parser.add_argument("--file-mib", type=int, default=1024, help="size of the file case")
    parser.add_argument("--scratch", default=None, help="folder for the large files")
    parser.add_argument("--csv-mib", type=int, default=1024, help="size of the pipeline's CSV")
    parser.add_argument(
        "--pipelines-args",
        default="",
        help='options of the pipelines case, e.g. "--rows 20000 --repeat 1" '
        "(see python -m bench.pipelines --help)",
    )
    parser.add_argument(
        "--isolation-args",
        default="",
        help='options of the isolation case, e.g. "--skip-sort --rounds 1" '
        "(see python -m bench.isolation --help)",
    )
    parser.add_argument(
        "--internals-args",
        default="",
        help='options of the internals case, e.g. "--before main --skip-worker" '
        '(see --internals-args "--help")',
    )
    cache_args = parser.add_argument_group("the me_cache and me_pat cases")
    cache_args.add_argument(
        "--auth-cache-redis",
        default="redis://127.0.0.1:6379/6",
        help="Redis of the auth cache's invalidation channel",
    )
    cache_args.add_argument(
        "--revocation-tries",
        type=int,
        default=20,
        help="logouts on one host checked on another at the next request",
    )
    slow_args = parser.add_argument_group("the slow case")
    slow_args.add_argument(
        "--slow-variants", default="gunicorn,nginx", help="gunicorn alone, nginx in front, or both"
    )
    slow_args.add_argument(
        "--slow-rounds",
        type=int,
        default=2,
        help="interleaved rounds of baseline and loaded measurement",
    )
    slow_args.add_argument(
        "--slow-seconds",
        type=float,
        default=12,
        help="length of each baseline and loaded measurement, per round",
    )
    slow_args.add_argument(
        "--slow-timeout",
        type=float,
        default=10,
        help="a probe request not answered by then has failed",
    )
    slow_args.add_argument("--slow-healthz-interval", type=float, default=0.1)
    slow_args.add_argument("--slow-login-interval", type=float, default=1.0)
    slow_args.add_argument("--slow-bodies", type=int, default=50, help="clients trickling bodies")
    slow_args.add_argument(
        "--slow-downloads", type=int, default=50, help="clients reading a download slowly"
    )
    slow_args.add_argument("--slow-download-mib", type=int, default=64)
    slow_args.add_argument(
        "--slow-settle",
        type=float,
        default=3,
        help="seconds between the slow clients' start and the measurement",
    )
    slow_args.add_argument(
        "--slow-recover",
        type=float,
        default=60,
        help="at most this long for the server to drain after a round",
    )
    args = parser.parse_args()
    if {"me", "me_cache", "me_pat", "internals"} & set(args.cases.split(",")) and not shutil.which(
        "wrk"
    ):
        sys.exit("wrk is needed: apt-get install wrk")
    # A SIGTERM unwinds like Ctrl-C: servers stopped, temporary folders removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    rows = []

    def report(name, ours, baseline, ratio, target, ok):
        ratio = ratio if isinstance(ratio, str) else f"{ratio:.2f}x"  # e.g. ">100x"
        rows.append((name, ours, baseline, ratio, target, "ok" if ok else "MISSED"))
        print(f"{name}: {ours} vs {baseline} = {ratio} (target {target})", flush=True)

    with tempfile.TemporaryDirectory() as instance:
        env = datahub_env(instance, args.database_url, args.bcrypt_rounds)
        prepare_datahub(env)
        for name in args.cases.split(","):
            CASES[name](args, env, report)

    widths = [max(len(str(r[i])) for r in rows + [HEADER]) for i in range(len(HEADER))]
    print()
    for row in [HEADER] + rows:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=False)))
    return 0 if all(r[-1] == "ok" for r in rows) else 1


HEADER = ("case", "datahub", "baseline", "ratio", "target", "")

if __name__ == "__main__":
    sys.exit(main())
