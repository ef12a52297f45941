"""Helpers of ``test_load_faults``: a plain HTTP call, a logged-in API client that keeps its
own refresh cookie, the gunicorn workers under /proc, and the storage/database audit."""

import hashlib
import http.client
import json
import os
import signal
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

import sqlalchemy as sa

from tests import processes

# What a client sees when the worker serving it dies: no answer at all.
CONNECTION_ERRORS = (ConnectionError, http.client.HTTPException, socket.timeout, OSError)
TEMP_PREFIX = ".upload-"


@dataclass
class Reply:
    status: int
    headers: object
    body: bytes

    def json(self):
        return json.loads(self.body)

    @property
    def is_json(self):
        if not (self.headers.get("Content-Type") or "").startswith("application/json"):
            return False
        try:
            json.loads(self.body)
        except ValueError:
            return False
        return True


def call(url, method="GET", path="", *, body=None, data=None, headers=None, timeout=60):
    """One request on a new connection (gunicorn's sync workers close it anyway)."""
    parts = urlsplit(url)
    headers = dict(headers or {})
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request(method, parts.path + path, body=data, headers=headers)
        response = connection.getresponse()
        return Reply(response.status, response.headers, response.read())
    finally:
        connection.close()


class ApiClient:
    """A logged-in user of the API. The refresh cookie is ``Secure``, which Python's cookie
    jar would not send over http, so the client keeps its value itself and follows each
    rotation. ``created`` maps dataset id → name; ``files`` dataset id → sha256 of the last
    upload answered 200."""

    def __init__(self, base, email, password):
        self.base, self.email, self.password = base, email, password
        self.token = self.cookie = None
        self.created, self.files = {}, {}

    def _keep_cookie(self, reply):
        for header in reply.headers.get_all("Set-Cookie") or []:
            name, _, value = header.split(";", 1)[0].partition("=")
            if name.endswith("refresh_token") and value:
                self.cookie = f"{name}={value}"

    def _take_token(self, reply):
        if reply.status == 200:
            self.token = reply.json()["access_token"]
            self._keep_cookie(reply)
        return reply

    def auth(self):
        return {"Authorization": f"Bearer {self.token}"}

    def login(self):
        return self._take_token(
            call(
                self.base,
                "POST",
                "/auth/login",
                body={"email": self.email, "password": self.password},
            )
        )

    def refresh(self):
        return self._take_token(
            call(self.base, "POST", "/auth/refresh", headers={"Cookie": self.cookie})
        )

    def me(self):
        return call(self.base, "GET", "/auth/me", headers=self.auth())

    def list(self):
        return call(self.base, "GET", "/datasets/?limit=20", headers=self.auth())

    def create(self, name):
        reply = call(self.base, "POST", "/datasets/", body={"name": name}, headers=self.auth())
        if reply.status == 201:
            self.created[reply.json()["id"]] = name
        return reply

    def upload(self, dataset_id, content, pause=0):
        """PUT the file; with ``pause`` seconds between its 64 KiB pieces, as a slower
        client would (so that a kill can catch a worker in the middle of it)."""
        data = content
        if pause:

            def data():
                for start in range(0, len(content), 64 * 1024):
                    if start:
                        time.sleep(pause)
                    yield content[start : start + 64 * 1024]

            data = data()
        reply = call(
            self.base,
            "PUT",
            f"/datasets/{dataset_id}/file",
            data=data,
            headers={
                **self.auth(),
                "Content-Type": "application/octet-stream",
                "Content-Length": str(len(content)),
            },
        )
        if reply.status == 200:
            self.files[dataset_id] = sha256(content)
        return reply

    def get(self, dataset_id):
        return call(self.base, "GET", f"/datasets/{dataset_id}", headers=self.auth())

    def download(self, dataset_id):
        return call(self.base, "GET", f"/datasets/{dataset_id}/file", headers=self.auth())

    def find(self, name):
        """The dataset named ``name`` (the name is unique), or None."""
        reply = call(
            self.base,
            "GET",
            "/datasets/?" + urlencode({"q": name, "limit": 100}),
            headers=self.auth(),
        )
        assert reply.status == 200, reply
        return next((item for item in reply.json()["items"] if item["name"] == name), None)


def sha256(content):
    return hashlib.sha256(content).hexdigest()


# -- gunicorn's workers ----------------------------------------------------------------


def _state_and_parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state, parent = stat.read().rpartition(")")[2].split()[:2]
    except OSError:
        return None, None
    return state, int(parent)


def worker_pids(master_pid):
    """The gunicorn master's live web workers (not the pipeline worker it supervises)."""
    return processes.gunicorn_workers(master_pid)


def open_storage_files(server):
    """Worker pid → names of the files it has open in the storage folder (an upload in
    progress holds its temporary file, then the stored file until its row is committed)."""
    folder = str(server.instance_path / "storage") + "/"
    found = {}
    for pid in worker_pids(server.process.pid):
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:  # the worker is gone or the fd closed meanwhile
            continue
        names = {link[len(folder) :] for link in links if link.startswith(folder)}
        if names:
            found[pid] = names
    return found


def kill_worker(server, pid):
    """SIGKILL one worker of *our* gunicorn (never anything else)."""
    assert _state_and_parent(pid)[1] == server.process.pid, (pid, "is not our worker")
    os.kill(pid, signal.SIGKILL)


def wait_for_workers(server, count, gone=(), timeout=30):
    """Until the master runs ``count`` workers, none of them in ``gone``, and answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = worker_pids(server.process.pid)
        if len(pids) == count and not set(pids) & set(gone):
            try:
                if call(server.url, "GET", "/readyz", timeout=5).status == 200:
                    return pids
            except CONNECTION_ERRORS:
                pass
        time.sleep(0.1)
    raise AssertionError(
        f"no {count} fresh workers: {worker_pids(server.process.pid)}\n" + server.log()[-3000:]
    )


# -- storage and database --------------------------------------------------------------


def storage_names(server):
    folder = server.instance_path / "storage"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def wait_until(predicate, timeout=15):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.1)
    return predicate()


def audit_storage(app, server):
    """Problems between the dataset versions and the storage folder, as a dict of lists:
    versions pointing at a missing or different file (by dataset id), stored files no
    version references, and temporary files. All empty means consistent."""
    from datahub.app.extensions import db

    with app.app_context():
        rows = db.session.execute(
            sa.text("SELECT dataset_id, file_key, size_bytes, sha256 FROM dataset_versions")
        ).all()
        db.session.remove()
    folder = server.instance_path / "storage"
    names = set(storage_names(server))
    problems = {"missing": [], "corrupt": [], "unreferenced": [], "temporary": []}
    for dataset_id, key, size, digest in rows:
        if key not in names:
            problems["missing"].append(dataset_id)
            continue
        content = (folder / key).read_bytes()
        if (len(content), sha256(content)) != (size, digest):
            problems["corrupt"].append(dataset_id)
    referenced = {key for _, key, _, _ in rows}
    problems["temporary"] = sorted(n for n in names if n.startswith(TEMP_PREFIX))
    problems["unreferenced"] = sorted(names - referenced - set(problems["temporary"]))
    return problems


NO_PROBLEMS = {"missing": [], "corrupt": [], "unreferenced": [], "temporary": []}
