"""The service as a cluster (tests/e2e/cluster.py): two gunicorn hosts behind nginx with
PostgreSQL, Redis, an S3-compatible server and a Celery worker. Whatever one host does,
the other sees; either host may die without losing an acknowledged write.

The tests share one cluster and run in file order, on one pytest-xdist worker (one
cluster, not one per worker that takes a test: two gunicorn hosts, a Celery worker and
nginx to start and stop); the last one kills host b.
"""

import hashlib
import os
import secrets
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest
import requests
import sqlalchemy as sa

from tests.e2e import cluster as topology
from tests.e2e.cluster_api import Api, hosts, make_pipeline, through_nginx, wait_for_run
from tests.e2e.docs_examples import walkthrough_script

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("cluster")]


@pytest.fixture(scope="module")
def s3_bucket(s3_server):
    """The cluster's own bucket on the tests' S3 server; the boto3 client to look in it."""
    s3 = s3_server.client()
    s3.create_bucket(Bucket=topology.BUCKET)
    return s3


@pytest.fixture(scope="module")
def the_cluster(tmp_path_factory, s3_server, s3_bucket):
    with topology.running(
        topology.Cluster(tmp_path_factory.mktemp("cluster"), s3_server.url)
    ) as up:
        yield up


@pytest.fixture(scope="module")
def database(the_cluster):
    engine = sa.create_engine(
        the_cluster.database_url.replace("postgresql://", "postgresql+psycopg://", 1)
    )
    yield engine
    engine.dispose()


@pytest.fixture(autouse=True)
def fresh_rate_limits(the_cluster):
    the_cluster.forget_rate_limits()


def forget_data(database, s3):
    """Everything but the users (rows and stored files), so that a walk-through can run
    again by the same names."""
    with database.begin() as conn:
        for table in (
            "runs",
            "pipelines",
            "collection_datasets",
            "dataset_tags",
            "collections",
            "datasets",
        ):
            conn.execute(sa.text(f"DELETE FROM {table}"))
    listed = s3.list_objects_v2(Bucket=topology.BUCKET, Prefix="files/")
    for item in listed.get("Contents", []):
        s3.delete_object(Bucket=topology.BUCKET, Key=item["Key"])


# -- the walk-through, everywhere -----------------------------------------------------


def test_the_docs_walkthrough_passes_through_nginx_across_both_hosts(
    the_cluster, database, s3_bucket, tmp_path
):
    # nginx sends each request to the next host (round robin, no stickiness): the
    # walk-through's requests alternate between the hosts, each seeing what the other did.
    forget_data(database, s3_bucket)
    url = the_cluster.nginx.url
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    venv_bin = str(Path(sys.executable).parent)
    ca = the_cluster.ca_file
    result = subprocess.run(
        ["bash", "-c", walkthrough_script(url)],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        env={
            "PATH": f"{venv_bin}:/usr/bin:/bin:/usr/local/bin",
            "HOME": str(home),
            "PYTHON": sys.executable,
            "DATAHUB_PASSWORD": topology.ADMIN_PASSWORD,
            # nginx's throw-away certificate, for curl, requests and urllib
            "CURL_CA_BUNDLE": ca,
            "REQUESTS_CA_BUNDLE": ca,
            "SSL_CERT_FILE": ca,
            # The command and the python blocks import the client this test imports,
            # also when that is a checkout named on PYTHONPATH.
            **{name: os.environ[name] for name in ("PYTHONPATH",) if name in os.environ},
        },
    )
    output = result.stdout
    assert result.returncode == 0, output + result.stderr + the_cluster.logs()
    lines = output.splitlines()
    assert lines.count("same") == 2  # downloads equal the upload
    assert "date,temp" in lines  # the Range request
    assert '{"message":"Successfully logged out"}' in lines
    # The access guide's three refusals (two 403s, a revoked token), then the refresh
    # after logout.
    assert output.count('"detail"') == 4 and '{"detail":"Not authenticated"}' in lines
    assert "409 Name already exists" in lines
    # The pipeline of the walk-through ran on the Celery worker, not on a web host.
    with database.connect() as conn:
        workers = set(conn.scalars(sa.text("SELECT worker FROM runs")))
    assert workers and all(
        name and name.split(":")[1] == str(the_cluster.worker_pid()) for name in workers
    ), workers
    # Every stored object belongs to a version of a dataset still there.
    with database.connect() as conn:
        keys = set(conn.scalars(sa.text("SELECT file_key FROM dataset_versions")))
    listed = s3_bucket.list_objects_v2(Bucket=topology.BUCKET, Prefix="files/")
    stored = {item["Key"].rsplit("/", 1)[1] for item in listed.get("Contents", [])}
    assert stored == keys
    assert not s3_bucket.list_multipart_uploads(Bucket=topology.BUCKET).get("Uploads")


# -- files ------------------------------------------------------------------------------


def test_a_file_uploaded_on_one_host_downloads_identically_from_the_other(the_cluster):
    a, b = (api.login() for api in hosts(the_cluster))
    data = secrets.token_bytes(12 * 1024 * 1024 + 12345)  # over one multipart part
    dataset = a.call("POST", "/datasets/", json={"name": "shared " + secrets.token_hex(4)})
    assert dataset.status_code == 201, dataset.text
    dataset_id = dataset.json()["id"]
    upload = a.call(
        "PUT",
        f"/datasets/{dataset_id}/file",
        data=data,
        headers={"Content-Type": "application/octet-stream"},
    )
    assert upload.status_code == 200, upload.text
    sha = hashlib.sha256(data).hexdigest()
    assert upload.json()["file"]["sha256"] == sha

    whole = b.call("GET", f"/datasets/{dataset_id}/file")
    assert whole.status_code == 200
    assert whole.content == data
    assert whole.headers["ETag"] == f'"{sha}"'
    for header, expected in [
        ("bytes=0-99", data[:100]),
        ("bytes=5000000-9000000", data[5000000:9000001]),
        ("bytes=-777", data[-777:]),
    ]:
        part = b.call("GET", f"/datasets/{dataset_id}/file", headers={"Range": header})
        assert part.status_code == 206, header
        assert part.content == expected, header
        assert part.headers["Content-Range"].endswith(f"/{len(data)}")
    unchanged = b.call("GET", f"/datasets/{dataset_id}/file", headers={"If-None-Match": f'"{sha}"'})
    assert unchanged.status_code == 304
    outside = b.call(
        "GET", f"/datasets/{dataset_id}/file", headers={"Range": f"bytes={len(data)}-"}
    )
    assert outside.status_code == 416
    assert outside.json() == {"detail": "Requested Range Not Satisfiable"}


# -- runs ---------------------------------------------------------------------------------


def test_a_run_started_on_either_host_is_executed_by_the_worker(the_cluster, database):
    a, b = (api.login() for api in hosts(the_cluster))
    pipeline_id = make_pipeline(a)
    for starter, reader in [(a, b), (b, a)]:
        started = starter.call("POST", f"/pipelines/{pipeline_id}/runs")
        assert started.status_code == 201, started.text
        run = wait_for_run(reader, pipeline_id, started.json()["id"])
        assert run["status"] == "succeeded", (run, the_cluster.logs())
        assert run["rows_in"] == 3 and run["rows_out"] == 2
        output = reader.call("GET", f"/datasets/{run['output_dataset_id']}/file")
        assert output.content == b"city,population\nc2,2\nc1,1\n"
        with database.connect() as conn:
            worker = conn.scalar(
                sa.text("SELECT worker FROM runs WHERE id = :id"), {"id": run["id"]}
            )
        assert worker.split(":")[1] == str(the_cluster.worker_pid()), worker


def test_ten_concurrent_run_requests_over_both_hosts_give_exactly_one_201(the_cluster):
    a, b = (api.login() for api in hosts(the_cluster))
    # A run long enough to outlast the ten requests (about a second): a 1,000-row run
    # (~50 ms) could end before the last of them, and a run after it is rightly a 201.
    pipeline_id = make_pipeline(a, rows=1_000_000)
    barrier = threading.Barrier(10)
    statuses = []

    def start(api):
        barrier.wait()
        statuses.append(api.call("POST", f"/pipelines/{pipeline_id}/runs"))

    threads = [threading.Thread(target=start, args=((a, b)[i % 2],)) for i in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    codes = sorted(response.status_code for response in statuses)
    assert codes == [201] + [409] * 9, codes
    assert all(
        r.json() == {"detail": "Pipeline is already running"}
        for r in statuses
        if r.status_code == 409
    )
    created = next(r for r in statuses if r.status_code == 201).json()
    assert wait_for_run(b, pipeline_id, created["id"])["status"] == "succeeded"
    runs = a.call("GET", f"/pipelines/{pipeline_id}/runs").json()
    assert len(runs["items"]) == 1


# -- what one host changes, every host sees ----------------------------------------------


def test_logout_deactivation_and_demotion_are_seen_by_the_other_host_at_once(the_cluster):
    a, b = (api.login() for api in hosts(the_cluster))
    email = f"ann-{secrets.token_hex(4)}@example.com"
    created = a.call(
        "POST",
        "/users/",
        json={"email": email, "password": "ann's password 1", "roles": ["editor"]},
    )
    assert created.status_code == 201, created.text
    user_id = created.json()["id"]

    ann_a = Api(the_cluster.hosts[0].url).login(email, "ann's password 1")
    ann_b = Api(the_cluster.hosts[1].url).as_token(ann_a.token)
    for _ in range(3):  # warm whatever host b keeps
        assert ann_b.call("GET", "/auth/me").json()["roles"] == ["editor"]

    # Demoted on host b: host a sees the new role on the next request.
    assert b.call("PATCH", f"/users/{user_id}", json={"roles": ["viewer"]}).status_code == 200
    assert ann_a.call("GET", "/auth/me").json()["roles"] == ["viewer"]
    assert ann_a.call("POST", "/datasets/", json={"name": "x"}).status_code == 403

    # Logged out on host a: host b refuses the token on the next request.
    assert ann_b.call("GET", "/auth/me").status_code == 200
    assert ann_a.call("POST", "/auth/logout").status_code == 200
    refused = ann_b.call("GET", "/auth/me")
    assert refused.status_code == 401
    assert refused.json() == {"detail": "Token has been revoked"}

    # Deactivated on host a: a fresh login's token stops working on host b at once.
    ann_a.login(email, "ann's password 1")
    ann_b.as_token(ann_a.token)
    assert ann_b.call("GET", "/auth/me").status_code == 200
    assert a.call("PATCH", f"/users/{user_id}", json={"is_active": False}).status_code == 200
    refused = ann_b.call("GET", "/auth/me")
    assert refused.status_code == 401
    assert refused.json()["detail"] in {"Invalid token", "Token has been revoked"}


def test_login_rate_limits_count_across_hosts(the_cluster):
    a, b = hosts(the_cluster)
    email = f"nobody-{secrets.token_hex(4)}@example.com"
    statuses = [
        (a, b)[i % 2]
        .call("POST", "/auth/login", json={"email": email, "password": "wrong password"})
        .status_code
        for i in range(6)
    ]
    # 5 a minute per email (RATE_LIMIT_LOGIN_PER_EMAIL): three on each host, the sixth
    # refused, so the hosts share one count.
    assert statuses == [401] * 5 + [429], statuses


# -- a host dies -----------------------------------------------------------------------


def test_each_due_time_of_a_schedule_runs_once_with_a_worker_on_each_host(the_cluster, database):
    """A second Celery worker, as on the other host (an instance folder of its own): both
    look for due schedules every WEBHOOK_POLL_SECONDS, and each due time starts one run.
    (That one worker takes a due time, by a compare-and-set, is shown with eight at once
    in tests/pipelines/test_triggers.py; here, that it holds end to end.)"""
    second = topology.CeleryWorker(the_cluster.folder / "worker-b", the_cluster.env).start()
    try:
        a, b = (api.login() for api in hosts(the_cluster))
        pipeline_id = make_pipeline(a)
        daily = {"cron": "0 3 * * *", "timezone": "Europe/Oslo"}
        changed = b.call("PATCH", f"/pipelines/{pipeline_id}", json={"trigger": daily})
        assert changed.status_code == 200, changed.text
        for due_times in (1, 2, 3):
            with database.begin() as conn:  # a due time passed while nothing ran
                conn.execute(
                    sa.text(
                        "UPDATE pipelines SET next_run_at = now() - interval '2 days' "
                        "WHERE id = :id"
                    ),
                    {"id": pipeline_id},
                )
            deadline = time.monotonic() + 60
            while True:
                runs = a.call("GET", f"/pipelines/{pipeline_id}/runs").json()["items"]
                if len(runs) >= due_times and all(r["status"] == "succeeded" for r in runs):
                    break
                assert time.monotonic() < deadline, (runs, the_cluster.logs(), second.log())
                time.sleep(0.2)
            time.sleep(1)  # the other worker had its chance to start one more
            runs = a.call("GET", f"/pipelines/{pipeline_id}/runs").json()["items"]
            assert [r["triggered_by"] for r in runs] == ["schedule"] * due_times, runs
        pipeline = b.call("GET", f"/pipelines/{pipeline_id}").json()
        next_due = datetime.fromisoformat(pipeline["next_run_at"])
        assert next_due > datetime.fromisoformat(runs[0]["created_at"])  # counted from then
    finally:
        second.stop()


def test_killing_a_host_loses_no_acknowledged_write_and_nginx_keeps_serving(the_cluster):
    admin = through_nginx(the_cluster).login()
    acknowledged, failed = [], []
    stop = threading.Event()

    def write(worker):
        api = through_nginx(the_cluster).as_token(admin.token)
        number = 0
        while not stop.is_set():
            number += 1
            name = f"survivor {worker}-{number}"
            try:
                response = api.call("POST", "/datasets/", json={"name": name})
            except requests.RequestException as exc:
                failed.append((name, repr(exc)))
                continue
            if response.status_code == 201:
                acknowledged.append((name, response.json()["id"], time.monotonic()))
            else:
                failed.append((name, response.status_code))

    writers = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for writer in writers:
        writer.start()
    time.sleep(1.5)
    killed_at = time.monotonic()
    the_cluster.hosts[1].kill()
    time.sleep(3)
    stop.set()
    for writer in writers:
        writer.join()

    assert len(acknowledged) > 20, (acknowledged, failed)
    # Every write that was answered 201 is there, read through nginx (host a alone now).
    listed, offset = {}, 0
    while True:
        page = admin.call("GET", "/datasets/", params={"limit": 100, "offset": offset}).json()
        listed.update({item["id"]: item["name"] for item in page["items"]})
        offset += 100
        if offset >= page["total"]:
            break
    missing = [
        (name, dataset_id) for name, dataset_id, _ in acknowledged if listed.get(dataset_id) != name
    ]
    assert missing == []
    # nginx kept serving: writes went on being acknowledged after the kill, and the last
    # second of writes all succeeded.
    after = [t for _, _, t in acknowledged if t > killed_at + 1]
    assert len(after) > 5
    late_failures = [f for f in failed if isinstance(f[1], int) and f[1] != 502]
    assert late_failures == [], late_failures
    for _ in range(10):
        assert admin.call("GET", "/auth/me").status_code == 200
