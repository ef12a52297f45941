"""The live event stream under the project's gunicorn, where each worker process's stream
hub holds the open streams (datahub/platform/serving/streams.py): more streams than
request threads leave the API free; each stream gets each event once, in order; a
heartbeat; resuming after Last-Event-ID; a stream ends when its session is logged out; a
client that closes frees its place; a graceful stop ends every stream properly."""

import http.client
import json
import time
import uuid
from urllib.parse import urlsplit

import pytest

from tests.e2e.conftest import start_gunicorn, stop_gunicorn
from tests.e2e.load_helpers import call
from tests.events.sse import SSEReader, read_until

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("event_streams")]

THREADS = 2
PER_USER = 8
SETTINGS = {
    "DATAHUB_THREADS": str(THREADS),
    "DATAHUB_EVENTS_STREAM_HEARTBEAT_SECONDS": "1",
    "DATAHUB_EVENTS_STREAM_RECHECK_SECONDS": "0.2",
    "DATAHUB_EVENTS_STREAMS_PER_USER": str(PER_USER),
    "DATAHUB_PIPELINE_EMBEDDED_WORKER": "false",
}


def serve(folder):
    """One worker process with THREADS request threads, its own SQLite file (the
    stream's queries run on PostgreSQL too, in tests/events/test_stream.py)."""
    return start_gunicorn(f"sqlite:///{folder / 'datahub.db'}", folder, 1, SETTINGS)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = serve(tmp_path_factory.mktemp("streams"))
    yield server
    stop_gunicorn(server)


@pytest.fixture(scope="module")
def admin(server):
    """The admin's access token, one login for the module (logins are rate-limited)."""
    return login(server)


def api(server, method, path, token=None, body=None, headers=None):
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    return call(
        server.url + "/api/v1", method, path, body=body, headers={**auth, **(headers or {})}
    )


def login(server, email="admin@example.com", password=None):
    password = password or server.admin_password()
    reply = api(server, "POST", "/auth/login", body={"email": email, "password": password})
    assert reply.status == 200, reply.body
    return reply.json()["access_token"]


def new_user(server, admin):
    email, password = f"s{uuid.uuid4().hex[:10]}@example.com", "a-long-password-1"
    body = {"email": email, "password": password, "roles": ["editor"]}
    assert api(server, "POST", "/users/", admin, body).status == 201
    return login(server, email, password)


def create_dataset(server, token):
    reply = api(server, "POST", "/datasets/", token, {"name": f"d-{uuid.uuid4().hex[:8]}"})
    assert reply.status == 201, reply.body
    return reply.json()


class Stream:
    """An open stream, read as it arrives."""

    def __init__(self, server, token, headers=None, query=""):
        url = urlsplit(server.url)
        self.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        headers = {"Authorization": f"Bearer {token}", **(headers or {})}
        self.connection.request("GET", "/api/v1/events/stream" + query, headers=headers)
        self.response = self.connection.getresponse()
        self.reader = SSEReader()

    def chunks(self):
        while True:
            data = self.response.read1(65536)
            if not data:
                return
            yield data

    def until(self, done, timeout=10):
        return read_until(self.chunks(), self.reader, done, timeout)

    def close(self):
        self.connection.close()


def test_streams_beyond_the_threads_leave_the_api_free_and_get_each_event_once(server, admin):
    streams = [Stream(server, admin) for _ in range(3 * THREADS)]
    for stream in streams:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type") == "text/event-stream; charset=utf-8"
        stream.until(lambda r: r.comments)  # its first bytes: it is open
    for _ in range(5):  # every request thread is free for the API
        started = time.monotonic()
        assert call(server.url, "GET", "/healthz").status == 200
        assert api(server, "GET", "/auth/me", admin).status == 200
        assert time.monotonic() - started < 2
    created = [create_dataset(server, admin) for _ in range(3)]
    sources = [f"/api/v1/datasets/{dataset['id']}" for dataset in created]
    for stream in streams:
        stream.until(lambda r: len(r.messages) >= 3)
        stream.until(lambda r: "heartbeat" in r.comments)  # and nothing more came before
        assert [m["data"]["source"] for m in stream.reader.messages] == sources
        assert stream.reader.ids() == sorted(set(stream.reader.ids()))
        stream.close()


def test_an_idle_stream_gets_a_heartbeat_comment(server, admin):
    stream = Stream(server, admin)
    started = time.monotonic()
    stream.until(lambda r: "heartbeat" in r.comments, timeout=5)
    assert time.monotonic() - started < 3  # every second here; 15 s by default
    stream.close()


def test_reconnecting_with_last_event_id_loses_nothing(server, admin):
    stream = Stream(server, admin)
    stream.until(lambda r: r.comments)
    first = create_dataset(server, admin)
    stream.until(lambda r: r.messages)
    last_id = stream.reader.messages[-1]["id"]
    stream.close()
    missed = [create_dataset(server, admin) for _ in range(2)]
    again = Stream(server, admin, {"Last-Event-ID": last_id})
    again.until(lambda r: len(r.messages) >= 2)
    assert stream.reader.messages[-1]["data"]["data"]["id"] == first["id"]
    assert [m["data"]["data"]["id"] for m in again.reader.messages] == [d["id"] for d in missed]
    again.close()


def test_logging_out_ends_the_stream_with_its_reason(server):
    token = login(server)
    stream = Stream(server, token)
    stream.until(lambda r: r.comments)
    assert api(server, "POST", "/auth/logout", token).status == 200
    started = time.monotonic()
    for chunk in stream.chunks():  # ends: the chunked body's last chunk
        stream.reader.feed(chunk)
    assert time.monotonic() - started < 5
    assert "Token has been revoked" in stream.reader.comments
    assert stream.response.isclosed()


def test_a_user_s_streams_are_limited_and_a_closed_one_frees_its_place(server, admin):
    token = new_user(server, admin)
    streams = [Stream(server, token) for _ in range(PER_USER)]
    assert all(stream.response.status == 200 for stream in streams)
    refused = Stream(server, token)
    assert refused.response.status == 429
    assert refused.response.getheader("Retry-After") == "5"
    assert json.loads(refused.response.read()) == {"detail": "Too many open event streams"}
    for stream in streams[:2]:
        stream.close()
    deadline = time.monotonic() + 5
    while True:  # the hub notices a closed client at once; its count follows
        again = Stream(server, token)
        if again.response.status == 200:
            break
        assert time.monotonic() < deadline, again.response.status
        time.sleep(0.1)
    for stream in [again, *streams[2:]]:
        stream.close()


def test_head_answers_headers_and_keeps_the_connection_for_the_next_request(server, admin):
    url = urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    auth = {"Authorization": f"Bearer {admin}"}
    connection.request("HEAD", "/api/v1/events/stream", headers=auth)
    response = connection.getresponse()
    assert response.status == 200 and response.read() == b""
    assert response.getheader("Content-Type") == "text/event-stream; charset=utf-8"
    connection.request("GET", "/healthz")  # the same connection: not taken for a stream
    assert connection.getresponse().status == 200
    connection.close()


def test_a_graceful_stop_ends_every_stream_properly(tmp_path):
    own = serve(tmp_path)
    try:
        token = login(own)
        streams = [Stream(own, token) for _ in range(3)]
        for stream in streams:
            stream.until(lambda r: r.comments)
        stop_gunicorn(own, quick=False)
        for stream in streams:
            for chunk in stream.chunks():
                stream.reader.feed(chunk)
            assert stream.response.isclosed()  # the last chunk came: not cut off
    finally:
        stop_gunicorn(own)
