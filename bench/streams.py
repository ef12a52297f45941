"""Event streams benchmark (bench/README.rst, "Event streams"):

    python -m bench.streams                     # SQLite (~2 minutes)
    python -m bench.streams --database-url postgresql://postgres@127.0.0.1:5432/bench

One gunicorn host (``--workers`` processes, 64 threads each, the deployed worker class).
``GET /healthz`` and ``GET /api/v1/auth/me`` latency under wrk (``--connections``
connections for ``--seconds`` each), with no event stream open and with ``--streams``
open, in interleaved rounds; meanwhile a dataset is created every second, and every open
stream must receive each one. Reported: p50 and p99 of each, their ratio (target p99 ≤ 2×
with none open), and the web workers' resident memory per open stream.
"""

import argparse
import json
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import (  # noqa: E402
    EMAIL,
    PASSWORD,
    Server,
    datahub_env,
    prepare_datahub,
    wrk_output,
)

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def wrk_latency(port, path, headers, seconds, connections):
    """wrk's p50 and p99 latency, in ms."""
    out = wrk_output(port, path, headers, seconds, connections)
    found = dict(re.findall(r"^\s+(50|99)%\s+([\d.]+\w+)", out, re.M))

    def ms(text):
        value, unit = re.fullmatch(r"([\d.]+)(\w+)", text).groups()
        return float(value) * UNITS[unit]

    return ms(found["50"]), ms(found["99"])


class Streams:
    """``count`` open event streams, read by one thread: how many events each received."""

    def __init__(self, port, token, count):
        self.selector = selectors.DefaultSelector()
        self.received = {}
        request = (
            "GET /api/v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\n\r\n"
        ).encode()
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(request)
            head = b""
            while b"\r\n\r\n" not in head:
                head += sock.recv(4096)
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head.decode(errors="replace"))
            sock.setblocking(False)
            self.received[sock] = head.split(b"\r\n\r\n", 1)[1].count(b"\ndata: ")
            self.selector.register(sock, selectors.EVENT_READ)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while not self.stop.is_set():
            for key, _ in self.selector.select(0.2):
                data = key.fileobj.recv(65536)
                self.received[key.fileobj] += data.count(b"\ndata: ")

    def close(self):
        self.stop.set()
        self.thread.join()
        for sock in self.received:
            sock.close()


def worker_rss_kb(server):
    """The resident memory of the server's web workers (the master's children that are
    gunicorn workers), in KiB."""
    children = subprocess.run(
        ["ps", "-o", "pid=,rss=,args=", "--ppid", str(server.process.pid)],
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    return sum(int(line.split()[1]) for line in children if "gunicorn" in line)


NAMES = iter(range(10**9))


def creator(server, headers, stop, created):
    while not stop.is_set():
        status, data, _ = server.request(
            "POST", "/api/v1/datasets/", {"name": f"s{next(NAMES)}"}, headers
        )
        assert status == 201, data
        created.append(1)
        stop.wait(1.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url")
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=8)
    args = parser.parse_args()
    instance = tempfile.mkdtemp(prefix="bench-streams-")
    env = datahub_env(instance, args.database_url or f"sqlite:///{instance}/bench.db", 4)
    # One bench user holds every stream: its per-process limit is raised for the bench.
    env["DATAHUB_EVENTS_STREAMS_PER_USER"] = str(args.streams)
    prepare_datahub(env)
    with Server("wsgi:app", env, args.workers) as server:
        status, data, _ = server.request(
            "POST", "/api/v1/auth/login", {"email": EMAIL, "password": PASSWORD}
        )
        assert status == 200, data
        token = json.loads(data)["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        paths = {"healthz": "/healthz", "me": "/api/v1/auth/me"}
        results = {(name, open_): [] for name in paths for open_ in (False, True)}
        memory = []
        for _ in range(args.rounds):
            for open_ in (False, True):
                stop, created = threading.Event(), []
                before = worker_rss_kb(server)
                streams = Streams(server.port, token, args.streams if open_ else 0)
                time.sleep(1)
                if open_:
                    memory.append((worker_rss_kb(server) - before) / args.streams)
                feeder = threading.Thread(target=creator, args=(server, headers, stop, created))
                feeder.start()
                for name, path in paths.items():
                    results[(name, open_)].append(
                        wrk_latency(server.port, path, headers, args.seconds, args.connections)
                    )
                stop.set()
                feeder.join()
                time.sleep(1.5)  # the last event reaches every stream
                if open_:
                    short = [n for n in streams.received.values() if n != len(created)]
                    assert not short, f"{len(short)} streams missed events of {len(created)}"
                streams.close()
                time.sleep(1)  # the hub sees them closed
    rows = []
    for name in paths:
        none = results[(name, False)]
        some = results[(name, True)]
        p50 = (statistics.median(p[0] for p in none), statistics.median(p[0] for p in some))
        p99 = (statistics.median(p[1] for p in none), statistics.median(p[1] for p in some))
        ratio = p99[1] / p99[0]
        rows.append(
            {
                "case": name,
                "p50_ms": [round(v, 2) for v in p50],
                "p99_ms": [round(v, 2) for v in p99],
                "p99_ratio": round(ratio, 2),
                "target": "<= 2",
                "met": ratio <= 2,
            }
        )
    print(json.dumps({"streams": args.streams, "rows": rows}, indent=1))
    print(f"memory per open stream: {statistics.median(memory):.1f} KiB (workers' RSS)")


if __name__ == "__main__":
    main()
