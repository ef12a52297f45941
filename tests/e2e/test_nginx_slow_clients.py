"""deploy/nginx/datahub.conf under slow and hostile clients, with raw TLS sockets: nginx's
own errors in the contract's JSON, and slow JSON clients held by nginx, never by gunicorn."""

import contextlib
import json
import socket
import ssl
import threading
import time

import pytest

from tests.e2e.nginx_site import run_for_test

pytestmark = pytest.mark.e2e
MAX_BODY = 1024 * 1024


@pytest.fixture
def gunicorn_workers():
    return 1


@pytest.fixture
def gunicorn_env():
    # One worker with two threads: two slow requests reaching gunicorn would take it all.
    return {
        "DATAHUB_PROXY_FIX_X_FOR": "1",
        "DATAHUB_PROXY_FIX_X_PROTO": "1",
        "DATAHUB_MAX_CONTENT_LENGTH": str(MAX_BODY),
        "DATAHUB_THREADS": "2",
        "DATAHUB_RATELIMIT_ENABLED": "false",
    }  # ten logins for one email at once


@pytest.fixture
def nginx(gunicorn_server, tmp_path):
    server = run_for_test(tmp_path, gunicorn_server, MAX_BODY)
    yield server
    server.stop()


def connect(nginx, timeout=10):
    context = ssl._create_unverified_context()
    context.set_alpn_protocols(["http/1.1"])
    raw = socket.create_connection(("127.0.0.1", nginx.port), timeout=timeout)
    return context.wrap_socket(raw, server_hostname="localhost")


def exchange(nginx, data, timeout=10):
    with connect(nginx, timeout) as sock:
        sock.sendall(data)
        out = b""
        with contextlib.suppress(TimeoutError, ConnectionResetError, ssl.SSLError):
            while chunk := sock.recv(65536):
                out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, head.decode("latin-1").lower(), body


@pytest.mark.parametrize(
    "raw, status, detail",
    [
        (
            b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n",
            414,
            "Request line too long",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n",
            431,
            "Request header fields too large",
        ),
        (b"NOT A REQUEST\r\n\r\n", 400, "Malformed request"),
        (
            b"POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Type: application/json\r\n\r\nzz\r\n",
            400,
            "Malformed request",
        ),
        (
            b"POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
            b"\r\nContent-Length: 2000000\r\n\r\n",
            413,
            "Request body too large",
        ),
        (
            b"PUT /api/v1/datasets/1/file HTTP/1.1\r\nHost: localhost\r\nContent-Length: 9000000\r\n"
            b"\r\n",
            400,
            "File too large",
        ),
    ],
    ids=["long-line", "long-header", "garbage", "chunk-size", "json-too-large", "file-too-large"],
)
def test_every_error_of_nginx_is_json(nginx, raw, status, detail):
    answer, head, body = exchange(nginx, raw)
    assert (answer, json.loads(body)) == (status, {"detail": detail})
    assert "content-type: application/json" in head


def test_a_client_trickling_a_json_body_never_reaches_gunicorn(nginx, gunicorn_server):
    """Ten clients send a login body a byte at a time: nginx holds them until the body is
    whole, so the single two-thread gunicorn worker stays free for everyone else."""
    body = json.dumps(
        {"email": "admin@example.com", "password": gunicorn_server.admin_password()}
    ).encode()
    head = (
        b"POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    slow = [connect(nginx, timeout=30) for _ in range(10)]
    for sock in slow:
        sock.sendall(head)
    stop, sent = threading.Event(), [0]

    def trickle():  # a byte of each body every 0.2 s, never the last one
        while sent[0] < len(body) - 1 and not stop.wait(0.2):
            for sock in slow:
                sock.sendall(body[sent[0] : sent[0] + 1])
            sent[0] += 1

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        time.sleep(1)
        for _ in range(10):
            started = time.monotonic()
            status, _, _ = exchange(
                nginx,
                b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                timeout=10,
            )
            assert status == 200
            assert time.monotonic() - started < 1
        stop.set()
        thread.join()
        assert 0 < sent[0] < len(body)
        assert "/api/v1/auth/login" not in gunicorn_server.log()  # none has reached it
        for sock in slow:  # the rest: each login completes, through nginx
            sock.sendall(body[sent[0] :])
        for sock in slow:
            assert sock.recv(12) == b"HTTP/1.1 200"
    finally:
        stop.set()
        for sock in slow:
            sock.close()
