"""Unauthenticated uploads that send their (small) body slowly, through a real gunicorn:
the 401 comes at once, and the connection is released shortly after, never held until
the idle timeout."""

import json
import socket
import time

import pytest

from datahub.web.bodies import DRAIN_UNREAD_SECONDS
from tests.e2e.test_slow_clients import address, create_dataset, login, parse, request, trickling

pytestmark = pytest.mark.e2e

THREADS = 4


@pytest.fixture
def gunicorn_env():
    return {"DATAHUB_THREADS": str(THREADS), "DATAHUB_CLIENT_IDLE_TIMEOUT": "60"}


def read_until_closed(sock, timeout):
    """What the server sends until it closes the connection, and when it closed it
    (``None`` when it had not after ``timeout`` seconds)."""
    data, deadline = b"", time.monotonic() + timeout
    sock.settimeout(0.1)
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            sock.send(b"x")  # still trickling the body
            continue
        except ConnectionResetError:
            return data, time.monotonic()
        if not chunk:
            return data, time.monotonic()
        data += chunk
    return data, None


def read_answer(sock, timeout):
    """A response with a Content-Length, read whole within ``timeout`` seconds."""
    sock.settimeout(timeout)
    deadline, data = time.monotonic() + timeout, b""
    while b"\r\n\r\n" not in data or len(parse(data)[2]) < int(parse(data)[1]["content-length"]):
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        data += sock.recv(65536)
    return data


def closed_by_server(sock):
    """Whether the server has closed ``sock`` (a non-blocking socket), once what it sent
    before is read."""
    try:
        while sock.recv(65536, socket.MSG_DONTWAIT):
            pass
    except BlockingIOError:
        return False
    except ConnectionResetError:
        pass
    return True


def test_a_slow_unauthenticated_upload_is_answered_at_once_and_released(gunicorn_server):
    with socket.create_connection(address(gunicorn_server), timeout=10) as sock:
        sock.sendall(
            b"PUT /api/v1/datasets/1/file HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: text/csv\r\nContent-Length: 1000000\r\n\r\nx"
        )
        started = time.monotonic()
        answer = read_answer(sock, timeout=1)  # within a second of the headers
        status, _, body = parse(answer)
        assert (status, json.loads(body)) == (401, {"detail": "Not authenticated"})
        _, closed = read_until_closed(sock, timeout=20)
    assert closed is not None, "the connection was held"
    assert closed - started < DRAIN_UNREAD_SECONDS + 3


def me(server, token):
    """``GET /auth/me``'s status and how long it took."""
    started = time.monotonic()
    status, _, _ = request(
        server, "GET", "/api/v1/auth/me", headers=[("Authorization", f"Bearer {token}")], timeout=30
    )
    return status, time.monotonic() - started


def test_many_slow_unauthenticated_uploads_hold_no_thread(gunicorn_server):
    """Twice as many as the two workers have threads: each holds one for at most
    DRAIN_UNREAD_SECONDS after its 401, so an authenticated request waits two such turns
    at worst, and nothing once they are answered."""
    token = login(gunicorn_server)
    dataset = create_dataset(gunicorn_server, token, "target")
    with trickling(gunicorn_server, None, dataset, 4 * THREADS) as tricklers:
        time.sleep(0.5)
        status, during = me(gunicorn_server, token)
        assert status == 200
        time.sleep(DRAIN_UNREAD_SECONDS + 2)
        assert all(map(closed_by_server, tricklers.sockets))  # answered, and released
        status, after = me(gunicorn_server, token)
        assert status == 200
    # Two turns and the machine's load; before, until the tricklers' bodies ended.
    assert during < 2 * DRAIN_UNREAD_SECONDS + 4 and after < 0.5, (during, after)
