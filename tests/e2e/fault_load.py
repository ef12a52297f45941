"""Steady load on the fault tests' cluster, through nginx: three users, each in a thread of
its own, listing, creating a dataset, uploading its file, downloading it, reading it and
now and then starting a run, one request after another, for as long as a fault lasts.

Every answer is tallied by what the request needed (``op``): its status, whether it was
the contract's JSON, and, for a 503, whether it said ``Retry-After``. What was
acknowledged (a dataset answered 201, a file answered 200, a run answered 201) is kept, so
that the test can look for it once the fault is over.
"""

import hashlib
import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import requests

from tests.e2e.cluster_api import make_pipeline

USERS = 3
# A login per user every this many seconds: 3 users, 60 a minute (of 120 allowed an address).
LOGIN_SECONDS = 3.0
TIMEOUT = 30  # cluster_api.Api's wait for an answer
# Answers that are right whatever the fault: a run asked for while the pipeline's last one
# is still going.
EXPECTED = {("run", 409)}


@dataclass
class Tally:
    """What the load saw: requests by op and status, and everything that was wrong."""

    statuses: Counter = field(default_factory=Counter)  # (op, status) → count
    non_json: list = field(default_factory=list)
    no_retry_after: list = field(default_factory=list)  # 503s without Retry-After
    unanswered: list = field(default_factory=list)  # (op, exception)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, op, response):
        with self.lock:
            self.statuses[op, response.status_code] += 1
            if not _is_json(response):
                self.non_json.append((op, response.status_code, response.text[:200]))
            if response.status_code == 503 and not response.headers.get("Retry-After"):
                self.no_retry_after.append((op, response.text[:200]))

    def count(self, statuses=None, ops=None):
        return sum(
            n
            for (op, status), n in self.statuses.items()
            if (statuses is None or status in statuses) and (ops is None or op in ops)
        )

    def errors(self, allowed_503=()):
        """Answers that are neither 2xx nor a 503 of an op that needs the missing part."""
        return {
            key: n
            for key, n in self.statuses.items()
            if not (
                200 <= key[1] < 300 or key in EXPECTED or (key[1] == 503 and key[0] in allowed_503)
            )
        }

    def figures(self, lost):
        return (
            f"requests {self.count() + len(self.unanswered)}, 2xx {self.count(range(200, 300))}, "
            f"503 with Retry-After {self.count({503}) - len(self.no_retry_after)}, "
            f"other errors {sum(self.errors(allowed_503=self.ops()).values()) + len(self.unanswered)}, "
            f"non-JSON {len(self.non_json)}, writes lost {lost}"
        )

    def ops(self):
        return {op for op, _ in self.statuses}


def _is_json(response):
    if not response.headers.get("Content-Type", "").startswith("application/json"):
        return response.status_code in (204,) or (
            response.status_code == 200
            and response.request.method == "GET"
            and "/file" in response.request.url
        )
    try:
        response.json()
    except ValueError:
        return False
    return True


@dataclass
class Written:
    """What the service acknowledged to one user."""

    datasets: dict = field(default_factory=dict)  # id → name
    files: dict = field(default_factory=dict)  # dataset id → sha256 of the content
    runs: list = field(default_factory=list)  # (pipeline id, run id)


class User(threading.Thread):
    def __init__(self, api, credentials, number, pipeline_id, tally, stop):
        super().__init__(daemon=True, name=f"load-user-{number}")
        self.api, self.credentials = api, credentials
        self.number, self.pipeline_id = number, pipeline_id
        self.tally, self.stop = tally, stop
        self.written = Written()
        self.next_login = time.monotonic() + LOGIN_SECONDS

    def request(self, op, method, path, **kwargs):
        try:
            response = self.api.call(method, path, **kwargs)
        except requests.RequestException as exc:
            with self.tally.lock:
                self.tally.unanswered.append((op, repr(exc)[:200]))
            return None
        self.tally.add(op, response)
        return response

    def run(self):
        step = 0
        while not self.stop.is_set():
            step += 1
            self.one_round(step)

    def one_round(self, step):
        self.request("read", "GET", "/datasets/", params={"limit": 5})
        if time.monotonic() >= self.next_login:  # a rate-limited request
            # Every LOGIN_SECONDS, however fast the rounds go: the users share one address,
            # whose successful logins are limited (RATE_LIMIT_LOGIN_SUCCESS_PER_ADDRESS).
            self.next_login = time.monotonic() + LOGIN_SECONDS
            self.request("login", "POST", "/auth/login", json=self.credentials)
        name = f"load {self.number}-{step}-{secrets.token_hex(3)}"
        created = self.request("write", "POST", "/datasets/", json={"name": name})
        if created is None or created.status_code != 201:
            return
        dataset_id = created.json()["id"]
        self.written.datasets[dataset_id] = name
        content = f"n,name\n{step},{name}\n".encode() * 20
        uploaded = self.request(
            "file",
            "PUT",
            f"/datasets/{dataset_id}/file",
            data=content,
            headers={"Content-Type": "text/csv"},
        )
        if uploaded is not None and uploaded.status_code == 200:
            self.written.files[dataset_id] = hashlib.sha256(content).hexdigest()
            self.request("file", "GET", f"/datasets/{dataset_id}/file")
        self.request("read", "GET", f"/datasets/{dataset_id}")
        if step % 5 == 0:
            started = self.request("run", "POST", f"/pipelines/{self.pipeline_id}/runs")
            if started is not None and started.status_code in (201, 202):
                self.written.runs.append((self.pipeline_id, started.json()["id"]))


class SteadyLoad:
    """``USERS`` users, already made and logged in, each with a pipeline of its own."""

    def __init__(self, make_api, admin, users=USERS):
        self.tally, self.stop_event = Tally(), threading.Event()
        self.users = []
        for number in range(users):
            email = f"load-{number}-{secrets.token_hex(3)}@example.com"
            password = f"load password {number}"
            made = admin.call(
                "POST", "/users/", json={"email": email, "password": password, "roles": ["editor"]}
            )
            assert made.status_code == 201, made.text
            api = make_api().login(email, password)
            pipeline_id = make_pipeline(api)
            credentials = {"email": email, "password": password}
            self.users.append(
                User(api, credentials, number, pipeline_id, self.tally, self.stop_event)
            )

    def start(self):
        for user in self.users:
            user.start()
        return self

    def stop(self):
        self.stop_event.set()
        for user in self.users:
            user.join(TIMEOUT * 2)

    def written(self):
        merged = Written()
        for user in self.users:
            merged.datasets.update(user.written.datasets)
            merged.files.update(user.written.files)
            merged.runs.extend(user.written.runs)
        return merged

    def apis(self):
        return [user.api for user in self.users]


def wait_while(condition, timeout, every=0.2):
    """Wait until ``condition()`` is false; whether it became so within ``timeout``."""
    deadline = time.monotonic() + timeout
    while condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True
