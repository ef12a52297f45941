"""The ``internals`` case of bench/run.py: what each use of a library's private parts buys.

    python bench/run.py --cases internals                       # ~15 minutes
    python bench/run.py --cases internals --internals-args "--before main --skip-worker"
    python bench/run.py --cases internals --internals-args "--help"

Each setting that turns a private-API use off (docs/contributing/internals.rst) is measured
on the case it speeds up, on and off **in the same run**, in interleaved rounds:

* ``GET /api/v1/auth/me`` under wrk: one gunicorn server with every setting on, one per
  setting off, and with ``--before REV`` one serving the code of that git revision (all on);
* the same request in-process (the WSGI app called directly, the batch of least CPU time),
  each setting switched off in turn between batches of one process (and, with
  ``--before``, a process of that tree, alternated with this one's);
* an upload's throughput (one worker): ``SOCKET_UPLOADS``;
* the ``slow`` case (gunicorn alone, as deployed, and with fewer threads per worker):
  datahub's gunicorn worker against ``DATAHUB_WORKER_CLASS=gthread``.

The ratio is the CPU time the service spent per unit of work (wrk: per request, read from
/proc for gunicorn's processes; in-process: the process's own), off / on: above 1 the use
saves. CPU time hardly depends on what else the machine runs; the request rates, printed
beside, swing with it. The target is 1.10: a use that buys less than 10 % is not worth
relying on a library's private parts. The worker class is judged by the slow-client p99s.
"""

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import proctree, run  # noqa: E402

TARGET = 1.10
ME = "/api/v1/auth/me"
# Settings measured on GET /auth/me (the app's settings; the worker class is gunicorn's).
ME_SETTINGS = {
    "RATELIMIT_FAST_PATH": {"DATAHUB_RATELIMIT_FAST_PATH": "false"},
    "AUTH_LOOKUP_DIRECT_CONNECTIONS": {"DATAHUB_AUTH_LOOKUP_DIRECT_CONNECTIONS": "false"},
    "DATAHUB_WORKER_CLASS=gthread": {"DATAHUB_WORKER_CLASS": "gthread"},
}


def say(text):
    print(f"[internals] {text}", flush=True)


def source_tree(rev, folder):
    """``git archive`` of ``rev`` into ``folder``: a tree to serve the code before from."""
    folder.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def tree_env(env, root):
    """``env`` for a process that imports datahub from ``root``."""
    inherited = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("DATAHUB_") and key not in ("PYTHONPATH", "GUNICORN_CMD_ARGS")
    }
    return {**inherited, **env, "PYTHONPATH": str(root)}


class Served:
    """``wsgi:app`` of the tree ``root`` under gunicorn with bench/gunicorn_bench.conf.py."""

    def __init__(self, root, env, workers):
        self.root, self.port = Path(root), run.free_port()
        self.env = {
            **tree_env(env, root),
            "BENCH_BIND": f"127.0.0.1:{self.port}",
            "BENCH_WORKERS": str(workers),
        }
        self.process = None

    def __enter__(self):
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                str(ROOT / "bench/gunicorn_bench.conf.py"),
                "wsgi:app",
            ],
            cwd=self.root,
            env=self.env,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if self.request("GET", "/healthz")[0] == 200:
                    return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"gunicorn on port {self.port} did not start")

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait(timeout=30)

    def request(self, method, path, body=None, headers=None):
        return run._request(self.port, method, path, body, headers)

    def bearer(self):
        status, body, _ = self.request(
            "POST", "/api/v1/auth/login", {"email": run.EMAIL, "password": run.PASSWORD}
        )
        assert status == 200, body
        return {"Authorization": f"Bearer {json.loads(body)['access_token']}"}


def cpu_seconds(master):
    """CPU time (user + system) used so far by gunicorn's master and its workers."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in proctree.tree(master):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def wrk(server, path, headers, seconds, connections, script=None):
    """``(requests/s, CPU µs the server spent per request)`` from a wrk run. The CPU time
    hardly depends on what else runs on the machine; the rate does."""
    args = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s"]
    for key, value in headers.items():
        args += ["-H", f"{key}: {value}"]
    if script:
        args += ["-s", str(script)]
    cpu = cpu_seconds(server.process.pid)
    out = subprocess.run(
        args + [f"http://127.0.0.1:{server.port}{path}"], capture_output=True, text=True, check=True
    ).stdout
    cpu = cpu_seconds(server.process.pid) - cpu
    assert "Socket errors" not in out and "Non-2xx" not in out or script, out
    requests = int(out.split(" requests in ")[0].split()[-1])
    rate = float(out.split("Requests/sec:")[1].split()[0])
    return rate, cpu / requests * 1e6


def interleaved(servers, measure, rounds):
    """``{name: (median rate, median CPU per request)}``: each round measures every server
    once, starting one further along each time (no server always follows the same one)."""
    names = list(servers)
    values = {name: [] for name in names}
    for number in range(rounds):
        for name in names[number % len(names) :] + names[: number % len(names)]:
            values[name].append(measure(name, servers[name]))
        say(
            f"round {number + 1}: "
            + ", ".join(
                f"{name} {values[name][-1][0]:,.0f}/s {values[name][-1][1]:,.0f} µs"
                for name in names
            )
        )
    return {
        name: tuple(statistics.median(value[i] for value in found) for i in (0, 1))
        for name, found in values.items()
    }


def judge(report, what, on, off, unit):
    """Report the CPU per unit of work, on and off (off / on: above 1 the use saves), and
    the rates beside it."""
    (on_rate, on_cpu), (off_rate, off_cpu) = on, off
    ratio = off_cpu / on_cpu
    report(
        f"{what}: CPU per {unit}, on vs off (rate {on_rate:,.0f} vs {off_rate:,.0f} "
        f"/s: {on_rate / off_rate:.2f}x)",
        f"{on_cpu:,.0f} µs",
        f"{off_cpu:,.0f} µs",
        ratio,
        f">= {TARGET} to keep",
        ratio >= TARGET,
    )
    return ratio


# -- GET /auth/me under wrk ----------------------------------------------------------------


def bench_me(args, env, before, report):
    variants = {"all on": (ROOT, {}), **{name: (ROOT, off) for name, off in ME_SETTINGS.items()}}
    if before is not None:
        variants[f"code of {args.before}"] = (before, {})
    servers = {}
    with contextlib.ExitStack() as stack:
        for name, (root, off) in variants.items():
            servers[name] = stack.enter_context(Served(root, {**env, **off}, args.workers))
        headers = {name: server.bearer() for name, server in servers.items()}
        for name, server in servers.items():
            status, body, _ = server.request("GET", ME, headers=headers[name])
            assert status == 200, (name, body)

        def measure(name, server):
            return wrk(server, ME, headers[name], args.seconds, args.connections)

        found = interleaved(servers, measure, args.rounds)
    on = found["all on"]
    for name in ME_SETTINGS:
        judge(report, f"{name}: GET /auth/me", on, found[name], "request")
    if before is not None:
        (rate, cpu), (old_rate, old_cpu) = on, found[f"code of {args.before}"]
        report(
            f"GET /auth/me: CPU per request, this tree vs {args.before} (rate {rate:,.0f} "
            f"vs {old_rate:,.0f} /s: {rate / old_rate:.2f}x)",
            f"{cpu:,.0f} µs",
            f"{old_cpu:,.0f} µs",
            old_cpu / cpu,
            ">= 0.90",
            old_cpu / cpu >= 0.9,
        )


# -- GET /auth/me in-process -----------------------------------------------------------------

IN_PROCESS = """
import io, json, time
from werkzeug.test import EnvironBuilder
from datahub import create_app
try:
    from datahub.app.extensions import limiter
except ImportError:  # a tree from before the layer folders (--before)
    from datahub.extensions import limiter
app = create_app()
guard = app.extensions["datahub.access_guard"]
answer = app.test_client().post("/api/v1/auth/login", json={"email": EMAIL, "password": PASSWORD})
environ = EnvironBuilder(path="/api/v1/auth/me", base_url="http://localhost", headers={
    "Authorization": "Bearer " + answer.get_json()["access_token"]}).get_environ()
# Each setting as the app reads it on every request, switched between batches.
SWITCHES = {
    "RATELIMIT_FAST_PATH": lambda on: setattr(limiter, "fast_path", on),
    "AUTH_LOOKUP_DIRECT_CONNECTIONS": lambda on: setattr(guard.connections, "direct", on),
}
SWITCHES = {name: switch for name, switch in SWITCHES.items() if name in app.config}
statuses = []
def start_response(status, headers, exc_info=None):
    statuses.append(status)
def one():
    request = dict(environ)
    request["wsgi.input"] = io.BytesIO()
    for _ in app(request, start_response):
        pass
best = {}
for number in range(BATCHES + 1):  # the first round warms up
    for off in [None, *SWITCHES]:
        for name, switch in SWITCHES.items():
            switch(name != off)
        start = time.process_time()  # CPU time: what other processes run hardly counts
        for _ in range(PER_BATCH):
            one()
        took = (time.process_time() - start) / PER_BATCH * 1e6
        assert statuses[-1].startswith("200"), statuses[-1]
        if number:
            best[off or "all on"] = min(best.get(off or "all on", took), took)
print(json.dumps(best))
"""


def in_process_us(root, env, batches, per_batch):
    """``{variant: µs per request}``: all on, and each setting off, in one process."""
    code = (
        IN_PROCESS.replace("EMAIL", repr(run.EMAIL))
        .replace("PASSWORD", repr(run.PASSWORD))
        .replace("BATCHES", str(batches))
        .replace("PER_BATCH", str(per_batch))
    )
    return json_of_snippet(code, root, env)


def json_of_snippet(code, root, env):
    """Run ``code`` in a fresh interpreter in the tree ``root``; the JSON of its last line."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env=tree_env(env, root),
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_me_in_process(args, env, before, report):
    """The WSGI app called directly: one process switches each setting off in turn between
    batches (the batch that took the least CPU time counts); with ``--before``, a process
    of that tree too, alternated with this one's."""
    trees = {"this tree": ROOT, **({f"code of {args.before}": before} if before else {})}
    best = {}
    for number in range(args.in_process_rounds):
        for tree, root in trees.items():
            for variant, us in in_process_us(root, env, args.batches, args.per_batch).items():
                key = (tree, variant)
                best[key] = min(best.get(key, us), us)
        say(
            f"in-process round {number + 1}: "
            + ", ".join(f"{tree}: {variant} {us:.1f} µs" for (tree, variant), us in best.items())
        )
    on = best[("this tree", "all on")]
    for (tree, variant), us in best.items():
        if tree == "this tree" and variant != "all on":
            report(
                f"{variant}: GET /auth/me in-process, on vs off",
                f"{on:.1f} µs",
                f"{us:.1f} µs",
                us / on,
                f">= {TARGET} to keep",
                us / on >= TARGET,
            )
    if before is not None:
        old = best[(f"code of {args.before}", "all on")]
        report(
            f"GET /auth/me in-process, this tree vs {args.before}",
            f"{on:.1f} µs",
            f"{old:.1f} µs",
            old / on,
            ">= 0.90",
            old / on >= 0.9,
        )


# -- create_app: the OpenAPI document deferred, the URL builders cached --------------------

CREATE_APP = """
import json, time
from datahub import create_app
best = {}
for number in range(ROUNDS + 1):  # the first round warms up
    for on in (True, False):
        start = time.process_time()
        for _ in range(PER_ROUND):
            create_app({"SETTING": on})
        took = (time.process_time() - start) / PER_ROUND * 1e6
        if number:
            best[on] = min(best.get(on, took), took)
print(json.dumps([best[True], best[False]]))
"""


def bench_create_app(args, env, report):
    """``create_app``'s CPU time with ``OPENAPI_DEFERRED`` on and off, then with
    ``ROUTING_BUILDER_CACHE`` on and off, each alternated in one process (the round that
    took the least counts): what every gunicorn worker and every test pays."""
    for setting in ("OPENAPI_DEFERRED", "ROUTING_BUILDER_CACHE"):
        code = (
            CREATE_APP.replace("ROUNDS", str(args.create_app_rounds))
            .replace("PER_ROUND", "10")
            .replace("SETTING", setting)
        )
        on, off = json_of_snippet(code, ROOT, env)
        report(
            f"{setting}: create_app, CPU on vs off",
            f"{on / 1000:.0f} ms",
            f"{off / 1000:.0f} ms",
            off / on,
            f">= {TARGET} to keep",
            off / on >= TARGET,
        )


# -- an upload's throughput ------------------------------------------------------------------


def bench_socket_uploads(args, env, report):
    size = args.upload_mib * 1024 * 1024
    off = {"DATAHUB_SOCKET_UPLOADS": "false"}
    file_env = {**env, "DATAHUB_MAX_CONTENT_LENGTH": str(size + 1)}
    with tempfile.TemporaryDirectory(dir=args.scratch) as scratch, contextlib.ExitStack() as stack:
        source = Path(scratch) / "upload.bin"
        with open(source, "wb") as out:
            block = os.urandom(1024 * 1024)
            for _ in range(args.upload_mib):
                out.write(block)
        os.sync()
        servers = {
            "on": stack.enter_context(Served(ROOT, file_env, 1)),
            "off": stack.enter_context(Served(ROOT, {**file_env, **off}, 1)),
        }
        targets = {}
        for name, server in servers.items():
            headers = server.bearer()
            status, body, _ = server.request(
                "POST", "/api/v1/datasets/", {"name": f"upload {name}"}, headers
            )
            assert status == 201, body
            targets[name] = (
                f"/api/v1/datasets/{json.loads(body)['id']}/file?filename=u.bin",
                headers,
            )

        def measure(name, server):
            path, headers = targets[name]
            cpu = cpu_seconds(server.process.pid)
            seconds = run._upload_seconds(server.port, path, source, size, headers)
            cpu = cpu_seconds(server.process.pid) - cpu
            os.sync()  # each upload starts with nothing left to write back
            return args.upload_mib / seconds, cpu / args.upload_mib * 1e6

        found = interleaved(servers, measure, args.upload_rounds)
    judge(
        report,
        f"SOCKET_UPLOADS: uploads of {args.upload_mib} MiB",
        found["on"],
        found["off"],
        "MiB",
    )


# -- the worker under slow clients -----------------------------------------------------------


def bench_worker(args, env, report):
    """The ``slow`` case (gunicorn alone, as deployed) with datahub's worker and with
    gthread, each with ``--worker-threads`` threads per worker, in interleaved runs."""

    def p99s(label, extra):
        rows = []
        slow_args = argparse.Namespace(**{**vars(args.slow_defaults), "slow_rounds": 1})
        with tempfile.TemporaryDirectory(dir=args.scratch) as scratch:
            size = slow_args.slow_download_mib * 1024 * 1024
            source = Path(scratch) / "download.bin"
            with open(source, "wb") as out:
                block = os.urandom(1024 * 1024)
                for _ in range(slow_args.slow_download_mib):
                    out.write(block)
            # The variant's name also names its datasets: one per run.
            run._slow_variant(
                slow_args,
                {**env, **extra},
                lambda *row: rows.append(row),
                label,
                Path(scratch) / "gunicorn",
                source,
                size,
            )
        return {
            probe: row
            for row in rows
            for probe in ("/healthz", "login")
            if row[0].startswith(f"slow clients: {probe} p99")
        }

    for threads in args.worker_threads.split(","):
        found = {"on": [], "off": []}
        for number in range(args.worker_rounds):  # interleaved: drift hits both
            for name, extra in (("on", {}), ("off", {"DATAHUB_WORKER_CLASS": "gthread"})):
                label = f"worker {name}, {threads} threads, run {number + 1}"
                rows = p99s(label, {**extra, "DATAHUB_THREADS": threads})
                found[name].append(rows)
                say(
                    f"{label}: "
                    + "; ".join(
                        f"{probe} p99 {row[1]} (no slow clients: {row[2]})"
                        for probe, row in rows.items()
                    )
                )
        for probe in ("/healthz", "login"):
            on = " / ".join(rows[probe][1] for rows in found["on"])
            off = " / ".join(rows[probe][1] for rows in found["off"])
            report(
                f"worker class: {probe} p99 with slow clients, {threads} threads a worker, "
                "datahub's vs gthread",
                on,
                off,
                "-",
                "(see the values)",
                True,
            )


def build_parser():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--before",
        default=None,
        help="also serve the code of this git revision (all on) beside /me",
    )
    parser.add_argument("--skip-me", action="store_true")
    parser.add_argument("--skip-in-process", action="store_true")
    parser.add_argument("--skip-uploads", action="store_true")
    parser.add_argument("--skip-worker", action="store_true")
    parser.add_argument("--skip-create-app", action="store_true")
    parser.add_argument("--create-app-rounds", type=int, default=5)
    parser.add_argument("--in-process-rounds", type=int, default=3)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--per-batch", type=int, default=1000)
    parser.add_argument("--upload-mib", type=int, default=256)
    parser.add_argument("--upload-rounds", type=int, default=5)
    parser.add_argument(
        "--worker-threads", default="64,24", help="threads per worker for the slow-client runs"
    )
    parser.add_argument("--worker-rounds", type=int, default=1)
    return parser


def run_benchmark(args, env, report):
    before = None
    with tempfile.TemporaryDirectory() as scratch:
        if args.before:
            before = source_tree(args.before, Path(scratch) / "before")
            say(f"serving the code of {args.before} from {before} beside this tree")
        if not args.skip_me:
            bench_me(args, env, before, report)
        if not args.skip_in_process:
            bench_me_in_process(args, env, before, report)
    if not args.skip_create_app:
        bench_create_app(args, env, report)
    if not args.skip_uploads:
        bench_socket_uploads(args, env, report)
    if not args.skip_worker:
        bench_worker(args, env, report)
