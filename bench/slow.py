"""The slow-client case's machinery: the service as deployed (gunicorn.conf.py), an open-loop
latency probe, and slow clients that trickle request bodies or read downloads slowly.

Everything talks to 127.0.0.1 only; every loop is bounded in count and in time."""

import errno
import http.client
import json
import math
import os
import runpy
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "gunicorn.conf.py"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(env, extra=None):
    """The process environment for a deployed gunicorn: inherited DATAHUB_* variables and
    GUNICORN_CMD_ARGS are dropped, so only gunicorn.conf.py and ``env`` decide."""
    inherited = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("DATAHUB_") and k != "GUNICORN_CMD_ARGS"
    }
    return {**inherited, **env, **(extra or {})}


def deployed_settings(env):
    """gunicorn's effective settings from gunicorn.conf.py under ``env``, read the way
    gunicorn reads a config file (so defaults the file leaves out are gunicorn's own)."""
    from gunicorn.config import Config

    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(env)
        namespace = runpy.run_path(str(CONF))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    cfg = Config()
    for key, value in namespace.items():
        if key in cfg.settings:
            cfg.set(key.lower(), value)
    return {
        "workers": cfg.workers,
        "worker_class": cfg.worker_class_str,
        "threads": cfg.threads,
        "worker_connections": cfg.worker_connections,
        "timeout": cfg.timeout,
        "graceful_timeout": cfg.graceful_timeout,
        "keepalive": cfg.keepalive,
        "backlog": cfg.backlog,
    }


def _children(pid):
    try:
        return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []


class DeployedServer:
    """``python -m gunicorn -c gunicorn.conf.py`` on a free loopback port, in a session of
    its own (so that everything it forked can be stopped), its log in ``log_path``."""

    def __init__(self, env, log_path):
        self.port = free_port()
        self.env = server_env(env, {"DATAHUB_BIND": f"127.0.0.1:{self.port}"})
        self.settings = deployed_settings(self.env)
        self.log_path = Path(log_path)
        self.process = None

    def __enter__(self):
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", str(CONF)],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self):
        deadline = time.monotonic() + 60
        url = f"http://127.0.0.1:{self.port}/readyz"
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not start:\n" + self.log())
            time.sleep(0.1)
        # Every worker booted, so that none is still starting when the baseline runs.
        while len(_children(self.process.pid)) < self.settings["workers"]:
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.worker_count = len(_children(self.process.pid))

    def log(self):
        return self.log_path.read_text(errors="replace")

    def stop(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=self.settings["graceful_timeout"] + 10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        try:  # a worker left behind by a master that died
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def __exit__(self, *exc):
        self.stop()


def tcp_counts(port):
    """Server-side sockets on 127.0.0.1:``port`` from /proc/net/tcp: (open, queued) where
    ``open`` counts ESTABLISHED and CLOSE_WAIT connections (accepted or not) and ``queued``
    those in the listening socket's accept queue (not yet accepted by the server)."""
    open_count = queued = 0
    with open("/proc/net/tcp") as table:
        next(table)
        for line in table:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) != port:
                continue
            if fields[3] in ("01", "08"):
                open_count += 1
            elif fields[3] == "0A":
                queued += int(fields[4].split(":")[1], 16)
    return open_count, queued


def wait_idle(port, limit):
    """Seconds until gunicorn on ``port`` has nothing left in its accept queue and answers
    /healthz at once (then one more second), or None after ``limit`` seconds."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if tcp_counts(port)[1] == 0:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/healthz", timeout=1
                ) as response:
                    if response.status == 200:
                        time.sleep(1)
                        return time.monotonic() - start
            except OSError:
                pass
        time.sleep(0.2)
    return None


# -- the latency probe ---------------------------------------------------------------------


class Target:
    """Where the probe and the slow clients connect: plain http to gunicorn, or https to
    nginx (throw-away certificate, not verified)."""

    def __init__(self, port, tls):
        self.port, self.tls = port, tls
        self.context = ssl._create_unverified_context() if tls else None

    def connection(self, timeout):
        if self.tls:
            return http.client.HTTPSConnection(
                "127.0.0.1", self.port, timeout=timeout, context=self.context
            )
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def socket(self, timeout, rcvbuf=None):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            if rcvbuf:  # before connect: it decides the window scale offered
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            sock.settimeout(timeout)
            sock.connect(("127.0.0.1", self.port))
            if self.tls:
                sock = self.context.wrap_socket(sock, server_hostname="localhost")
        except BaseException:
            sock.close()
            raise
        return sock


def _one_request(target, method, path, body, timeout, scheduled):
    """Seconds from ``scheduled`` to the whole answer, or the failure's name."""
    conn = target.connection(timeout)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        elapsed = time.monotonic() - scheduled
        if elapsed > timeout:
            return "timeout"
        return elapsed if response.status == 200 else f"HTTP {response.status}"
    except TimeoutError:
        return "timeout"
    except OSError as exc:
        return type(exc).__name__
    except http.client.HTTPException as exc:
        return type(exc).__name__
    finally:
        conn.close()


def probe(target, streams, seconds, timeout):
    """Open loop: each stream (name, method, path, body, interval) sends one request every
    ``interval`` seconds for ``seconds``, each on a new connection, whatever the answers
    do; a latency counts from when the request was due (a request that waits for a free
    probe thread is late, not excused). Returns {name: [seconds or failure name]}."""
    results = {}

    def run(name, method, path, body, interval):
        count = max(1, int(seconds / interval))
        with ThreadPoolExecutor(
            max_workers=min(128, math.ceil(timeout / interval) + 4),
            thread_name_prefix=f"probe-{name}",
        ) as pool:
            futures, start = [], time.monotonic()
            for i in range(count):
                due = start + i * interval
                time.sleep(max(0.0, due - time.monotonic()))
                futures.append(pool.submit(_one_request, target, method, path, body, timeout, due))
            results[name] = [future.result() for future in futures]

    threads = [threading.Thread(target=run, args=stream, daemon=True) for stream in streams]
    for thread in threads:
        thread.start()
    for thread in threads:
        # Bounded: the schedule, then each request's own socket timeouts.
        thread.join(seconds + 4 * timeout + 30)
    return results


def percentile(samples, fraction):
    """Nearest-rank percentile; a failed request ranks above every answered one (inf)."""
    values = sorted(s if isinstance(s, float) else math.inf for s in samples)
    if not values:
        return math.nan
    return values[max(0, math.ceil(fraction * len(values)) - 1)]


def failures(samples):
    counts = {}
    for sample in samples:
        if not isinstance(sample, float):
            counts[sample] = counts.get(sample, 0) + 1
    return counts


# -- slow clients --------------------------------------------------------------------------

_WOULD_BLOCK = (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ssl.SSLWantWriteError)


class SlowClient:
    def __init__(self, kind, head, first):
        self.kind, self.head, self.first = kind, head, first
        self.sock = None
        self.state = "new"  # open, refused, answered, closed, reset, finished
        self.detail = ""
        self.sent = self.received = 0
        self.response_head = b""
        self.status = None
        self.length = None
        self.body_received = 0
        self.seen = 0  # body bytes at the last snapshot

    @property
    def open(self):
        return self.state == "open"


class SlowClients:
    """``bodies`` clients that send a request head and then a few bytes of body every
    ``trickle_every`` seconds (half a dataset upload, half a JSON login, both with a
    Content-Length they never reach), and ``downloads`` clients that ask for a large file
    with a small SO_RCVBUF and read ``read_bytes`` every ``tick`` seconds. One thread drives
    them all with non-blocking sockets; ``snapshot`` tells what state they are in."""

    def __init__(
        self,
        target,
        *,
        bodies,
        downloads,
        token,
        upload_path,
        download_path,
        tick=0.25,
        trickle_every=1.0,
        trickle_bytes=4,
        read_bytes=1024,
        rcvbuf=4096,
        max_seconds=600,
    ):
        self.target, self.tick, self.read_bytes, self.rcvbuf = target, tick, read_bytes, rcvbuf
        self.trickle_ticks = max(1, round(trickle_every / tick))
        self.trickle = b"a" * trickle_bytes
        self.max_seconds = max_seconds
        auth = f"Authorization: Bearer {token}\r\n"
        host = "Host: localhost\r\n"
        upload = (
            f"PUT {upload_path}?filename=slow.bin HTTP/1.1\r\n{host}{auth}"
            "Content-Type: application/octet-stream\r\n"
            f"Content-Length: {16 * 1024 * 1024}\r\n\r\n"
        ).encode()
        login = (
            f"POST /api/v1/auth/login HTTP/1.1\r\n{host}Content-Type: application/json\r\n"
            f"Content-Length: {64 * 1024}\r\n\r\n"
        ).encode()
        download = (
            f"GET {download_path} HTTP/1.1\r\n{host}{auth}Connection: close\r\n\r\n"
        ).encode()
        self.clients = []
        for i in range(max(bodies, downloads)):  # interleaved, so both kinds reach workers
            if i < bodies:
                self.clients.append(
                    SlowClient("upload", upload, b"")
                    if i % 2 == 0
                    else SlowClient("login", login, b'{"email": "')
                )
            if i < downloads:
                self.clients.append(SlowClient("download", download, b""))
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.connected = threading.Event()
        self.thread = threading.Thread(target=self._run, name="slow-clients", daemon=True)

    # The driver thread --------------------------------------------------------------------

    def _connect(self, client):
        try:
            rcvbuf = self.rcvbuf if client.kind == "download" else None
            client.sock = self.target.socket(timeout=5, rcvbuf=rcvbuf)
            client.sock.sendall(client.head + client.first)
            client.sent = len(client.first)
            client.sock.setblocking(False)
            client.state = "open"
        except OSError as exc:
            client.state, client.detail = "refused", type(exc).__name__
            if client.sock is not None:
                client.sock.close()
                client.sock = None

    def _take(self, client, data):
        """Bytes from the server: the response head, then (downloads) the body."""
        client.received += len(data)
        if client.status is None:
            client.response_head += data
            if b"\r\n\r\n" not in client.response_head:
                if len(client.response_head) > 65536:
                    client.state, client.detail = "answered", "no response head"
                return
            head, _, rest = client.response_head.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            try:
                client.status = int(lines[0].split()[1])
            except (IndexError, ValueError):
                client.status = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    client.length = int(value.strip())
            data = rest
            if client.kind != "download" or client.status != 200:
                client.state, client.detail = "answered", f"HTTP {client.status}"
                return
        client.body_received += len(data)
        if client.length is not None and client.body_received >= client.length:
            client.state = "finished"

    def _step(self, client, tick_number):
        try:
            if client.kind == "download":
                data = client.sock.recv(self.read_bytes)
            else:
                data = client.sock.recv(4096)  # an answer (or a close) ends a trickle
            if not data:
                client.state = "closed"
                return
            self._take(client, data)
        except _WOULD_BLOCK:
            pass
        except OSError as exc:
            client.state, client.detail = "reset", errno.errorcode.get(exc.errno, str(exc))
            return
        if client.open and client.kind != "download" and tick_number % self.trickle_ticks == 0:
            try:
                client.sent += client.sock.send(self.trickle)
            except _WOULD_BLOCK:
                pass
            except OSError as exc:
                client.state, client.detail = "reset", errno.errorcode.get(exc.errno, str(exc))

    def _run(self):
        deadline = time.monotonic() + self.max_seconds
        for client in self.clients:
            if self.stopping.is_set() or time.monotonic() > deadline:
                break
            with self.lock:
                self._connect(client)
            time.sleep(0.01)
        self.connected.set()
        tick_number = 0
        while not self.stopping.is_set() and time.monotonic() < deadline:
            started = time.monotonic()
            with self.lock:
                for client in self.clients:
                    if client.open:
                        self._step(client, tick_number)
            tick_number += 1
            self.stopping.wait(max(0.0, self.tick - (time.monotonic() - started)))

    # The bench's side ---------------------------------------------------------------------

    def __enter__(self):
        self.thread.start()
        if not self.connected.wait(timeout=len(self.clients) * 6 + 10):
            raise RuntimeError("the slow clients did not finish connecting")
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join(timeout=30)
        with self.lock:
            for client in self.clients:
                if client.sock is not None:
                    client.sock.close()

    def snapshot(self):
        """Counts by kind and state; ``receiving``: downloads whose body grew since the
        previous snapshot."""
        with self.lock:
            counts = {"open": 0, "receiving": 0, "downloads_started": 0, "states": {}}
            for client in self.clients:
                key = f"{client.kind} {client.state}" + (
                    f" ({client.detail})" if client.detail else ""
                )
                counts["states"][key] = counts["states"].get(key, 0) + 1
                counts["open"] += client.open
                if client.kind == "download" and client.open and client.status == 200:
                    counts["downloads_started"] += 1
                    counts["receiving"] += client.body_received > client.seen
                client.seen = client.body_received
            counts["body_bytes_sent"] = sum(c.sent for c in self.clients if c.kind != "download")
            counts["download_bytes"] = sum(c.body_received for c in self.clients)
            return counts


class Sampler:
    """Every second while in use: the slow clients' snapshot and the server-side socket
    counts of ``ports`` (name -> port)."""

    def __init__(self, slow, ports, max_seconds=600):
        self.slow, self.ports, self.max_seconds = slow, ports, max_seconds
        self.samples = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="sampler", daemon=True)

    def _run(self):
        deadline = time.monotonic() + self.max_seconds
        while not self.stopping.is_set() and time.monotonic() < deadline:
            sample = self.slow.snapshot()
            sample["tcp"] = {name: tcp_counts(port) for name, port in self.ports.items()}
            self.samples.append(sample)
            self.stopping.wait(1.0)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.thread.join(timeout=10)


def login_body(email, password):
    return json.dumps({"email": email, "password": password}).encode()
