"""The client's retry policy against a local HTTP server that fails on purpose (no datahub
needed): which answers are retried, after how long, and how often."""

import json
import socket
import threading
import time
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
from flaky_app import make_app

from datahub_client import Client, ServerError, UnreachableError


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture
def flaky(tmp_path):
    log = tmp_path / "arrivals.jsonl"
    log.touch()
    server = make_server("127.0.0.1", 0, make_app(log), handler_class=QuietHandler)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    client = Client(f"http://127.0.0.1:{server.server_port}", retries=3)

    def arrivals(key):
        lines = [json.loads(line) for line in log.read_text().splitlines()]
        times = [line["at"] for line in lines if line["key"] == key]
        return [round(b - a, 2) for a, b in zip(times, times[1:], strict=False)]

    yield client, arrivals
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def test_retry_schedule_is_one_then_two_seconds_on_503(flaky):
    client, arrivals = flaky
    response = client.request("GET", "/flaky", params={"key": "a", "fail": 2}, authenticated=False)
    assert json.loads(response.data) == {"attempts": 3}
    first, second = arrivals("GET a")
    assert 0.9 <= first < 1.8 and 1.9 <= second < 3.0


def test_gives_up_after_three_retries(flaky):
    client, arrivals = flaky
    started = time.monotonic()
    with pytest.raises(ServerError) as error:
        client.request("GET", "/flaky", params={"key": "b", "fail": 9}, authenticated=False)
    assert (error.value.status, error.value.detail) == (503, "Service unavailable")
    assert len(arrivals("GET b")) == 3  # four attempts: three gaps of 1, 2 and 4 seconds
    assert 6.5 <= time.monotonic() - started < 10


def test_a_longer_retry_after_is_honoured(flaky):
    client, arrivals = flaky
    client.request(
        "GET", "/flaky", params={"key": "c", "fail": 1, "retry_after": 3}, authenticated=False
    )
    (gap,) = arrivals("GET c")
    assert 2.9 <= gap < 4


def test_post_is_never_retried(flaky):
    client, arrivals = flaky
    with pytest.raises(ServerError):
        client.request("POST", "/flaky", params={"key": "d", "fail": 1}, authenticated=False)
    assert arrivals("POST d") == []  # one attempt only


class ClosingKeepAlive:
    """A server whose first connection answers one request (keep-alive), then reads the
    next and closes without a byte of answer, as a server closing a kept-alive connection
    gracefully (FIN) while the client reuses it; every later connection is answered."""

    ANSWER = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\nConnection: keep-alive\r\n\r\n{}"
    )

    def __init__(self, closing=1):
        self.closing = closing  # how many connections close unanswered after the first
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.requests = []  # (connection number, request line)
        threading.Thread(target=self._serve, daemon=True).start()

    def _read_request(self, sock):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            data += chunk
        return data.split(b"\r\n", 1)[0].decode()

    def _serve(self):
        number = 0
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            number += 1
            with sock:
                while (line := self._read_request(sock)) is not None:
                    self.requests.append((number, line))
                    if len(self.requests) > 1 and number <= self.closing:
                        sock.shutdown(socket.SHUT_WR)  # the FIN, no answer
                        break
                    sock.sendall(self.ANSWER)

    def close(self):
        self.listener.close()


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_get_on_a_kept_alive_connection_closed_unanswered_is_sent_again(method):
    server = ClosingKeepAlive()
    try:
        client = Client(f"http://127.0.0.1:{server.port}", retries=3)  # waits of 1, 2, 4 s
        client.request("GET", "/first", authenticated=False)
        if method == "GET":
            started = time.monotonic()
            assert client.request("GET", "/second", authenticated=False).status == 200
            assert time.monotonic() - started < 0.5  # sent again at once, no backoff
            assert server.requests == [
                (1, "GET /first HTTP/1.1"),
                (1, "GET /second HTTP/1.1"),
                (2, "GET /second HTTP/1.1"),  # sent again, on a new connection
            ]
        else:  # it may have arrived: never sent twice
            with pytest.raises(UnreachableError):
                client.request("POST", "/second", authenticated=False)
            assert server.requests == [(1, "GET /first HTTP/1.1"), (1, "POST /second HTTP/1.1")]
    finally:
        server.close()


def test_a_get_closed_unanswered_twice_is_not_sent_a_third_time():
    server = ClosingKeepAlive(closing=2)
    try:
        client = Client(f"http://127.0.0.1:{server.port}", retries=3, backoff=0)
        client.request("GET", "/first", authenticated=False)
        with pytest.raises(UnreachableError):
            client.request("GET", "/second", authenticated=False)
        assert server.requests == [
            (1, "GET /first HTTP/1.1"),
            (1, "GET /second HTTP/1.1"),
            (2, "GET /second HTTP/1.1"),
        ]
    finally:
        server.close()
