"""Pipelines benchmark: pipeline runs through the service against DuckDB alone.

    python -m bench.pipelines                      # 2,000,000 rows, 3 rounds, + memory check
    python -m bench.pipelines --rows 20000 --repeat 1 --jobs A --skip-memory   # quick check
    python -m bench.pipelines --memory-only --memcheck-limit 128MB

Runs the service under gunicorn (``bench/gunicorn_bench.conf.py``, one web worker and, on
a tree with ``datahub/pipelines/supervisor.py``, the pipeline worker process its master
supervises, which executes the runs; before that, the worker embedded in the web worker
did; SQLite in a temporary instance folder), uploads a generated CSV, and times each pipeline run from ``POST .../runs`` until
``GET .../runs/{id}`` says ``succeeded``. In the same rounds, alternating, DuckDB alone runs
the equivalent query on the same stored file (same ``memory_limit`` and ``threads``) and
writes a CSV with ``COPY``; the two outputs are compared. The ratio is DuckDB's time over
the service's (target >= 0.8).

The memory check sorts a CSV about 4x the size of its own memory limit through a second
service started with that limit, samples the RSS of every process of the service
(bench/proctree.py: the largest single process, and the web worker's growth), and runs the same sort
with DuckDB alone in a subprocess for comparison.

See bench/README.rst ("Pipelines").
"""

import argparse
import contextlib
import csv
import filecmp
import hashlib
import http.client
import itertools
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import proctree  # noqa: E402
from bench.run import EMAIL, PASSWORD, datahub_env, free_port  # noqa: E402

GENERATOR_VERSION = 1  # part of the cache key: bump when the generated data changes
CITIES = [
    "Oslo",
    "Bergen",
    "Trondheim",
    "Stavanger",
    "Tromso",
    "Drammen",
    "Kristiansand",
    "Fredrikstad",
    "Sandnes",
    "Bodo",
    "Alesund",
    "Tonsberg",
    "Moss",
    "Haugesund",
    "Arendal",
    "Hamar",
    "Larvik",
    "Halden",
    "Lillehammer",
    "Molde",
]
COLUMNS = ["id", "city", "amount", "quantity", "day", "note"]

JOBS = {
    "A": {
        "title": "filter + sort + select",
        "steps": [
            {"op": "filter", "column": "amount", "operator": "gt", "value": 500},
            {"op": "sort", "columns": ["city", "amount"], "descending": False},
            {"op": "select", "columns": ["id", "city", "amount", "day"]},
        ],
        # The service breaks sort ties by the remaining columns (in the source's order),
        # so its output is deterministic; the same ORDER BY here makes them comparable.
        "sql": "SELECT id, city, amount, day FROM read_csv({src}) WHERE amount > 500 "
        "ORDER BY city, amount, id, quantity, day, note",
    },
    "B": {
        "title": "aggregate",
        "steps": [
            {
                "op": "aggregate",
                "group_by": ["city"],
                "aggregates": [
                    {"column": "amount", "function": "sum", "as": "total"},
                    {"column": "quantity", "function": "avg", "as": "avg_qty"},
                    {"column": "id", "function": "count", "as": "n"},
                ],
            }
        ],
        "sql": "SELECT city, sum(amount) AS total, avg(quantity) AS avg_qty, count(id) AS n "
        "FROM read_csv({src}) GROUP BY city ORDER BY city",
    },
}
MEMCHECK_STEPS = [{"op": "sort", "columns": ["note"]}]
MEMCHECK_SQL = "SELECT * FROM read_csv({src}) ORDER BY note, id, city, amount, quantity, day"

UNITS = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KIB": 2**10,
    "MIB": 2**20,
    "GIB": 2**30,
    "TIB": 2**40,
}


def say(text):
    print(text, flush=True)


def parse_size(text):
    """Bytes in a DuckDB memory size: ``512MB`` is 512 * 10**6 (DuckDB's reading),
    ``512MiB`` 512 * 2**20."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([A-Za-z]*)\s*", text)
    unit = (match.group(2) if match else "?").upper() or "B"
    if not match or unit not in UNITS:
        raise argparse.ArgumentTypeError(f"not a memory size: {text!r} (e.g. 512MB, 1GiB)")
    return int(float(match.group(1)) * UNITS[unit])


def mib(n_bytes):
    return f"{n_bytes / 2**20:,.1f} MiB"


def fmt_n(number):
    return "?" if number is None else f"{number:,}"


def fmt_s(seconds):
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def sql_string(text):
    return "'" + str(text).replace("'", "''") + "'"


# ---------------------------------------------------------------------------- the data


def generate_csv(path, rows):
    """``rows`` deterministic rows (a hash of the row number, no random state) written by
    DuckDB: id, city (one of 20), amount (0.00-999.99), quantity (1-50), day (2024-2025),
    note (10-40 letters)."""
    import duckdb

    cities = "[" + ", ".join(sql_string(c) for c in CITIES) + "]"
    part = path.with_name(path.name + f".part-{os.getpid()}")
    query = f"""
        SELECT i AS id,
               {cities}[1 + (hash(i, 1) % {len(CITIES)})::INTEGER] AS city,
               printf('%.2f', (hash(i, 2) % 100000)::DOUBLE / 100) AS amount,
               1 + (hash(i, 3) % 50)::INTEGER AS quantity,
               DATE '2024-01-01' + (hash(i, 4) % 731)::INTEGER AS day,
               substr(translate(md5(i::VARCHAR) || md5((-i)::VARCHAR), '0123456789',
                                'ghijklmnop'), 1, 10 + (hash(i, 5) % 31)::INTEGER) AS note
        FROM range(1, {rows} + 1) AS t(i)"""
    start = time.perf_counter()
    with duckdb.connect() as con:
        con.execute(f"COPY ({query}) TO {sql_string(part)} (FORMAT csv, HEADER)")
    os.replace(part, path)
    say(
        f"generated {path} ({rows:,} rows, {mib(path.stat().st_size)}) in "
        f"{time.perf_counter() - start:.1f} s"
    )


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while block := source.read(4 * 2**20):
            digest.update(block)
    return digest.hexdigest()


def cached_csv(cache, rows):
    """The CSV of ``rows`` rows from the cache folder (generated once), and its sha256."""
    import duckdb

    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"pipelines-v{GENERATOR_VERSION}-duckdb{duckdb.__version__}-{rows}.csv"
    sidecar = path.with_name(path.name + ".sha256")
    if not path.exists():
        generate_csv(path, rows)
        sidecar.unlink(missing_ok=True)
    if not sidecar.exists():
        sidecar.write_text(sha256_of(path))
    return path, sidecar.read_text().strip()


def rows_for_size(target_bytes):
    """Rows for a file of about ``target_bytes`` (measured on a 100,000-row sample)."""
    with tempfile.TemporaryDirectory() as folder:
        sample = Path(folder) / "sample.csv"
        generate_csv(sample, 100_000)
        per_row = sample.stat().st_size / 100_000
    return max(1000, int(target_bytes / (per_row + 0.5)))  # ids grow a little longer


# -------------------------------------------------------------------------- the service


PREPARE = """
import flask_migrate
from datahub import create_app
from datahub.app.extensions import db
from datahub.identity.users import services
app = create_app()
with app.app_context():
    flask_migrate.upgrade()
    services.create_user(email={email!r}, password={password!r}, name="Bench",
                         roles=["admin", "editor"])
    db.engine.dispose()
"""


class Client:
    """One keep-alive HTTP connection to the service (reopened when it drops)."""

    def __init__(self, port):
        self.port, self.headers, self.conn = port, {}, None

    def _connection(self, timeout):
        if self.conn is None:
            self.conn = http.client.HTTPConnection(
                "127.0.0.1", self.port, timeout=timeout, blocksize=2**20
            )
        self.conn.timeout = timeout
        if self.conn.sock is not None:
            self.conn.sock.settimeout(timeout)
        return self.conn

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def request(self, method, path, body=None, headers=None, timeout=120, sink=None):
        """(status, body bytes, or the bytes written to ``sink``); JSON bodies for dicts."""
        headers = {**self.headers, **(headers or {})}
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        for attempt in (1, 2):
            conn = self._connection(timeout)
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                break
            except (ConnectionError, http.client.RemoteDisconnected, http.client.CannotSendRequest):
                self.close()
                if attempt == 2 or hasattr(body, "read"):
                    raise
        if sink is None:
            data = response.read()
        else:
            data = 0
            while chunk := response.read(2**20):
                sink.write(chunk)
                data += len(chunk)
        if response.will_close:
            self.close()
        return response.status, data

    def json(self, method, path, body=None, expect=200, **kwargs):
        status, data = self.request(method, path, body, **kwargs)
        if status != expect:
            raise RuntimeError(
                f"{method} {path}: {status} (expected {expect}): "
                f"{data[:2000].decode(errors='replace')}"
            )
        return json.loads(data) if data else None


class RunFailed(RuntimeError):
    def __init__(self, message, run):
        super().__init__(message)
        self.run = run


class Service:
    """datahub under gunicorn with ``bench/gunicorn_bench.conf.py`` and ``workers`` web
    workers, a fresh instance folder, SQLite, the bench user logged in (``self.client``).
    A tree whose runs execute in a worker process of their own (``supervises``) gets it
    from gunicorn's master (BENCH_PIPELINE_WORKER); in an older tree they execute in the
    web worker."""

    def __init__(self, root, instance, settings, label, workers=1):
        self.root, self.instance, self.label = Path(root), Path(instance), label
        self.workers = workers
        self.supervises = (self.root / "datahub/pipelines/supervisor.py").exists()
        self.port = free_port()
        inherited = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("DATAHUB_") and key != "GUNICORN_CMD_ARGS"
        }
        self.env = {
            **inherited,
            **datahub_env(self.instance, None, 4),
            **settings,
            "PYTHONPATH": os.pathsep.join(
                [str(self.root)]
                + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
            ),
            "BENCH_BIND": f"127.0.0.1:{self.port}",
            "BENCH_WORKERS": str(workers),
            "BENCH_PIPELINE_WORKER": "1" if self.supervises else "0",
        }
        self.process = self.log = None
        self.client = Client(self.port)

    def __enter__(self):
        self.instance.mkdir(parents=True, exist_ok=True)
        self.log = open(self.instance / "gunicorn.log", "wb")
        prepared = subprocess.run(
            [sys.executable, "-c", PREPARE.format(email=EMAIL, password=PASSWORD)],
            cwd=self.root,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        if prepared.returncode:
            self.log.close()
            raise RuntimeError("migrating and creating the bench user failed:\n" + self.log_tail())
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
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            self._wait_ready()
            login = self.client.json(
                "POST", "/api/v1/auth/login", {"email": EMAIL, "password": PASSWORD}
            )
            self.client.headers["Authorization"] = f"Bearer {login['access_token']}"
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wait_ready(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"gunicorn exited ({self.process.returncode}):\n" + self.log_tail()
                )
            try:
                status, _ = self.client.request("GET", "/healthz", timeout=2)
                if (
                    status == 200
                    and len(self.worker_pids()) == self.workers
                    and (not self.supervises or self.pipeline_worker() is not None)
                ):
                    return
            except OSError:
                self.client.close()
            time.sleep(0.1)
        raise RuntimeError("the service did not start within 60 s:\n" + self.log_tail())

    def worker_pids(self):
        """The web workers' pids."""
        return proctree.web_workers(self.process.pid)

    def pipeline_worker(self):
        """The supervised pipeline worker process's pid (None in an older tree)."""
        return next(
            (
                pid
                for pid in proctree.children(self.process.pid)
                if proctree.is_pipeline_worker(pid)
            ),
            None,
        )

    def log_tail(self, lines=40):
        try:
            text = (self.instance / "gunicorn.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def __exit__(self, *exc):
        self.client.close()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.log is not None:
            self.log.close()

    # --- the API calls the benchmark makes

    def upload(self, source, name):
        """A dataset with ``source`` as its file; its JSON."""
        dataset = self.client.json("POST", "/api/v1/datasets/", {"name": name}, expect=201)
        size = source.stat().st_size
        start = time.perf_counter()
        with open(source, "rb") as body:
            dataset = self.client.json(
                "PUT",
                f"/api/v1/datasets/{dataset['id']}/file?filename={source.name}",
                body,
                headers={"Content-Type": "text/csv", "Content-Length": str(size)},
                timeout=3600,
            )
        seconds = time.perf_counter() - start
        say(f"[{self.label}] uploaded {source.name} ({mib(size)}) in {seconds:.1f} s")
        return dataset

    def stored_path(self, dataset):
        """The stored file of ``dataset`` in ``<instance>/storage``: the file of that size
        whose sha256 is the dataset's."""
        size, sha = dataset["file"]["size_bytes"], dataset["file"]["sha256"]
        storage = self.instance / "storage"
        for path in sorted(storage.iterdir()):
            if path.is_file() and path.stat().st_size == size and sha256_of(path) == sha:
                return path
        raise RuntimeError(f"no file with sha256 {sha} in {storage}")

    def create_pipeline(self, name, source_id, steps, output_name):
        body = {
            "name": name,
            "source_dataset_id": source_id,
            "steps": steps,
            "output_dataset_name": output_name,
            "output_format": "csv",
        }
        status, data = self.client.request("POST", "/api/v1/pipelines/", body)
        if status == 422 and b"output_format" in data:  # an engine from before output_format
            say(f"[{self.label}] this service does not know output_format; created without it")
            del body["output_format"]
            status, data = self.client.request("POST", "/api/v1/pipelines/", body)
        if status != 201:
            raise RuntimeError(f"creating pipeline {name!r}: {status} {data[:2000].decode()}")
        return json.loads(data)

    def run(self, pipeline_id, poll, timeout):
        """POST a run and poll it until it has succeeded: (seconds, run). A run that
        fails or is cancelled raises with its ``error``."""
        path = f"/api/v1/pipelines/{pipeline_id}/runs"
        start = time.perf_counter()
        run = self.client.json("POST", path, expect=201)
        while run["status"] != "succeeded":
            if run["status"] not in ("queued", "running"):
                raise RunFailed(
                    f"[{self.label}] run {run['id']} of pipeline {pipeline_id} "
                    f"{run['status']}: {run.get('error')}\n{self.log_tail()}",
                    run,
                )
            if time.perf_counter() - start > timeout:
                raise RuntimeError(
                    f"[{self.label}] run {run['id']} still {run['status']} after {timeout:g} s"
                )
            time.sleep(poll)
            run = self.client.json("GET", f"{path}/{run['id']}")
        return time.perf_counter() - start, run

    def wait_until_idle(self, run, timeout=120):
        """Until the worker has profiled ``run``'s output (which it does before it takes
        another run), then 0.2 s: the next timed run, and DuckDB alone's, start on an idle
        machine, not behind the last output's aftermath."""
        path = (
            f"/api/v1/datasets/{run['output']['dataset_id']}/versions/{run['output']['version']}"
            "/profile"
        )
        deadline = time.perf_counter() + timeout
        while self.client.request("GET", path)[0] == 202:
            if time.perf_counter() > deadline:
                raise RuntimeError(f"[{self.label}] {path} still pending after {timeout} s")
            time.sleep(0.05)
        time.sleep(0.2)

    def download(self, dataset_id, target):
        with open(target, "wb") as sink:
            status, size = self.client.request(
                "GET", f"/api/v1/datasets/{dataset_id}/file", sink=sink, timeout=3600
            )
        if status != 200:
            raise RuntimeError(f"download of dataset {dataset_id}: {status}")
        return size


def recorded_seconds(run):
    """The run's own duration as the service recorded it (claimed -> finished)."""
    from datetime import datetime

    def parse(text):
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    if not run.get("started_at") or not run.get("finished_at"):
        return math.nan
    return (parse(run["finished_at"]) - parse(run["started_at"])).total_seconds()


def fmt_timings(run):
    """The run's ``timings`` (milliseconds by phase) on one line; a service from before
    them has none."""
    timings = run.get("timings")
    if not timings:
        return "(the service records none)"
    return ", ".join(f"{phase} {ms:g}" for phase, ms in timings.items()) + " (ms)"


def median_timings(runs_timings):
    """Each phase's median over the runs' ``timings``, on one line."""
    phases = list(dict.fromkeys(phase for timings in runs_timings for phase in timings))
    if not phases:
        return "(the service records none)"
    return fmt_timings(
        {
            "timings": {
                phase: round(statistics.median(t.get(phase) or 0 for t in runs_timings), 1)
                for phase in phases
            }
        }
    )


def percentile(values, share):
    """The ``share`` (0-1) percentile of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def engine_settings(memory_limit, threads, temp_dir, max_bytes, run_timeout):
    """The service's DATAHUB_* settings for a run (values are JSON)."""
    settings = {
        "DATAHUB_PIPELINE_EMBEDDED_WORKER": "true",
        "DATAHUB_PIPELINE_POLL_SECONDS": "0.05",
        "DATAHUB_PIPELINE_MEMORY_LIMIT": json.dumps(memory_limit),
        "DATAHUB_PIPELINE_TEMP_DIR": json.dumps(str(temp_dir)),
        "DATAHUB_MAX_CONTENT_LENGTH": str(max_bytes + 1),
        # The run's time limit (the DuckDB engine's name, and the one before it).
        "DATAHUB_PIPELINE_TIMEOUT_SECONDS": str(run_timeout),
        "DATAHUB_PIPELINE_MAX_RUN_SECONDS": str(run_timeout),
    }
    if threads:
        settings["DATAHUB_PIPELINE_THREADS"] = str(threads)
    return settings


# -------------------------------------------------------------------------- DuckDB alone


def duckdb_config(memory_limit, threads, temp_dir):
    config = {"memory_limit": memory_limit, "temp_directory": str(temp_dir)}
    if threads:
        config["threads"] = threads
    return config


def duckdb_copy(sql, source, target, config):
    """DuckDB alone: connect, ``COPY (sql) TO target``; the seconds it took."""
    import duckdb

    query = sql.format(src=sql_string(source))
    start = time.perf_counter()
    with duckdb.connect(config=config) as con:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"COPY ({query}) TO {sql_string(target)} (FORMAT csv, HEADER)")
    return time.perf_counter() - start


CHILD = """
import json, sys, time, duckdb
def status(key):
    with open("/proc/self/status") as f:
        return int(next(l for l in f if l.startswith(key)).split()[1])
sql, target, config = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
idle = status("VmRSS")
start = time.perf_counter()
error = None
try:
    with duckdb.connect(config=config) as con:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"COPY ({sql}) TO '{target}' (FORMAT csv, HEADER)")
except duckdb.Error as exc:
    error = str(exc).splitlines()[0]
seconds = time.perf_counter() - start
print(json.dumps({"idle_kib": idle, "hwm_kib": status("VmHWM"), "seconds": seconds,
                  "error": error}))
"""


def duckdb_subprocess(sql, source, target, config):
    """The same COPY in a fresh Python process: its idle RSS (duckdb imported), peak RSS
    (VmHWM) and seconds."""
    query = sql.format(src=sql_string(source))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, query, str(target), json.dumps(config)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


# ---------------------------------------------------------------------------- comparing


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def compare_csv(ours, theirs):
    """(same, rows in ours, rows in theirs, description)."""
    if filecmp.cmp(ours, theirs, shallow=False):
        with open(ours, "rb") as f:
            rows = sum(1 for _ in f) - 1
        return True, rows, rows, "byte-identical"
    formatting, first, rows = 0, None, [0, 0]
    examples = []
    with open(ours, newline="") as a, open(theirs, newline="") as b:
        for number, (left, right) in enumerate(itertools.zip_longest(csv.reader(a), csv.reader(b))):
            if left is not None:
                rows[0] += 1
            if right is not None:
                rows[1] += 1
            if left == right:
                continue
            if left is None or right is None or len(left) != len(right):
                first = first or (number, left, right)
                continue
            for x, y in zip(left, right, strict=False):
                if x == y:
                    continue
                nx, ny = _number(x), _number(y)
                if (
                    nx is not None
                    and ny is not None
                    and math.isclose(nx, ny, rel_tol=1e-9, abs_tol=1e-9)
                ):
                    formatting += 1
                    if len(examples) < 3:
                        examples.append(f"{x!r} vs {y!r}")
                else:
                    first = first or (number, left, right)
    rows = [r - 1 for r in rows]  # headers
    line_ends = b"\r\n" in open(ours, "rb").read(4096), b"\r\n" in open(theirs, "rb").read(4096)
    notes = []
    if line_ends[0] != line_ends[1]:
        notes.append(
            "line ends differ (service "
            + ("CRLF" if line_ends[0] else "LF")
            + ", DuckDB "
            + ("CRLF" if line_ends[1] else "LF")
            + ")"
        )
    if formatting:
        notes.append(
            f"{formatting:,} numbers differ in formatting or last bits only, e.g. "
            + ", ".join(examples)
        )
    if first is None:
        return (
            True,
            rows[0],
            rows[1],
            "equal after parsing (not byte-identical: " + ("; ".join(notes) or "quoting") + ")",
        )
    number, left, right = first
    return (
        False,
        rows[0],
        rows[1],
        (
            f"DIFFERENT: first at line {number + 1}: service "
            f"{left} vs DuckDB {right}" + (f"; also {'; '.join(notes)}" if notes else "")
        ),
    )


# ----------------------------------------------------------------------------- the bench


def engine_copy(steps, source, target, memory_limit, threads, temp_dir):
    """The service's own engine in this process (``datahub.datasets.tabular`` and
    ``datahub.pipelines.engine``, as ``execute._execute`` calls them) without the service:
    no queue, no HTTP, no storage copy; the seconds it took."""
    from datahub.datasets import tabular
    from datahub.pipelines import engine
    from datahub.pipelines.steps import STEP_SCHEMAS

    steps = [STEP_SCHEMAS[step["op"]]().load(step) for step in steps]
    source, target = str(source), str(target)
    start = time.perf_counter()
    con = tabular.connect(
        [source], [target], memory_limit=memory_limit, threads=threads, temp_dir=str(temp_dir)
    )
    try:
        fmt = tabular.detect_format(source)
        sql, params = tabular.source_sql(source, fmt, 4194304)
        query = engine.compile_steps(
            con, sql, params, steps, {}, 10000, {source: "the source", target: "the output"}
        )
        engine.write(query, target, "csv")
        if hasattr(tabular, "rows_scanned"):  # where it lives since versions
            tabular.rows_scanned(con, source, fmt)
        else:
            try:  # its signature has changed once already
                engine.rows_scanned(con, source, fmt)
            except TypeError:
                engine.rows_scanned(con, source)
    finally:
        con.close()
    return time.perf_counter() - start


def bench_engine(args, root, scratch, report):
    """--engine-only: the engine in-process against DuckDB alone, on the cached CSV."""
    if str(root) != str(ROOT):
        sys.path.insert(0, str(root))
    source, _ = cached_csv(args.cache, args.rows)
    temp = scratch / "spill"
    for folder in ("engine", "duckdb"):
        (temp / folder).mkdir(parents=True)
    config = duckdb_config(args.memory_limit, args.threads, temp / "duckdb")
    say(f"engine only (in-process, no service): jobs {','.join(args.jobs)} over {source.name}")
    times = {job: {"engine": [], "duckdb": []} for job in args.jobs}
    for round_number in range(-args.warmup + 1, args.repeat + 1):
        label = f"round {round_number}" if round_number > 0 else "warm-up"
        for job in args.jobs:
            ours, theirs = scratch / f"engine-{job}.csv", scratch / f"duckdb-{job}.csv"
            ours.unlink(missing_ok=True)
            seconds = engine_copy(
                JOBS[job]["steps"], source, ours, args.memory_limit, args.threads, temp / "engine"
            )
            alone = duckdb_copy(JOBS[job]["sql"], source, theirs, config)
            say(f"{label}: job {job} engine {fmt_s(seconds)}, DuckDB alone {fmt_s(alone)}")
            if round_number > 0:
                times[job]["engine"].append(seconds)
                times[job]["duckdb"].append(alone)
    for job in args.jobs:
        same, n_ours, n_theirs, text = compare_csv(
            scratch / f"engine-{job}.csv", scratch / f"duckdb-{job}.csv"
        )
        report(
            f"job {job} engine output equals DuckDB's",
            f"{n_ours:,} rows",
            f"{n_theirs:,} rows",
            text.split(" (")[0],
            "equal",
            same,
        )
        engine_s = statistics.median(times[job]["engine"])
        duck_s = statistics.median(times[job]["duckdb"])
        report(
            f"job {job} {JOBS[job]['title']}, engine in-process, median time",
            fmt_s(engine_s),
            fmt_s(duck_s),
            f"{duck_s / engine_s:.2f}x",
            f">= {args.target}",
            duck_s / engine_s >= args.target,
        )


def old_engine_tree(rev, folder):
    """``git archive`` of ``rev`` into ``folder``: a source tree to serve from."""
    folder.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def bench_jobs(args, root, scratch, report):
    source, _ = cached_csv(args.cache, args.rows)
    size = source.stat().st_size
    limit_text, threads = args.memory_limit, args.threads
    temp = scratch / "spill"
    for folder in ("service", "duckdb"):
        (temp / folder).mkdir(parents=True)
    settings = engine_settings(limit_text, threads, temp / "service", size, args.run_timeout)
    config = duckdb_config(limit_text, threads, temp / "duckdb")
    say(
        f"jobs {','.join(args.jobs)} over {source.name} ({args.rows:,} rows, {mib(size)}); "
        f"memory_limit {limit_text}, threads {threads or 'default (one per CPU)'}; "
        f"{args.warmup} warm-up + {args.repeat} timed rounds"
    )
    times = {job: {"service": [], "recorded": [], "duckdb": []} for job in args.jobs}
    with Service(root, scratch / "instance", settings, "service") as service:
        dataset = service.upload(source, "pipelines bench source")
        stored = service.stored_path(dataset)
        outputs = {job: scratch / f"duckdb-{job}.csv" for job in args.jobs}
        runs = {}
        for round_number in range(-args.warmup + 1, args.repeat + 1):
            label = f"round {round_number}" if round_number > 0 else "warm-up"
            for job in args.jobs:  # interleaved: A service, A DuckDB, B service, ...
                # A new pipeline definition each round: a fresh run, never one reused.
                name = f"bench job {job} round {round_number + args.warmup}"
                pipeline = service.create_pipeline(
                    name, dataset["id"], JOBS[job]["steps"], f"{name} out"
                )
                seconds, runs[job] = service.run(pipeline["id"], args.poll, args.run_timeout)
                service.wait_until_idle(runs[job])
                alone = duckdb_copy(JOBS[job]["sql"], stored, outputs[job], config)
                recorded = recorded_seconds(runs[job])
                say(
                    f"{label}: job {job} service {fmt_s(seconds)} (run {runs[job]['id']}: "
                    f"{fmt_s(recorded)} started -> finished, "
                    f"rows {fmt_n(runs[job]['rows_in'])} -> {fmt_n(runs[job]['rows_out'])}), "
                    f"DuckDB alone {fmt_s(alone)}"
                )
                say(f"    phases: {fmt_timings(runs[job])}")
                if round_number > 0:
                    times[job]["service"].append(seconds)
                    times[job]["recorded"].append(recorded)
                    times[job]["duckdb"].append(alone)
                    times[job].setdefault("timings", []).append(runs[job].get("timings") or {})
        for job in args.jobs:
            ours = scratch / f"service-{job}.csv"
            service.download(runs[job]["output_dataset_id"], ours)
            same, n_ours, n_theirs, text = compare_csv(ours, outputs[job])
            counted = runs[job]["rows_out"]
            same = same and n_ours == n_theirs == counted
            say(
                f"job {job} output: service {n_ours:,} rows (run says {fmt_n(counted)}), DuckDB "
                f"{n_theirs:,} rows: {text}"
            )
            report(
                f"job {job} output equals DuckDB's",
                f"{n_ours:,} rows",
                f"{n_theirs:,} rows",
                text.split(" (")[0],
                "equal",
                same,
            )
            ours.unlink()
    for job in args.jobs:
        service_s = statistics.median(times[job]["service"])
        duck_s = statistics.median(times[job]["duckdb"])
        ratio = duck_s / service_s
        say(
            f"job {job} ({JOBS[job]['title']}): service "
            + ", ".join(fmt_s(s) for s in times[job]["service"])
            + " (started -> finished "
            + ", ".join(fmt_s(s) for s in times[job]["recorded"])
            + "); DuckDB alone "
            + ", ".join(fmt_s(s) for s in times[job]["duckdb"])
        )
        report(
            f"job {job} {JOBS[job]['title']}, {args.rows:,} rows, median time",
            fmt_s(service_s),
            fmt_s(duck_s),
            f"{ratio:.2f}x",
            f">= {args.target}",
            ratio >= args.target,
        )
        say(f"job {job} phases, medians: {median_timings(times[job]['timings'])}")
        recorded_s = statistics.median(times[job]["recorded"])
        report(
            f"job {job}: the run as recorded (started -> finished), median",
            fmt_s(recorded_s),
            fmt_s(duck_s),
            f"{duck_s / recorded_s:.2f}x",
            "(not judged)",
            True,
        )


def bench_small(args, root, scratch, report):
    """A small run (``--small-rows``, 1,000) from POST to ``succeeded`` on an idle worker,
    ``--small-runs`` times, each a new pipeline definition (a fresh run); DuckDB alone's
    COPY of the same query over the same stored file between them."""
    source, _ = cached_csv(args.cache, args.small_rows)
    temp = scratch / "spill-small"
    for folder in ("service", "duckdb"):
        (temp / folder).mkdir(parents=True)
    settings = engine_settings(
        args.memory_limit, args.threads, temp / "service", source.stat().st_size, 60
    )
    config = duckdb_config(args.memory_limit, args.threads, temp / "duckdb")
    steps = [{"op": "select", "columns": ["id", "city", "amount"]}]
    sql = "SELECT id, city, amount FROM read_csv({src})"
    times, alone, phases = [], [], []
    with Service(root, scratch / "instance-small", settings, "small") as service:
        dataset = service.upload(source, "pipelines small source")
        stored = service.stored_path(dataset)
        for number in range(args.small_runs + 1):  # the first: a warm-up
            pipeline = service.create_pipeline(
                f"small {number}", dataset["id"], steps, f"small {number} out"
            )
            seconds, run = service.run(pipeline["id"], args.small_poll, 60)
            service.wait_until_idle(run)  # the next run starts on an idle worker
            baseline = duckdb_copy(sql, stored, scratch / "duckdb-small.csv", config)
            if number:
                times.append(seconds)
                alone.append(baseline)
                phases.append(run.get("timings") or {})
    say(f"small runs: service {', '.join(fmt_s(s) for s in times)}")
    say(f"small runs: DuckDB alone {', '.join(fmt_s(s) for s in alone)}")
    say(f"small runs' phases, medians: {median_timings(phases)}")
    median, p95 = statistics.median(times), percentile(times, 0.95)
    what = f"small run ({args.small_rows:,} rows, select), POST to succeeded"
    report(
        f"{what}, median of {len(times)}",
        fmt_s(median),
        fmt_s(statistics.median(alone)),
        f"{statistics.median(alone) / median:.2f}x",
        "<= 100 ms",
        median <= 0.1,
    )
    report(
        f"{what}, p95",
        fmt_s(p95),
        fmt_s(percentile(alone, 0.95)),
        "-",
        "<= 200 ms",
        p95 <= 0.2,
    )


def bench_memory(args, root, scratch, report):
    limit = parse_size(args.memcheck_limit)
    rows = args.memcheck_rows or rows_for_size(limit * args.memcheck_factor)
    source, _ = cached_csv(args.cache, rows)
    size = source.stat().st_size
    temp = scratch / "spill-memory"
    for folder in ("service", "duckdb"):
        (temp / folder).mkdir(parents=True)
    settings = engine_settings(
        args.memcheck_limit, args.threads, temp / "service", size, args.run_timeout
    )
    say(
        f"memory check: sort by note of {source.name} ({rows:,} rows, {mib(size)}, "
        f"{size / limit:.1f}x) with memory_limit {args.memcheck_limit} ({mib(limit)})"
    )
    budget_kib = (limit + parse_size(args.memcheck_slack)) // 1024
    budget = f"<= {mib(budget_kib * 1024)} (limit + {args.memcheck_slack})"
    ours, theirs = scratch / "service-memory.csv", scratch / "duckdb-memory.csv"
    with Service(root, scratch / "instance-memory", settings, "memory") as service:
        dataset = service.upload(source, "pipelines memory source")
        stored = service.stored_path(dataset)
        pipeline = service.create_pipeline(
            "bench memory sort", dataset["id"], MEMCHECK_STEPS, "bench memory sort out"
        )
        time.sleep(1)  # let the upload's buffers go
        failed = None
        with proctree.TreeSampler(service.process.pid) as rss:
            try:
                seconds, run = service.run(pipeline["id"], args.poll, args.run_timeout)
            except RunFailed as exc:  # reported, and DuckDB alone still tried
                failed, run = exc.run.get("error"), exc.run
                seconds = recorded_seconds(run)
        say(
            f"memory check: service run {fmt_s(seconds)} "
            + (f"FAILED: {failed}" if failed else "succeeded")
            + f", rows {fmt_n(run['rows_in'])} -> {fmt_n(run['rows_out'])}; {rss.summary()}"
        )
        if not failed:
            service.download(run["output_dataset_id"], ours)
        config = duckdb_config(args.memcheck_limit, args.threads, temp / "duckdb")
        alone = duckdb_subprocess(MEMCHECK_SQL, stored, theirs, config)
    if alone.get("error"):
        say(f"memory check: DuckDB alone (subprocess) FAILED too: {alone['error']}")
    else:
        say(
            f"memory check: DuckDB alone (subprocess) {fmt_s(alone['seconds'])}, idle RSS "
            f"{mib(alone['idle_kib'] * 1024)}, peak RSS {mib(alone['hwm_kib'] * 1024)}"
        )
    peak, _, role = rss.largest()
    alone_text = "failed" if alone.get("error") else mib(alone["hwm_kib"] * 1024)
    report(
        f"memory check: sort {mib(size)} CSV, limit {args.memcheck_limit}: peak RSS of "
        "the largest process",
        f"{mib(peak * 1024)} ({role})",
        f"DuckDB alone {alone_text}",
        f"{peak / budget_kib:.2f}x of budget",
        budget,
        peak <= budget_kib and not failed,
    )
    growth = rss.web_growth_kib()
    judged = service.supervises  # before, the run executed in the web worker
    report(
        "memory check: web worker's RSS growth during the run",
        mib(growth * 1024),
        "-",
        "-",
        "<= 50 MiB" if judged else "(not judged: runs in it)",
        growth <= 50 * 1024 or not judged,
    )
    if failed or alone.get("error"):
        report(
            "memory check: the sort ran",
            "FAILED" if failed else "ok",
            "FAILED" if alone.get("error") else "ok",
            "-",
            "both ok",
            False,
        )
        for path in (ours, theirs):
            path.unlink(missing_ok=True)
        return
    same = filecmp.cmp(ours, theirs, shallow=False)
    text = "byte-identical" if same else "not byte-identical"
    if not same and args.memcheck_compare:
        same, _, _, text = compare_csv(ours, theirs)
    say(f"memory check: outputs {text}")
    for path in (ours, theirs):
        path.unlink()
    report(
        "memory check: sort time, DuckDB alone / service",
        fmt_s(seconds),
        fmt_s(alone["seconds"]),
        f"{alone['seconds'] / seconds:.2f}x",
        "(not judged)",
        True,
    )
    report(
        "memory check: output equals DuckDB's",
        f"{fmt_n(run['rows_out'])} rows",
        f"{rows:,} rows",
        text,
        "equal",
        same and run["rows_out"] == rows,
    )


def run_benchmark(args, report):
    with contextlib.ExitStack() as stack:
        if args.keep:
            scratch = Path(tempfile.mkdtemp(prefix="datahub-bench-pipelines-", dir=args.scratch))
            say(f"scratch folder (kept): {scratch}")
        else:
            scratch = Path(
                stack.enter_context(
                    tempfile.TemporaryDirectory(prefix="datahub-bench-pipelines-", dir=args.scratch)
                )
            )
        root = Path(args.source) if args.source else ROOT
        if args.old_engine:
            root = old_engine_tree(args.old_engine, scratch / "source")
            say(f"serving the code of {args.old_engine} (git archive) from {root}")
        if args.engine_only:
            bench_engine(args, root, scratch, report)
            return
        if not args.memory_only and not args.small_only:
            bench_jobs(args, root, scratch, report)
        if args.small_runs and not args.memory_only:
            bench_small(args, root, scratch, report)
        if args.small_only:
            return
        if not args.skip_memory:
            bench_memory(args, root, scratch, report)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m bench.pipelines",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows of the jobs' CSV")
    parser.add_argument("--repeat", type=int, default=3, help="timed rounds (medians)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds first")
    parser.add_argument(
        "--jobs",
        default="A,B",
        type=lambda text: [job.strip().upper() for job in text.split(",") if job.strip()],
        help="A (filter + sort + select), B (aggregate), or both: A,B",
    )
    parser.add_argument(
        "--memory-limit",
        default="512MB",
        help="PIPELINE_MEMORY_LIMIT for the jobs, and DuckDB's memory_limit",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="PIPELINE_THREADS and DuckDB's threads (default: DuckDB's, one per CPU)",
    )
    parser.add_argument(
        "--engine-only",
        action="store_true",
        help="the service's engine in this process against DuckDB alone (no "
        "gunicorn, HTTP, queue or storage; no memory check)",
    )
    parser.add_argument(
        "--target", type=float, default=0.9, help="DuckDB time / service time must be at least this"
    )
    parser.add_argument("--poll", type=float, default=0.02, help="seconds between run polls")
    parser.add_argument(
        "--run-timeout",
        type=int,
        default=3600,
        help="seconds a run may take (the service's limit, and ours)",
    )
    small = parser.add_argument_group("the small run")
    small.add_argument(
        "--small-runs", type=int, default=20, help="timed small runs (0: none), after a warm-up"
    )
    small.add_argument("--small-rows", type=int, default=1000, help="rows of the small CSV")
    small.add_argument(
        "--small-poll", type=float, default=0.005, help="seconds between the small runs' polls"
    )
    small.add_argument(
        "--small-only", action="store_true", help="only the small runs (no jobs, no memory check)"
    )
    memory = parser.add_argument_group("the memory check")
    memory.add_argument("--skip-memory", action="store_true", help="no memory check")
    memory.add_argument("--memory-only", action="store_true", help="only the memory check")
    memory.add_argument(
        "--memcheck-limit",
        default="256MB",
        help="PIPELINE_MEMORY_LIMIT of the memory check's service",
    )
    memory.add_argument(
        "--memcheck-factor",
        type=float,
        default=4.0,
        help="its CSV is about this many times the limit",
    )
    memory.add_argument(
        "--memcheck-rows",
        type=int,
        default=None,
        help="rows of its CSV instead (overrides the factor)",
    )
    memory.add_argument(
        "--memcheck-slack",
        default="100MB",
        help="the worker's peak RSS may exceed the limit by this much",
    )
    memory.add_argument(
        "--memcheck-compare",
        action="store_true",
        help="parse and compare the sorted outputs if not byte-identical",
    )
    where = parser.add_argument_group("where")
    where.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "datahub-bench-cache",
        help="generated CSVs, kept between runs",
    )
    where.add_argument(
        "--scratch", default=None, help="parent of the temporary instance folders and outputs"
    )
    where.add_argument("--keep", action="store_true", help="keep the scratch folder")
    where.add_argument(
        "--source", default=None, help="serve the datahub source tree in this folder instead"
    )
    where.add_argument(
        "--old-engine",
        metavar="REV",
        default=None,
        help="serve the code of git revision REV (git archive to scratch)",
    )
    return parser


HEADER = ("case", "datahub", "baseline", "ratio", "target", "")


def main(argv=None):
    args = build_parser().parse_args(argv)
    unknown = [job for job in args.jobs if job not in JOBS]
    if unknown:
        sys.exit(f"unknown job(s): {', '.join(unknown)} (A, B)")
    if args.memory_only and args.skip_memory:
        sys.exit("--memory-only and --skip-memory exclude each other")
    for size in (args.memory_limit, args.memcheck_limit):
        parse_size(size)
    return run_reported(
        lambda report: run_benchmark(args, report),
        lambda: f"DuckDB {duckdb_version()}, {os.cpu_count()} CPUs",
    )


def run_reported(run, footer):
    """Run ``run(report)``, each ``report(name, ours, baseline, ratio, target, ok)`` said as
    it comes and printed as a table at the end with ``footer()``; exit status 0 when every
    row met its target. Shared by the bench modules' ``main``."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rows = []

    def report(name, ours, baseline, ratio, target, ok):
        rows.append((name, ours, baseline, ratio, target, "PASS" if ok else "MISS"))
        say(f"{'PASS' if ok else 'MISS'}: {name}: {ours} vs {baseline} = {ratio} (target {target})")

    started = time.perf_counter()
    try:
        run(report)
    finally:
        if rows:
            widths = [max(len(str(r[i])) for r in rows + [HEADER]) for i in range(len(HEADER))]
            print()
            for row in [HEADER] + rows:
                print(
                    "  ".join(
                        str(cell).ljust(width) for cell, width in zip(row, widths, strict=False)
                    )
                )
            print(f"\n({time.perf_counter() - started:.0f} s; {footer()})", flush=True)
    return 0 if rows and all(r[-1] == "PASS" for r in rows) else 1


def duckdb_version():
    import duckdb

    return duckdb.__version__


if __name__ == "__main__":
    sys.exit(main())
