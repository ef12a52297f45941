"""The gunicorn worker the service runs on, and every use of gunicorn's internals.

**Worker model.** :class:`Worker` is gunicorn's threaded worker (``gthread``): a main loop
accepts connections and keeps idle keep-alive connections in a poller; each request runs
in a thread of a pool (``threads`` per process). What it adds:

* *Idle timeouts.* Every client socket gets a timeout of ``CLIENT_IDLE_TIMEOUT`` seconds
  (app setting, default 60) for each read and write. A client that stops sending or
  reading for that long is dropped (its thread freed); one that keeps making progress is
  never cut, however long the transfer takes. gthread's own ``timeout`` only watches the
  main loop (which is never busy with a request), so it never cuts a request either.
* *No accepting while busy.* gthread accepts connections even when every thread is busy
  (they queue inside the process, behind the slow clients). This worker stops accepting
  while all its threads are busy, so new connections go to a worker with a free thread.
* *JSON errors.* What gunicorn answers itself (a malformed request line, a line or header
  over the limits, bad chunked framing, an unhandled error) comes out as the contract's
  ``{"detail": ...}`` instead of gunicorn's HTML page; and what its body readers raise
  while the app reads a body is registered as the domain error it means
  (:func:`datahub.platform.errors.treat_as`), which the app answers like its own.

**Internals used** (each checked by ``tests/platform/serving/test_gunicorn_shape.py``, which fails
when gunicorn changes them, so an upgrade is a visible decision):

* :class:`Worker` overrides ``ThreadWorker.enqueue_req``, ``finish_request``,
  ``set_accept_enabled``, ``run`` (extended, not replaced) and ``handle_quit`` and replaces a connection's ``sock`` and
  ``close``
  (fallback: ``DATAHUB_WORKER_CLASS=gthread`` in gunicorn.conf.py, gunicorn's own threaded
  worker: no idle timeouts, accepting while busy, closes in the main loop, HTML errors).
* ``gunicorn.util.write_error`` is replaced by :func:`write_json_error`
  (fallback: none needed — without it the errors are HTML again, logged at start).
* A Content-Length upload body is read from gunicorn's client socket (``SocketBody``),
  through ``gunicorn.http.body.Body``/``LengthReader`` and ``Unreader.take_buffered``
  (fallback: ``wsgi.input``, used whenever the shapes differ, or when the app setting
  ``SOCKET_UPLOADS`` is false).
* ``Body.failed`` marks a connection that must close after the response rather than be
  drained for the next request (fallback: gunicorn drains at most 64 KiB for 5 s, then
  closes).
"""

import contextlib
import errno
import functools
import json
import logging
import queue
import socket
import threading
import time
from http import HTTPStatus

from gunicorn import util as gunicorn_util
from gunicorn.http import errors as gunicorn_errors
from gunicorn.workers.base import Worker as Base
from gunicorn.workers.gthread import ThreadWorker

from datahub.platform import errors
from datahub.platform.errors import IncompleteBody

log = logging.getLogger("gunicorn.error")  # gunicorn's error log: where operators look

DEFAULT_IDLE_TIMEOUT = 60.0
CLOSE_WAIT = 5.0  # at a graceful stop, for the closes under way (each waits at most 2 s)
CHUNK_SIZE = 1024 * 1024  # large reads: per-chunk Python overhead dominated at 64 KiB


# -- idle timeouts ----------------------------------------------------------------------


class ClientIdle(ConnectionResetError):
    """The client sent or read nothing for the idle timeout. A ``ConnectionResetError``,
    so that gunicorn (and the app) treat it as the client having gone away: the
    connection closes quietly, without a traceback."""


class IdleTimeoutSocket(socket.socket):
    """A client socket whose blocking mode waits at most ``idle_timeout`` seconds for
    each read or write. gunicorn switches sockets between non-blocking (in its poller)
    and blocking (in a request thread) with ``setblocking``; here blocking means the
    timeout."""

    __slots__ = ("idle_timeout", "deadline", "handed_off")

    @classmethod
    def wrap(cls, sock, idle_timeout):
        wrapped = cls(sock.family, sock.type, sock.proto, fileno=sock.detach())
        wrapped.idle_timeout = idle_timeout
        wrapped.deadline = None  # time.monotonic() after which reads fail (read_deadline)
        wrapped.handed_off = False  # the connection is an event stream's (streams.hand_off)
        wrapped.setblocking(False)  # as gunicorn had it when the connection was accepted
        return wrapped

    def setblocking(self, flag):
        if flag:
            self.settimeout(self.idle_timeout)
        else:
            super().setblocking(False)

    def _idle(self, error):
        if self.gettimeout() != self.idle_timeout:
            return error  # a deadline gunicorn set itself (draining, closing), for it to handle
        try:
            peer = self.getpeername()
        except OSError:
            peer = "?"
        log.info("dropped client %s: idle for %s s", peer, self.idle_timeout)
        return ClientIdle(errno.ECONNRESET, f"client idle for {self.idle_timeout} s")

    def _before_read(self):
        if self.deadline is not None:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("read deadline passed")
            self.settimeout(min(remaining, self.idle_timeout))

    def recv(self, *args):
        self._before_read()
        try:
            return super().recv(*args)
        except TimeoutError as error:
            raise self._idle(error) from None

    def recv_into(self, *args):
        self._before_read()
        try:
            return super().recv_into(*args)
        except TimeoutError as error:
            raise self._idle(error) from None

    def sendall(self, *args):
        if self.handed_off:
            return None  # gunicorn's end of a response that goes on as a stream
        try:
            return super().sendall(*args)
        except TimeoutError as error:
            raise self._idle(error) from None

    def sendfile(self, *args, **kwargs):
        try:
            return super().sendfile(*args, **kwargs)
        except TimeoutError as error:
            raise self._idle(error) from None


# -- the worker -------------------------------------------------------------------------


class Worker(ThreadWorker):
    """gthread with idle timeouts, accepting only with a free thread, and JSON errors."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.idle_timeout = DEFAULT_IDLE_TIMEOUT
        self.busy = 0  # connections handed to the thread pool and not finished yet
        self.closer = None  # a GracefulCloser, made after the fork (init_process)

    def load_wsgi(self):
        super().load_wsgi()
        config = getattr(self.wsgi, "config", None) or {}
        self.idle_timeout = float(config.get("CLIENT_IDLE_TIMEOUT", DEFAULT_IDLE_TIMEOUT))

    def init_process(self):
        install_json_errors()
        self.closer = GracefulCloser()
        super().init_process()

    def handle_quit(self, sig, frame):
        """SIGQUIT, the quick shutdown: gunicorn's base worker's, skipping gthread's
        ``tpool.shutdown()``. That call runs in the signal handler, in the main thread,
        which may be inside ``tpool.submit()`` holding the same pool lock: it then waits
        for itself forever (python/cpython#121649), and the worker outlives its master
        (seen in the tests).
        Exiting is enough: at exit Python ends the pool's idle threads and waits for the
        ones in a request, as after ``shutdown(wait=False)``."""
        Base.handle_quit(self, sig, frame)

    def run(self):
        super().run()
        # A graceful stop (SIGTERM) ends here: the closes under way may finish, as they
        # would in gthread's main loop. A quick one (SIGQUIT) exits without waiting.
        self.closer.wait(timeout=CLOSE_WAIT)

    def enqueue_req(self, conn):
        if not isinstance(conn.sock, IdleTimeoutSocket):
            conn.sock = IdleTimeoutSocket.wrap(conn.sock, self.idle_timeout)
            conn.close = functools.partial(self._close, conn.close)
        self.busy += 1
        super().enqueue_req(conn)
        if self.busy >= self.cfg.threads:
            self.set_accept_enabled(False)

    def finish_request(self, conn, fs):
        self.busy -= 1
        super().finish_request(conn, fs)

    def set_accept_enabled(self, enabled):
        super().set_accept_enabled(enabled and self.busy < self.cfg.threads)

    def _close(self, close, graceful=False):
        """gthread closes a finished connection gracefully in its main loop, waiting up to
        2 s for the client to close its side: a client that never does would stall the
        accepting and dispatching of every other connection that long. Done here in a
        thread of its own instead. A connection that went on as an event stream
        (datahub.platform.serving.streams) only loses this descriptor: a graceful close
        would shut it down for the stream too."""
        if not graceful or close.__self__.sock.handed_off:
            return close()
        self.closer.submit(close)


class GracefulCloser:
    """Runs graceful closes on ``size`` daemon threads. Daemon threads: at exit a close
    still waiting for its client is dropped (the process's end closes the socket). The
    threads of a ``ThreadPoolExecutor`` are joined at exit instead, and after a SIGQUIT
    that join was seen to wait forever (the worker outliving its master).
    Only the worker's main loop submits."""

    def __init__(self, size=4):
        self.closes = queue.SimpleQueue()
        self.pending = 0
        self.done = threading.Condition()
        for _ in range(size):
            threading.Thread(target=self._run, name="close", daemon=True).start()

    def submit(self, close):
        with self.done:
            self.pending += 1
        self.closes.put(close)

    def wait(self, timeout):
        """Wait up to ``timeout`` seconds for the submitted closes to finish; True if
        they all did."""
        with self.done:
            return self.done.wait_for(lambda: self.pending == 0, timeout)

    def _run(self):
        while True:
            close = self.closes.get()
            try:
                close(graceful=True)
            except Exception:  # a socket already gone: nothing more to close
                log.debug("graceful close failed", exc_info=True)
            finally:
                with self.done:
                    self.pending -= 1
                    self.done.notify_all()


# -- JSON error pages -------------------------------------------------------------------

# gunicorn's own answers, by status, in the contract's words.
GUNICORN_DETAILS = {
    400: "Malformed request",
    403: "Forbidden",
    414: "Request line too long",
    417: "Expectation failed",
    431: "Request header fields too large",
    500: "Internal server error",
    501: "Transfer coding not supported",
}


def write_json_error(sock, status_int, reason, mesg):
    """gunicorn's ``util.write_error``, answering ``{"detail": ...}``. gunicorn's own
    message (``mesg``, which may echo the request) is logged by gunicorn, not sent."""
    with contextlib.suppress(ValueError):
        reason = HTTPStatus(status_int).phrase  # gunicorn says "Bad Request" for its 501
    body = json.dumps({"detail": GUNICORN_DETAILS.get(status_int, reason)}).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1")
    gunicorn_util.write_nonblock(sock, head + body)


def install_json_errors():
    """Make gunicorn write its error pages with :func:`write_json_error`."""
    if not callable(getattr(gunicorn_util, "write_error", None)):
        log.warning("gunicorn.util.write_error is gone: gunicorn's own errors stay HTML")
        return False
    gunicorn_util.write_error = write_json_error
    return True


# -- request bodies ---------------------------------------------------------------------

# Raised by gunicorn's body readers while the app reads the body.
MALFORMED_BODY_ERRORS = (
    gunicorn_errors.InvalidChunkSize,
    gunicorn_errors.ChunkMissingTerminator,
    gunicorn_errors.InvalidChunkExtension,
)
BROKEN_BODY_ERRORS = (gunicorn_errors.NoMoreData,)
# The app answers them as it answers its own: 400 ``Malformed chunked body`` and
# ``Request body ended before its Content-Length`` (datahub.web.error_handlers).
errors.treat_as(errors.MalformedChunkedBody, *MALFORMED_BODY_ERRORS)
errors.treat_as(errors.IncompleteBody, *BROKEN_BODY_ERRORS)


@contextlib.contextmanager
def read_deadline(environ, seconds):
    """Within the block, reads from this request's client fail (``TimeoutError``) once
    ``seconds`` have passed, however steadily the client sends. Under another worker or
    server, reads keep their usual timeouts."""
    sock = environ.get("gunicorn.socket")
    if not isinstance(sock, IdleTimeoutSocket):
        yield
        return
    sock.deadline = time.monotonic() + seconds
    try:
        yield
    finally:
        sock.deadline = None
        with contextlib.suppress(OSError):
            sock.setblocking(True)  # the idle timeout again


def close_connection(environ):
    """After this response, close the connection instead of reading on for the next
    request: the rest of the body is unread (refused) or unreadable (broken)."""
    body = environ.get("wsgi.input")
    if hasattr(body, "failed"):
        body.failed = True


class SocketBody:
    """A Content-Length body read from gunicorn's client socket with ``recv_into`` into one
    buffer, instead of through ``wsgi.input``.

    gunicorn's reader copies every chunk three or four times through its buffers, and
    werkzeug's stream once more: about 40 % of an upload's time (bench/README.rst). Here
    the bytes go from the socket into the buffer and from there to the hash and the file.
    gunicorn's own reader is kept informed: what it had read ahead is taken from it first,
    a surplus (a pipelined request) is handed back, and its remaining length always says
    how much of the body is still unread, so that it drains or closes as it would."""

    def __init__(self, sock, body, reader):
        self.sock, self.body, self.reader = sock, body, reader

    def chunks(self):
        reader = self.reader
        buffer = memoryview(bytearray(CHUNK_SIZE))
        pending = reader.unreader.take_buffered()
        if len(pending) > reader.length:
            reader.unreader.unread(pending[reader.length :])
            pending = pending[: reader.length]
        try:
            while reader.length:
                filled = len(pending)
                buffer[:filled] = pending
                pending = b""
                wanted = min(CHUNK_SIZE, reader.length)
                while filled < wanted:
                    try:
                        received = self.sock.recv_into(buffer[filled:wanted])
                    except OSError as exc:  # reset, idle: the client is gone, as
                        raise IncompleteBody() from exc  # werkzeug's stream would say
                    if not received:
                        raise IncompleteBody()
                    filled += received
                reader.length -= filled
                yield buffer[:filled]
        except IncompleteBody:
            self.body.failed = True  # where the next request starts is unknown: close
            raise


def socket_body(environ, content_length):
    """A :class:`SocketBody` for this request when it is served by gunicorn, has a
    Content-Length and nothing of its body was read yet; otherwise None."""
    sock = environ.get("gunicorn.socket")
    if sock is None:
        return None
    from gunicorn.http.body import Body, LengthReader

    body = environ.get("wsgi.input")
    if not (
        isinstance(body, Body)
        and isinstance(body.reader, LengthReader)
        and body.buf.tell() == 0
        and hasattr(body.reader.unreader, "take_buffered")
        and body.reader.length == content_length
    ):
        return None
    return SocketBody(sock, body, body.reader)
