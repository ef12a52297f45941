"""Events benchmark (bench/README.rst, "Events"):

    python -m bench.events                       # SQLite (~3 minutes)
    python -m bench.events --database-url postgresql://postgres@127.0.0.1:5432/bench

1. **outbox**: ``POST /api/v1/datasets/`` p50 through gunicorn, with the event written
   in the create's transaction, against the same service whose outbox's ``record`` is a
   no-op (bench/no_outbox_app.py), one create on each in turn; target ≤ 1.05×
   (``--end-reads-off``: both again with ``END_READS_WITH_COMMIT`` off).
2. **latency**: a dataset changed 50 times a second for ``--seconds`` (gunicorn, one
   ``flask worker`` process delivering): the time from each event (its CloudEvent
   ``time``) to its arrival at a webhook receiver on loopback; target p99 ≤ 1 s.
3. **failures**: 1,000 messages to a receiver that fails the first attempt of every fifth
   one (20%): every message arrives with a 2xx exactly once by ``webhook-id``
   (repeats on the wire allowed, none lost).
4. **slow neighbour**: one user's receiver takes 20 s to answer (cut at the 5 s timeout)
   and they ping it 40 times; meanwhile another user's dataset changes twice a second:
   the time from each of those events to its arrival; target: the slowest ≤ 2 s
   (``--slow-only``: this case alone).
"""

import argparse
import contextlib
import http.server
import json
import os
import random
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

from bench.run import EMAIL, PASSWORD, Server, datahub_env, prepare_datahub  # noqa: E402


def _p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# -- 1. the outbox's cost ----------------------------------------------------------------


def bench_outbox(args, env):
    """``POST /api/v1/datasets/`` p50 on the service and on the same service whose outbox
    writes nothing (bench/no_outbox_app.py), one gunicorn worker each, on one database:
    one create on each in turn (the order drawn each time), so that both see the same
    machine and the same tables. With ``--end-reads-off``, the same two again with
    ``END_READS_WITH_COMMIT`` off, in the same turns."""
    counter = iter(range(10**9))

    def create(server, headers):
        started = time.perf_counter()
        status, data, _ = server.request(
            "POST", "/api/v1/datasets/", {"name": f"o{next(counter)}"}, headers
        )
        assert status == 201, data
        return time.perf_counter() - started

    off = {**env, "DATAHUB_END_READS_WITH_COMMIT": "false"}
    specs = [("wsgi:app", env), ("bench.no_outbox_app:app", env)]
    if args.end_reads_off:
        specs += [("wsgi:app", off), ("bench.no_outbox_app:app", off)]
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(Server(app, app_env, 1)) for app, app_env in specs]
        sides = [(server, _login(server), []) for server in servers]
        for server, headers, _ in sides:
            for _ in range(50):  # warm up
                create(server, headers)
        draw = random.Random(1)
        for _ in range(args.creates):
            for server, headers, times in draw.sample(sides, len(sides)):
                times.append(create(server, headers))
    p50s = [statistics.median(times) for _, _, times in sides]
    ratio = p50s[0] / p50s[1]
    result = {
        "case": "outbox",
        "datahub_ms": p50s[0] * 1000,
        "baseline_ms": p50s[1] * 1000,
        "ratio": ratio,
        "target": "<= 1.05",
        "met": ratio <= 1.05,
    }
    if args.end_reads_off:
        result.update(
            end_reads_off_ms=p50s[2] * 1000,
            end_reads_off_ratio=p50s[2] / p50s[3],
            create_off_vs_on=p50s[2] / p50s[0],
        )
    return result


# -- 2 and 3: deliveries -----------------------------------------------------------------


class Receiver:
    """Webhook receiver threads in this process: arrival time and status per message."""

    def __init__(self, fail_every=0, delay=0):
        self.lock, self.arrivals, self.attempts = threading.Lock(), [], {}
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                arrived = time.time()
                time.sleep(delay)
                message_id = self.headers["webhook-id"]
                with receiver.lock:
                    receiver.attempts[message_id] = receiver.attempts.get(message_id, 0) + 1
                    first = receiver.attempts[message_id] == 1
                status = (
                    500 if fail_every and first and int(message_id[4:]) % fail_every == 0 else 204
                )
                with receiver.lock:
                    receiver.arrivals.append((message_id, status, arrived, json.loads(body)))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _worker(env):
    return subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "datahub", "worker"],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _login(server, email=EMAIL, password=PASSWORD):
    status, data, _ = server.request(
        "POST", "/api/v1/auth/login", {"email": email, "password": password}
    )
    assert status == 200, data
    return {"Authorization": f"Bearer {json.loads(data)['access_token']}"}


def _webhook(server, headers, url, **fields):
    status, data, _ = server.request("POST", "/api/v1/webhooks/", {"url": url, **fields}, headers)
    assert status == 201, data
    return json.loads(data)


def _changes(server, headers, per_second, count):
    """``count`` changes of one dataset, ``per_second`` a second (one PATCH each)."""
    status, data, _ = server.request(
        "POST", "/api/v1/datasets/", {"name": f"changed {time.time()}"}, headers
    )
    dataset_id = json.loads(data)["id"]
    start = time.monotonic()
    for i in range(count):
        time.sleep(max(0.0, start + i / per_second - time.monotonic()))
        status, data, _ = server.request(
            "PATCH", f"/api/v1/datasets/{dataset_id}", {"description": str(i)}, headers
        )
        assert status == 200, data
    return count + 1  # and the create


def _ready(server, headers, webhook, receiver):
    """Wait until the worker delivers: a ping has arrived (and is forgotten). What is
    measured is delivery by a running worker, not the worker's start (about 2 s)."""
    status, data, _ = server.request(
        "POST", f"/api/v1/webhooks/{webhook['id']}/ping", None, headers
    )
    assert status in (200, 201, 202), data
    assert _wait_for(receiver, 1, 60), "the worker delivered no ping"
    with receiver.lock:
        receiver.arrivals.clear()
        receiver.attempts.clear()


def _wait_for(receiver, count, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with receiver.lock:
            done = len({m for m, status, _, _ in receiver.arrivals if status < 300})
        if done >= count:
            return True
        time.sleep(0.2)
    return False


def _latencies(receiver):
    return [
        arrival - datetime.fromisoformat(event["time"].replace("Z", "+00:00")).timestamp()
        for _, status, arrival, event in receiver.arrivals
        if status < 300
    ]


def _other_user():
    """A second editor (in-process, before any server starts): the slow case's bystander."""
    from datahub import create_app
    from datahub.app.extensions import db
    from datahub.identity.users import services

    app = create_app()
    with app.app_context():
        if services.find_by_email(OTHER_EMAIL) is None:
            services.create_user(
                email=OTHER_EMAIL, password=PASSWORD, name="Bystander", roles=["editor"]
            )
        db.engine.dispose()


OTHER_EMAIL = "bystander@example.com"


def bench_slow_neighbour(server, headers):
    """Case 4: the other user's messages while one user's receiver sleeps, pinged 40
    times."""
    other = _login(server, OTHER_EMAIL)
    fast = Receiver()
    _ready(server, other, _webhook(server, other, fast.url), fast)
    slow = Receiver(delay=20)
    slow_hook = _webhook(server, headers, slow.url, event_types=["datahub.run.cancelled"])
    pings = [
        server.request("POST", f"/api/v1/webhooks/{slow_hook['id']}/ping", None, headers)[0]
        for _ in range(40)
    ]
    time.sleep(1)  # the slow receiver has its first ping
    sent = _changes(server, other, 2, 10)
    arrived = _wait_for(fast, sent, 120)
    latencies = _latencies(fast)
    slowest = max(latencies) if latencies else float("inf")
    return {
        "case": "slow neighbour",
        "datahub_ms": slowest * 1000,
        "p50_ms": _p(latencies, 0.5) * 1000 if latencies else None,
        "messages": len(latencies),
        "pings_accepted": pings.count(202),
        "pings_refused": pings.count(429),
        "target": "slowest <= 2000 ms",
        "met": arrived and slowest <= 2.0,
    }


def bench_deliveries(args, env):
    env = {
        **env,
        "DATAHUB_WEBHOOK_ALLOW_HTTP": "true",
        "DATAHUB_WEBHOOK_ALLOW_PRIVATE": "true",
        "DATAHUB_WEBHOOK_RETRY_SECONDS": "[1, 2, 5]",
    }
    results = []
    if args.slow_only:
        with Server("wsgi:app", env, 2) as server:
            worker = _worker(env)
            try:
                return [bench_slow_neighbour(server, _login(server))]
            finally:
                worker.terminate()
                worker.wait(30)
    with Server("wsgi:app", env, 2) as server:
        headers = _login(server)
        worker = _worker(env)
        try:
            fast = Receiver()
            webhook = _webhook(server, headers, fast.url)
            _ready(server, headers, webhook, fast)
            sent = _changes(server, headers, 50, int(50 * args.seconds))
            arrived = _wait_for(fast, sent, 60)
            latencies = _latencies(fast)
            p99 = _p(latencies, 0.99)
            results.append(
                {
                    "case": "latency",
                    "datahub_ms": p99 * 1000,
                    "p50_ms": _p(latencies, 0.5) * 1000,
                    "messages": len(latencies),
                    "target": "p99 <= 1000 ms",
                    "met": arrived and p99 <= 1.0,
                }
            )
            server.request("PATCH", f"/api/v1/webhooks/{webhook['id']}", {"active": False}, headers)

            flaky = Receiver(fail_every=5)
            _ready(server, headers, _webhook(server, headers, flaky.url), flaky)
            sent = _changes(server, headers, 100, 999)
            arrived = _wait_for(flaky, sent, 120)
            ok = [m for m, status, _, _ in flaky.arrivals if status < 300]
            events = [event["id"] for _, status, _, event in flaky.arrivals if status < 300]
            failed = sum(1 for _, status, _, _ in flaky.arrivals if status >= 300)
            exact = arrived and len(ok) == len(set(ok)) == sent and len(set(events)) == sent
            results.append(
                {
                    "case": "failures",
                    "messages": sent,
                    "delivered_once": len(set(ok)),
                    "repeats": len(ok) - len(set(ok)),
                    "failed_attempts": failed,
                    "target": "all, once each",
                    "met": exact,
                }
            )
            results.append(bench_slow_neighbour(server, headers))
        finally:
            worker.terminate()
            worker.wait(30)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url")
    parser.add_argument("--creates", type=int, default=2000, help="outbox: creates on each")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--outbox-only", action="store_true", help="case 1 only")
    parser.add_argument("--slow-only", action="store_true", help="case 4 only")
    parser.add_argument(
        "--end-reads-off",
        action="store_true",
        help="outbox: also both servers with END_READS_WITH_COMMIT off",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as instance:
        env = datahub_env(instance, args.database_url, 4)
        prepare_datahub(env)
        _other_user()
        results = [] if args.slow_only else [bench_outbox(args, env)]
        if not args.outbox_only:
            results += bench_deliveries(args, env)
    for result in results:
        print(
            json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in result.items()})
        )
    return 0 if all(result["met"] for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
