"""The worker model under slow and hostile clients, through a real gunicorn and raw
sockets: gunicorn's own errors in JSON, bodies refused before they are sent, idle clients
dropped, slow but steady transfers never cut, and slow clients never starving the rest."""

import contextlib
import hashlib
import json
import multiprocessing
import socket
import threading
import time
from urllib.parse import urlsplit

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("slow_clients")]  # one module server

IDLE = 2  # CLIENT_IDLE_TIMEOUT for the idle tests


def address(server):
    parts = urlsplit(server.url)
    return parts.hostname, parts.port


def exchange(server, data, timeout=10):
    """Send raw bytes, then read until the server closes (or ``timeout``)."""
    with socket.create_connection(address(server), timeout=timeout) as sock:
        sock.sendall(data)
        return read_all(sock)


def read_all(sock):
    out = b""
    with contextlib.suppress(TimeoutError, ConnectionResetError):
        while chunk := sock.recv(65536):
            out += chunk
    return out


def parse(raw):
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {
        k.strip().lower(): v.strip()
        for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)
    }
    return int(lines[0].split()[1]), headers, body


def request(server, method, path, body=b"", headers=(), timeout=10):
    head = f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers)
    if body:
        head += f"Content-Length: {len(body)}\r\n"
    return parse(exchange(server, head.encode() + b"\r\n" + body, timeout))


def login(server):
    credentials = json.dumps(
        {"email": "admin@example.com", "password": server.admin_password()}
    ).encode()
    status, _, body = request(
        server, "POST", "/api/v1/auth/login", credentials, [("Content-Type", "application/json")]
    )
    assert status == 200, body
    return json.loads(body)["access_token"]


def create_dataset(server, token, name):
    status, _, body = request(
        server,
        "POST",
        "/api/v1/datasets/",
        json.dumps({"name": name}).encode(),
        [("Content-Type", "application/json"), ("Authorization", f"Bearer {token}")],
    )
    assert status == 201, body
    return json.loads(body)["id"]


def upload(server, token, dataset_id, content):
    status, _, body = request(
        server,
        "PUT",
        f"/api/v1/datasets/{dataset_id}/file",
        content,
        [("Content-Type", "text/csv"), ("Authorization", f"Bearer {token}")],
        timeout=60,
    )
    assert status == 200, body


# -- gunicorn's own answers are the contract's JSON ----------------------------------------

CHUNKED_LOGIN = (
    b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
    b"\r\nTransfer-Encoding: chunked\r\n\r\n"
)


@pytest.mark.parametrize(
    "raw, status, detail",
    [
        (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "Request line too long"),
        (
            b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n",
            431,
            "Request header fields too large",
        ),
        (
            b"GET / HTTP/1.1\r\nHost: x\r\n"
            + b"".join(b"X-%d: 1\r\n" % i for i in range(120))
            + b"\r\n",
            431,
            "Request header fields too large",
        ),
        (b"NOT A REQUEST\r\n\r\n", 400, "Malformed request"),
        (b"GET / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", 400, "Malformed request"),
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Nul: a\x00b\r\n\r\n", 400, "Malformed request"),
        (
            b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: foo\r\n\r\n",
            501,
            "Transfer coding not supported",
        ),
        (CHUNKED_LOGIN + b"zz\r\nabc\r\n0\r\n\r\n", 400, "Malformed chunked body"),
        (CHUNKED_LOGIN + b"3\r\nabcXX0\r\n\r\n", 400, "Malformed chunked body"),
    ],
    ids=[
        "long-line",
        "long-header",
        "many-headers",
        "garbage",
        "bad-header-name",
        "nul-header",
        "transfer-coding",
        "chunk-size",
        "chunk-terminator",
    ],
)
def test_every_error_of_the_server_is_json(module_gunicorn_server, raw, status, detail):
    answer, headers, body = parse(exchange(module_gunicorn_server, raw))
    assert (answer, json.loads(body)) == (status, {"detail": detail})
    assert headers["content-type"] == "application/json"
    log = module_gunicorn_server.log()
    assert "Traceback" not in log and "<html>" not in log


# -- bodies refused before they are sent -------------------------------------------------


@pytest.mark.parametrize(
    "path, method, status, detail",
    [
        ("/api/v1/auth/login", "POST", 413, "Request body too large"),
        ("/api/v1/datasets/", "POST", 413, "Request body too large"),
        ("/api/v1/datasets/1/file", "PUT", 400, "File too large"),
    ],
)
def test_a_declared_length_over_the_limit_is_answered_before_any_byte_is_sent(
    module_gunicorn_server, path, method, status, detail
):
    """The client announces 1 GiB and sends nothing: the answer comes at once and the
    connection closes, nothing of the body is waited for."""
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {2**30}\r\n\r\n"
    ).encode()
    started = time.monotonic()
    answer, _, body = parse(exchange(module_gunicorn_server, head, timeout=5))
    assert (answer, json.loads(body)) == (status, {"detail": detail})
    assert time.monotonic() - started < 2


def test_an_answer_before_a_small_body_still_reaches_a_client_sending_it(module_gunicorn_server):
    """A 401 comes before a byte of the body is read. A client that sends its whole body
    before reading (http.client, urllib3, requests) must still get that 401, and the
    connection stays usable, rather than being reset over an unread body."""
    import http.client

    host, port = address(module_gunicorn_server)
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        for _ in range(3):
            conn.request(
                "PUT",
                "/api/v1/datasets/1/file",
                body=b"a,b\n" * 100000,
                headers={"Content-Type": "text/csv"},
            )
            response = conn.getresponse()
            assert (response.status, json.loads(response.read())) == (
                401,
                {"detail": "Not authenticated"},
            )
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
    finally:
        conn.close()


# -- idle clients are dropped, steady ones never cut --------------------------------------


class TestIdleAndSteady:
    @pytest.fixture
    def gunicorn_workers(self):
        return 1

    @pytest.fixture
    def gunicorn_env(self):
        # gthread's own timeout shorter than every transfer below: it must cut none.
        return {
            "DATAHUB_CLIENT_IDLE_TIMEOUT": str(IDLE),
            "DATAHUB_THREADS": "2",
            "GUNICORN_CMD_ARGS": "--timeout 2",
        }

    def test_a_client_that_stops_sending_a_body_is_dropped(self, gunicorn_server):
        head = (
            b"POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        started = time.monotonic()
        answer, _, body = parse(exchange(gunicorn_server, head, timeout=IDLE + 5))
        assert (answer, json.loads(body)) == (
            400,
            {"detail": "Request body ended before its Content-Length"},
        )
        assert IDLE <= time.monotonic() - started < IDLE + 2
        assert "Traceback" not in gunicorn_server.log()

    def test_a_client_that_stops_sending_headers_is_dropped(self, gunicorn_server):
        started = time.monotonic()
        assert (
            exchange(gunicorn_server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", timeout=IDLE + 5)
            == b""
        )
        assert IDLE <= time.monotonic() - started < IDLE + 2
        assert "Traceback" not in gunicorn_server.log()

    def test_clients_that_stop_reading_are_dropped_and_free_their_threads(self, gunicorn_server):
        token = login(gunicorn_server)
        dataset = create_dataset(gunicorn_server, token, "big")
        upload(gunicorn_server, token, dataset, b"x" * (16 * 1024 * 1024))
        stalled = []
        for _ in range(2):  # as many as the worker has threads
            sock = slow_reader_socket(gunicorn_server)
            sock.sendall(
                f"GET /api/v1/datasets/{dataset}/file HTTP/1.1\r\nHost: x\r\n"
                f"Authorization: Bearer {token}\r\n\r\n".encode()
            )
            sock.recv(1024)  # the answer has started; then nothing more is read
            stalled.append(sock)
        try:
            time.sleep(0.5)
            started = time.monotonic()
            status, _, _ = request(gunicorn_server, "GET", "/healthz", timeout=IDLE + 10)
            assert status == 200
            # Both threads were held until the idle timeout dropped a reader.
            assert IDLE - 1 <= time.monotonic() - started < IDLE + 3
        finally:
            for sock in stalled:
                sock.close()
        assert "dropped client" in gunicorn_server.log()

    def test_a_slow_steady_upload_and_download_outlast_every_timeout(self, gunicorn_server):
        token = login(gunicorn_server)
        dataset = create_dataset(gunicorn_server, token, "steady")
        content = bytes(range(256)) * 4096  # 1 MiB, sent in 8 pieces over ~7 s
        head = (
            f"PUT /api/v1/datasets/{dataset}/file HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: text/csv\r\n"
            f"Content-Length: {len(content)}\r\nConnection: close\r\n\r\n"
        ).encode()
        with socket.create_connection(address(gunicorn_server), timeout=30) as sock:
            sock.sendall(head)
            piece = len(content) // 8
            for offset in range(0, len(content), piece):
                time.sleep(IDLE * 0.45)
                sock.sendall(content[offset : offset + piece])
            status, _, body = parse(read_all(sock))
        assert status == 200, body
        assert json.loads(body)["file"]["sha256"] == hashlib.sha256(content).hexdigest()

        # The download, read 128 KiB at a time with pauses just under the idle timeout.
        sock = slow_reader_socket(gunicorn_server)
        with sock:
            sock.sendall(
                f"GET /api/v1/datasets/{dataset}/file HTTP/1.1\r\nHost: x\r\n"
                f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n".encode()
            )
            received, started = b"", time.monotonic()
            while True:
                time.sleep(IDLE * 0.45)
                chunk = b""
                with contextlib.suppress(BlockingIOError):
                    while len(chunk) < 128 * 1024:
                        part = sock.recv(128 * 1024 - len(chunk), socket.MSG_DONTWAIT)
                        if not part:
                            break
                        chunk += part
                if not chunk:
                    break
                received += chunk
        assert time.monotonic() - started > 2 * IDLE  # longer than any timeout
        status, _, body = parse(received)
        assert status == 200 and body == content
        assert "dropped client" not in gunicorn_server.log()


def slow_reader_socket(server):
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(30)
    sock.connect(address(server))
    return sock


# -- slow clients never starve the others ------------------------------------------------


class TestNoAcceptWhileBusy:
    """Two workers of four threads; seven clients trickle bodies, so one worker has every
    thread busy. Every other request must reach the worker with a free thread, not queue
    behind the slow ones in the other."""

    @pytest.fixture
    def gunicorn_env(self):
        return {"DATAHUB_THREADS": "4", "DATAHUB_CLIENT_IDLE_TIMEOUT": "60"}

    def test_requests_go_to_a_worker_with_a_free_thread(self, gunicorn_server):
        token = login(gunicorn_server)
        dataset = create_dataset(gunicorn_server, token, "target")
        with trickling(gunicorn_server, token, dataset, 7) as tricklers:
            durations = []
            for _ in range(20):
                started = time.monotonic()
                status, _, _ = request(gunicorn_server, "GET", "/healthz", timeout=30)
                assert status == 200
                durations.append(time.monotonic() - started)
            assert tricklers.alive() == 7
        assert max(durations) < 1, durations


class TestFiftyAndFifty:
    """The defaults of gunicorn.conf.py (the README's start command): 50 clients trickle
    request bodies and 50 read a download slowly, and /healthz and login still answer
    within a second."""

    @pytest.fixture
    def gunicorn_workers(self):
        return multiprocessing.cpu_count() * 2 + 1  # gunicorn.conf.py's default

    def test_healthz_and_login_stay_fast(self, gunicorn_server):
        token = login(gunicorn_server)
        dataset = create_dataset(gunicorn_server, token, "download")
        upload(gunicorn_server, token, dataset, b"y" * (8 * 1024 * 1024))
        with (
            trickling(gunicorn_server, token, dataset, 50) as tricklers,
            slow_downloads(gunicorn_server, token, dataset, 50) as readers,
        ):
            # Every download answered (its status line read) before the probes: on a
            # loaded machine the 50 answers may take more than a second to start.
            deadline = time.monotonic() + 30
            while len(readers.heads) < 50 and time.monotonic() < deadline:
                time.sleep(0.2)
            durations = {"healthz": [], "login": []}
            for _ in range(10):
                started = time.monotonic()
                assert request(gunicorn_server, "GET", "/healthz", timeout=30)[0] == 200
                durations["healthz"].append(time.monotonic() - started)
                started = time.monotonic()  # an unknown email each time: the same bcrypt
                status, _, _ = request(  # check, and no per-email rate limit on defaults
                    gunicorn_server,
                    "POST",
                    "/api/v1/auth/login",
                    json.dumps(
                        {
                            "email": f"probe{len(durations['login'])}@example.com",
                            "password": "not the password",
                        }
                    ).encode(),
                    [("Content-Type", "application/json")],
                    timeout=30,
                )
                assert status == 401
                durations["login"].append(time.monotonic() - started)
            assert tricklers.alive() == 50 and readers.alive() == 50  # all really held
        assert max(durations["healthz"]) < 1 and max(durations["login"]) < 1, durations


class _Crowd:
    def __init__(self):
        self.sockets, self.stop = [], threading.Event()
        self.heads = {}  # a download's first bytes: its status line

    def alive(self):
        """How many are still in progress, not answered or closed by the server: an upload
        waiting for more of its body, a download of a 200 that has not ended."""
        count = 0
        for sock in self.sockets:
            try:
                data = sock.recv(1, socket.MSG_PEEK)
            except BlockingIOError:
                data = None  # nothing to read now
            except OSError:
                continue
            if data == b"":
                continue  # closed by the server
            if self.reading:
                count += self.heads.get(sock, b"").startswith(b"HTTP/1.1 200")
            else:
                count += data is None
        return count


def trickling(server, token, dataset, count):
    """``count`` uploads (authorised: the server reads their bodies; without ``token``,
    answered 401 first) that send one byte every half second."""
    authorization = f"Authorization: Bearer {token}\r\n" if token else ""

    def open_one():
        sock = socket.create_connection(address(server), timeout=10)
        sock.sendall(
            f"PUT /api/v1/datasets/{dataset}/file HTTP/1.1\r\nHost: x\r\n"
            f"{authorization}Content-Type: text/csv\r\n"
            f"Content-Length: 1000000\r\n\r\n".encode()
        )
        return sock

    def step(crowd, sock):
        sock.send(b"x")

    return _crowd(count, open_one, step, reading=False)


def slow_downloads(server, token, dataset, count):
    """``count`` downloads that read 4 KiB every half second."""

    def open_one():
        sock = slow_reader_socket(server)
        sock.sendall(
            f"GET /api/v1/datasets/{dataset}/file HTTP/1.1\r\nHost: x\r\n"
            f"Authorization: Bearer {token}\r\n\r\n".encode()
        )
        return sock

    def step(crowd, sock):
        crowd.heads.setdefault(sock, sock.recv(4096)[:12])

    return _crowd(count, open_one, step, reading=True)


@contextlib.contextmanager
def _crowd(count, open_one, step, reading):
    """``count`` connections from ``open_one``, each given a ``step`` every half second
    by one thread (for two minutes at most) until the block ends."""
    crowd = _Crowd()
    crowd.reading = reading
    for _ in range(count):
        sock = open_one()
        sock.setblocking(False)
        crowd.sockets.append(sock)

    def run():
        deadline = time.monotonic() + 120
        while not crowd.stop.wait(0.5) and time.monotonic() < deadline:
            for sock in crowd.sockets:
                with contextlib.suppress(OSError):
                    step(crowd, sock)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield crowd
    finally:
        crowd.stop.set()
        thread.join()
        for sock in crowd.sockets:
            sock.close()
