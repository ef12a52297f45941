"""What datahub.platform.serving.gunicorn_worker relies on in gunicorn. Each test fails when an
upgrade of gunicorn changes that shape, naming the setting that turns the use off, so the
upgrade is a visible decision (the pinned version is in requirements.txt)."""

import inspect
import io
import pathlib
import runpy
import signal
import socket
import threading
import types
from concurrent import futures

from gunicorn import util
from gunicorn.http.body import Body, LengthReader
from gunicorn.http.parser import RequestParser
from gunicorn.http.unreader import Unreader
from gunicorn.workers import base
from gunicorn.workers.gthread import TConn, ThreadWorker

from datahub.platform.serving import gunicorn_worker
from datahub.platform.serving.gunicorn_worker import IdleTimeoutSocket, Worker

WORKER = (
    "gunicorn changed what datahub's worker relies on: set DATAHUB_WORKER_CLASS=gthread "
    "(docs/contributing/internals.rst) until datahub/platform/serving/gunicorn_worker.py is updated"
)
SOCKET_UPLOADS = (
    "gunicorn changed its body readers: set SOCKET_UPLOADS=false "
    "(docs/contributing/internals.rst) until SocketBody is updated"
)
FAILED_BODY = (
    "gunicorn changed Body.failed: close_connection now does nothing (no setting: "
    "gunicorn drains instead); update it"
)


def parameters(function):
    return list(inspect.signature(function).parameters)


def test_error_pages_are_written_by_util_write_error():
    assert parameters(util.write_error) == ["sock", "status_int", "reason", "mesg"], WORKER
    # The base worker looks the function up on the module at call time, so replacing the
    # module's attribute is what changes the pages.
    assert base.util is util, WORKER
    assert "write_error" in base.Worker.handle_error.__code__.co_names, WORKER


def test_json_errors_replace_the_html_page():
    original = util.write_error
    try:
        assert gunicorn_worker.install_json_errors(), WORKER
        left, right = socket.socketpair()
        with left, right:
            util.write_error(left, 414, "URI Too Long", "the line echoed")
            answer = right.recv(4096)
        assert answer.startswith(b"HTTP/1.1 414 ")
        assert answer.endswith(b'\r\n\r\n{"detail": "Request line too long"}')
        assert b"the line echoed" not in answer
    finally:
        util.write_error = original


def test_the_threaded_worker_hooks_used():
    assert parameters(ThreadWorker.enqueue_req) == ["self", "conn"], WORKER
    assert parameters(ThreadWorker.finish_request) == ["self", "conn", "fs"], WORKER
    assert parameters(ThreadWorker.set_accept_enabled) == ["self", "enabled"], WORKER
    assert "set_accept_enabled" in ThreadWorker.run.__code__.co_names, WORKER
    assert "_accepting" in ThreadWorker.run.__code__.co_names, WORKER
    # A request thread makes the client socket blocking with setblocking(True), which the
    # idle-timeout socket turns into its timeout; a graceful close goes through conn.close.
    assert "setblocking" in TConn.init.__code__.co_names, WORKER
    assert "setblocking" in ThreadWorker.handle.__code__.co_names, WORKER
    assert "close" in ThreadWorker.finish_request.__code__.co_names, WORKER
    assert issubclass(Worker, ThreadWorker)
    assert parameters(ThreadWorker.run) == ["self"], WORKER


def test_the_closer_waits_for_a_close_under_way_and_no_longer_than_told():
    closer = gunicorn_worker.GracefulCloser(size=1)
    release, closed = threading.Event(), []

    def close(graceful):
        release.wait(5)
        closed.append(graceful)

    closer.submit(close)
    assert closer.wait(timeout=0.2) is False  # bounded: the close is still under way
    release.set()
    assert closer.wait(timeout=5) is True and closed == [True]


def test_a_connection_keeps_the_socket_the_worker_gives_it():
    left, right = socket.socketpair()
    with right:
        conn = TConn(cfg=None, sock=left, client=("127.0.0.1", 1), server=("127.0.0.1", 2))
        conn.sock = IdleTimeoutSocket.wrap(conn.sock, 0.2)
        conn.sock.setblocking(True)
        assert conn.sock.gettimeout() == 0.2
        conn.sock.close()


def test_a_failed_body_closes_the_connection_instead_of_draining():
    raw = (
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789"
        b"GET /next HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    parser = RequestParser(_config(), iter([raw]), ("127.0.0.1", 1))
    message = next(parser)
    gunicorn_worker.close_connection({"wsgi.input": message.body})
    assert message.body.failed is True, FAILED_BODY
    assert parser.finish_body() is False, FAILED_BODY  # False: the caller must close


def test_the_socket_body_shapes():
    assert hasattr(Unreader, "take_buffered") and hasattr(Unreader, "unread"), SOCKET_UPLOADS
    reader = LengthReader(_BufferUnreader(b"abc"), 3)
    assert reader.length == 3, SOCKET_UPLOADS
    body = Body(reader)
    assert isinstance(body.buf, io.BytesIO) and body.failed is False, SOCKET_UPLOADS


def test_the_worker_class_falls_back_to_gunicorns_own(monkeypatch):
    conf = pathlib.Path(__file__).resolve().parents[3] / "gunicorn.conf.py"
    monkeypatch.delenv("DATAHUB_WORKER_CLASS", raising=False)
    assert (
        runpy.run_path(str(conf))["worker_class"]
        == "datahub.platform.serving.gunicorn_worker.Worker"
    )
    monkeypatch.setenv("DATAHUB_WORKER_CLASS", "gthread")
    assert runpy.run_path(str(conf))["worker_class"] == "gthread"


class _BufferUnreader(Unreader):
    def __init__(self, data):
        super().__init__()
        self.data = data

    def chunk(self, size_hint=None):
        data, self.data = self.data, b""
        return data


def _config():
    from gunicorn.config import Config

    return Config()


def test_the_quick_shutdown_the_worker_calls():
    assert parameters(base.Worker.handle_quit) == ["self", "sig", "frame"], WORKER
    assert "exit" in base.Worker.handle_quit.__code__.co_names, WORKER
    assert base.Worker in Worker.__mro__


def test_a_sigquit_inside_a_submit_exits_instead_of_waiting_for_itself():
    """The signal handler runs in the main thread, maybe inside ``tpool.submit()``, which
    holds the pool's lock (``_shutdown_lock``, as Python's ThreadPoolExecutor names it):
    gthread's own handle_quit then waits for that lock forever."""
    worker = Worker.__new__(Worker)  # only what handle_quit uses
    worker.alive, worker.tpool = True, futures.ThreadPoolExecutor(1)
    worker.cfg = types.SimpleNamespace(worker_int=lambda _worker: None)
    held_by_submit = worker.tpool._shutdown_lock
    exits = []

    def quit_inside_submit():
        with held_by_submit:
            try:
                worker.handle_quit(signal.SIGQUIT, None)
            except SystemExit as exc:
                exits.append(exc.code)

    thread = threading.Thread(target=quit_inside_submit, daemon=True)
    thread.start()
    thread.join(5)
    assert exits == [0] and worker.alive is False
