"""Faults across hosts, under steady load (tests/e2e/fault_load.py), in the two-host
cluster of tests/e2e/cluster.py with parts of the test's own (tests/e2e/fault_parts.py):
Redis stopped for 30 s; the S3 endpoint cut for 30 s; PostgreSQL restarted; the Celery
worker killed mid-run; a webhook receiver down for a minute.

During each: every answer is the contract's JSON; only what needs the missing part
answers 503, with ``Retry-After``; no acknowledged write is lost and no half-written row
or object is left; no run stays queued or running. After each, everything works again
within 10 s, without a restart. Each test prints its figures (bench/README.rst).

The tests share one cluster and run in file order, on one pytest-xdist worker.
"""

import hashlib
import os
import re
import signal
import time

import pytest
import requests
import sqlalchemy as sa

from tests.e2e import cluster as topology
from tests.e2e.cluster_api import make_pipeline, through_nginx, wait_for_run
from tests.e2e.fault_load import SteadyLoad, wait_while
from tests.e2e.fault_parts import OwnPostgres, OwnRedis
from tests.e2e.tcp_proxy import TcpProxy
from tests.events.webhooks.helpers import start_receiver
from tests.processes import stop

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("faults")]

BEFORE, AFTER = 3, 3  # seconds of load around each fault
RECOVERY = 10  # seconds within which everything works again
BUCKET = "datahub-faults"  # not the cluster tests' (their leftovers are not ours)


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory):
    server = OwnRedis(tmp_path_factory.mktemp("faults-redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def own_postgres():
    server = OwnPostgres().start()
    yield server
    server.remove()


@pytest.fixture(scope="module")
def s3_proxy(s3_server):
    s3_server.client().create_bucket(Bucket=BUCKET)
    host, port = s3_server.url.removeprefix("http://").split(":")
    proxy = TcpProxy(host, int(port))
    proxy.up()
    yield proxy
    proxy.down()


@pytest.fixture(scope="module")
def faults_cluster(tmp_path_factory, own_redis, own_postgres, s3_proxy):
    cluster = topology.Cluster(
        tmp_path_factory.mktemp("faults-cluster"),
        f"http://127.0.0.1:{s3_proxy.port}",
        database_url=own_postgres.url,
        redis_url=own_redis.url(0),
        rate_limit_url=own_redis.url(1),
        env={
            "DATAHUB_STORAGE_URL": f"s3://{BUCKET}/files",
            "DATAHUB_WEBHOOK_ALLOW_HTTP": "true",
            "DATAHUB_WEBHOOK_ALLOW_PRIVATE": "true",
            "DATAHUB_PIPELINE_REDISPATCH_SECONDS": "2",
            "DATAHUB_PIPELINE_HEARTBEAT_SECONDS": "0.5",
            "DATAHUB_PIPELINE_STALE_AFTER_SECONDS": "3",
        },
    )
    with topology.running(cluster) as up:
        yield up


@pytest.fixture(scope="module")
def admin(faults_cluster):
    return through_nginx(faults_cluster).login()


@pytest.fixture(scope="module")
def database(own_postgres):
    engine = sa.create_engine(own_postgres.url, pool_pre_ping=True)
    yield engine
    engine.dispose()


def works(cluster, admin):
    """Whether a user can read, create, upload and download right now (all 2xx)."""
    api = through_nginx(cluster).as_token(admin.token)
    try:
        if api.call("GET", "/datasets/", params={"limit": 1}).status_code != 200:
            return False
        made = api.call("POST", "/datasets/", json={"name": f"probe {time.monotonic_ns()}"})
        if made.status_code != 201:
            return False
        path = f"/datasets/{made.json()['id']}/file"
        put = api.call("PUT", path, data=b"a,b\n1,2\n", headers={"Content-Type": "text/csv"})
        return put.status_code == 200 and api.call("GET", path).content == b"a,b\n1,2\n"
    except OSError:
        return False


def under_fault(cluster, admin, cut, restore, seconds, name):
    """Steady load; ``cut()``; ``seconds`` of the fault; ``restore()``; the seconds until
    everything works again; more load. The load, and the recovery time."""
    load = SteadyLoad(lambda: through_nginx(cluster), admin).start()
    time.sleep(BEFORE)
    cut()
    time.sleep(seconds)
    restore()
    restored_at = time.monotonic()
    recovered = wait_while(lambda: not works(cluster, admin), timeout=RECOVERY * 3)
    recovery = time.monotonic() - restored_at
    time.sleep(AFTER)
    load.stop()
    assert recovered, f"{name}: not working {RECOVERY * 3} s after\n" + cluster.logs()
    return load, recovery


def lost_writes(load, admin):
    """Acknowledged datasets and files that are not there as acknowledged."""
    lost = []
    written = load.written()
    for dataset_id, name in written.datasets.items():
        found = admin.call("GET", f"/datasets/{dataset_id}")
        if found.status_code != 200 or found.json()["name"] != name:
            lost.append(("dataset", dataset_id, found.status_code))
    for dataset_id, digest in written.files.items():
        got = admin.call("GET", f"/datasets/{dataset_id}/file")
        if got.status_code != 200 or hashlib.sha256(got.content).hexdigest() != digest:
            lost.append(("file", dataset_id, got.status_code))
    return lost


def runs_end(load, admin, timeout=60):
    """The acknowledged runs still queued or running after ``timeout`` seconds."""
    left = []
    for pipeline_id, run_id in load.written().runs:
        run = wait_for_run(admin, pipeline_id, run_id, timeout=timeout)
        if run["status"] in ("queued", "running"):
            left.append(run)
    return left


def half_written(database, s3_server):
    """Stored objects without a version row and rows without an object; open uploads."""
    s3 = s3_server.client()
    with database.connect() as conn:
        keys = set(conn.scalars(sa.text("SELECT file_key FROM dataset_versions")))
    stored, token = set(), None
    while True:
        extra = {"ContinuationToken": token} if token else {}
        listed = s3.list_objects_v2(Bucket=BUCKET, Prefix="files/", **extra)
        stored |= {item["Key"].rsplit("/", 1)[1] for item in listed.get("Contents", [])}
        token = listed.get("NextContinuationToken")
        if not token:
            break
    uploads = s3.list_multipart_uploads(Bucket=BUCKET).get("Uploads") or []
    return {
        "objects without a row": stored - keys,
        "rows without an object": keys - stored,
        "open uploads": len(uploads),
    }


def check(load, recovery, admin, database, s3_server, name, allowed_503=()):
    """The promises of the module docstring; prints the figures."""
    tally = load.tally
    lost = lost_writes(load, admin)
    print(f"\n{name}: {tally.figures(len(lost))}; working {recovery:.1f} s after")
    assert tally.non_json == []
    assert tally.no_retry_after == []
    assert tally.errors(allowed_503) == {}, tally.statuses
    assert tally.unanswered == []
    assert lost == []
    assert runs_end(load, admin) == []
    # What an upload cut mid-way left in S3 goes once S3 answers (s3_transfer.LaterCleanup).
    clean = {"objects without a row": set(), "rows without an object": set(), "open uploads": 0}
    deadline = time.monotonic() + RECOVERY
    while (found := half_written(database, s3_server)) != clean and time.monotonic() < deadline:
        time.sleep(0.5)
    assert found == clean
    assert recovery <= RECOVERY, f"{name}: working again only {recovery:.1f} s after"
    assert tally.count(range(200, 300)) > 20, tally.statuses


def fallback_metrics(cluster):
    """Each host's (falls, processes on their fallback now) of the rate limiter and the
    auth cache, from its /metrics."""
    figures = {}
    for host in cluster.hosts:
        text = requests.get(host.url + "/metrics", timeout=10).text
        for part in ("rate_limits", "auth_cache"):
            falls = re.search(rf'^datahub_fallbacks_total{{part="{part}"}} (\S+)$', text, re.M)
            now = re.search(rf'^datahub_fallback_processes{{part="{part}"}} (\S+)$', text, re.M)
            figures[host.name, part] = (float(falls.group(1)), float(now.group(1)))
    return figures


def test_redis_stopped_for_30_seconds(faults_cluster, admin, own_redis, database, s3_server):
    load, recovery = under_fault(
        faults_cluster, admin, own_redis.stop, own_redis.start, 30, "Redis"
    )
    check(load, recovery, admin, database, s3_server, "Redis stopped 30 s")
    # The rate limiter and the auth cache fell back, said so, and are back on Redis.
    figures = fallback_metrics(faults_cluster)
    print(figures)
    assert all(falls >= 1 for falls, _ in figures.values()), figures
    assert all(now == 0 for _, now in figures.values()), figures


def test_the_s3_endpoint_cut_for_30_seconds(faults_cluster, admin, s3_proxy, database, s3_server):
    load, recovery = under_fault(faults_cluster, admin, s3_proxy.down, s3_proxy.up, 30, "S3")
    # Uploads and downloads need the files; nothing else does.
    check(load, recovery, admin, database, s3_server, "S3 cut 30 s", allowed_503={"file"})
    assert load.tally.count({503}, ops={"file"}) > 0  # the fault was seen


def test_postgresql_restarted(faults_cluster, admin, own_postgres, database, s3_server):
    load, recovery = under_fault(
        faults_cluster, admin, own_postgres.stop, own_postgres.start, 3, "PostgreSQL"
    )
    everything = {"read", "write", "file", "run", "login"}
    check(load, recovery, admin, database, s3_server, "PostgreSQL restarted", everything)
    assert load.tally.count({503}) > 0  # the fault was seen


def test_the_worker_killed_mid_run(faults_cluster, admin, database, s3_server):
    heavy = make_pipeline(admin, rows=300_000)
    killed = {}

    def kill_mid_run():
        run = admin.call("POST", f"/pipelines/{heavy}/runs").json()
        assert wait_while(
            lambda: (
                admin.call("GET", f"/pipelines/{heavy}/runs/{run['id']}").json()["status"]
                == "queued"
            ),
            timeout=30,
            every=0.02,
        )
        os.killpg(faults_cluster.worker.process.pid, signal.SIGKILL)
        faults_cluster.worker.process.wait()
        killed["run"] = run["id"]

    load, recovery = under_fault(
        faults_cluster, admin, kill_mid_run, faults_cluster.worker.start, 1, "worker"
    )
    check(load, recovery, admin, database, s3_server, "worker killed mid-run")
    # The run it was executing failed (its heartbeat stopped), and was never run again.
    run = wait_for_run(admin, heavy, killed["run"])
    assert run["status"] == "failed", run
    # A run started now is executed by the new worker.
    started = admin.call("POST", f"/pipelines/{heavy}/runs")
    assert started.status_code == 201, started.text
    assert wait_for_run(admin, heavy, started.json()["id"])["status"] == "succeeded"


def test_a_webhook_receiver_down_for_a_minute(faults_cluster, admin, database, s3_server, tmp_path):
    receiver = start_receiver(tmp_path / "receiver")
    port = int(receiver.url.split(":")[2].split("/")[0])
    proxy = TcpProxy("127.0.0.1", port)
    proxy.up()
    url = receiver.url.replace(f":{port}/", f":{proxy.port}/")
    made = admin.call("POST", "/webhooks/", json={"url": url})
    assert made.status_code == 201, made.text
    webhook = made.json()
    receiver.use_secret(webhook["secret"])
    back = {}

    def restore():
        proxy.up()
        back["at"] = time.monotonic()

    try:
        load, recovery = under_fault(faults_cluster, admin, proxy.down, restore, 60, "receiver")
        check(load, recovery, admin, database, s3_server, "receiver down 60 s")

        def waiting():
            with database.connect() as conn:
                return conn.scalar(
                    sa.text(
                        "SELECT count(*) FROM webhook_deliveries "
                        "WHERE webhook_id = :id AND status <> 'succeeded'"
                    ),
                    {"id": webhook["id"]},
                )

        assert wait_while(lambda: waiting() > 0, timeout=60), waiting()
        print(f"receiver: every message delivered {time.monotonic() - back['at']:.1f} s after")
        state = admin.call("GET", f"/webhooks/{webhook['id']}").json()
        assert state["active"] is True, state
        with database.connect() as conn:
            sent = set(
                conn.scalars(
                    sa.text("SELECT id FROM webhook_deliveries WHERE webhook_id = :id"),
                    {"id": webhook["id"]},
                )
            )
        assert {f"msg_{n}" for n in sent} <= {m["id"] for m in receiver.received()}
    finally:
        proxy.down()
        stop(receiver.process)
