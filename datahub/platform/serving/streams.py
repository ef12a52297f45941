"""Long-lived response streams (Server-Sent Events) held by one event-loop thread per
worker process instead of a request thread each (docs/contributing/internals.rst,
"Event streams").

A view answers the stream's first bytes as any response; :func:`hand_off` then takes its
connection from gunicorn's request thread (which goes on to the next request) and gives
it to the process's :class:`StreamHub`. The hub's one thread waits on every open stream
with a selector and, every ``poll`` seconds, asks its ``feed`` what each stream is sent
next. A client that closed, or that reads so slowly that ``max_buffered`` bytes wait for
it, is dropped (an event stream's client resumes from its last id). ``heartbeat`` seconds
without anything sent, a comment line goes out: proxies keep the connection, and a client
that vanished without closing is noticed.

Only under the project's gunicorn worker (datahub.platform.serving.gunicorn_worker): there
:func:`can_hand_off` is true. Elsewhere (the Flask test client, ``flask run``) a view
streams from its request thread instead.
"""

import contextlib
import logging
import os
import select
import selectors
import socket
import threading
import time

log = logging.getLogger("datahub.streams")

MAX_BUFFERED = 1024 * 1024  # bytes waiting for one slow client before it is dropped


def can_hand_off(environ):
    """Whether this request's connection can be given to a :class:`StreamHub`."""
    return hasattr(environ.get("gunicorn.socket"), "handed_off")


def hand_off(environ):
    """Take this request's connection from gunicorn: its later writes are dropped, its
    close releases only its own descriptor. Returns a socket of our own for the same
    connection. Call it once the response's first bytes were written."""
    from datahub.platform.serving.gunicorn_worker import close_connection

    theirs = environ["gunicorn.socket"]
    ours = socket.socket(theirs.family, theirs.type, theirs.proto, fileno=os.dup(theirs.fileno()))
    theirs.handed_off = True
    close_connection(environ)  # never kept alive for another request
    return ours


class Stream:
    """One open stream: its socket, what waits to be sent, and the feed's ``subscriber``
    (whatever the feed needs to know what this stream is sent)."""

    __slots__ = ("sock", "subscriber", "chunked", "pending", "last_write", "closed")

    def __init__(self, sock, subscriber, chunked):
        self.sock, self.subscriber, self.chunked = sock, subscriber, chunked
        self.pending = bytearray()
        self.last_write = time.monotonic()
        self.closed = False


def frame(data, chunked):
    """``data`` as it goes on the wire: an HTTP/1.1 chunk, or as is (HTTP/1.0)."""
    return b"%x\r\n%s\r\n" % (len(data), data) if chunked else data


class StreamHub:
    """Holds many open streams on one daemon thread. ``feed(subscribers)`` runs on that
    thread every ``poll`` seconds while streams are open; it answers
    ``(sends, ended)``: dicts from subscriber to the bytes it is sent, and to the last
    bytes of the streams that end now."""

    def __init__(self, feed, poll=0.25, heartbeat=15.0, max_buffered=MAX_BUFFERED):
        self.feed, self.poll, self.heartbeat = feed, poll, heartbeat
        self.max_buffered = max_buffered
        self.streams = set()  # changed by the hub's thread only, under ``lock``
        self.adopted = []  # (Stream) handed over by request threads, under ``lock``
        self.reserved = set()  # subscribers whose streams are being answered, under ``lock``
        self.lock = threading.Lock()
        self.selector = selectors.DefaultSelector()
        self.wake_reader, self.wake_writer = socket.socketpair()
        self.wake_reader.setblocking(False)
        self.wake_writer.setblocking(False)
        self.selector.register(self.wake_reader, selectors.EVENT_READ, None)
        self.stopping = False  # close() was called
        self.stopped = False  # the thread has left its loop, under ``lock``
        self.quiet_until = 0.0  # no feed failure is logged before (time.monotonic())
        self.thread = threading.Thread(target=self._run, name="event-streams", daemon=True)
        self.thread.start()
        _HUBS.append(self)

    def reserve(self, subscriber, allowed):
        """Hold a place for ``subscriber``'s stream, to be handed over with :meth:`adopt`
        (or given back with :meth:`release`), if ``allowed(subscribers)`` is true of the
        subscribers of the streams open or held now; thread-safe. Whether it was held."""
        with self.lock:
            held = [s.subscriber for s in self.streams if not s.closed]
            held += [s.subscriber for s in self.adopted] + list(self.reserved)
            if not allowed(held):
                return False
            self.reserved.add(subscriber)
            return True

    def release(self, subscriber):
        """Give back a place held for a stream that was never handed over."""
        with self.lock:
            self.reserved.discard(subscriber)

    def adopt(self, sock, subscriber, chunked=True):
        """Hold ``sock`` (from :func:`hand_off`) from now on; thread-safe."""
        with self.lock:
            self.reserved.discard(subscriber)
            if not self.stopped:
                sock.setblocking(False)
                self.adopted.append(Stream(sock, subscriber, chunked))
                self._wake()
                return
        # The hub has ended (a graceful stop while this stream was being answered): end it
        # here, as the hub would have.
        with contextlib.suppress(OSError):
            sock.settimeout(1)
            if chunked:
                sock.sendall(frame(b"", True))
        sock.close()

    def close(self):
        """End every stream (the last chunk, then the connection); the thread stops."""
        self.stopping = True
        self._wake()
        self.thread.join(timeout=5)

    def _wake(self):
        try:
            self.wake_writer.send(b"1")
        except OSError:
            pass  # its buffer is full: the hub is awake already

    # -- the hub's thread ----------------------------------------------------------------

    def _run(self):
        next_poll = time.monotonic()
        while not self.stopping:
            self._take_adopted()
            now = time.monotonic()
            timeout = max(0.0, next_poll - now) if self.streams else None
            for key, events in self.selector.select(timeout):
                if key.data is None:
                    self._drain_wakeups()
                elif events & selectors.EVENT_READ:
                    self._read(key.data)
                elif events & selectors.EVENT_WRITE:
                    self._flush(key.data)
            now = time.monotonic()
            if self.streams and now >= next_poll:
                next_poll = now + self.poll
                self._feed()
                self._heartbeats(now)
        with self.lock:  # from now on adopt() ends a stream itself
            self.stopped = True
        self._take_adopted()  # handed over before the stop, not taken yet
        for stream in list(self.streams):
            self._end(stream, b"")

    def _drain_wakeups(self):
        try:
            while self.wake_reader.recv(4096):
                pass
        except OSError:
            pass

    def _take_adopted(self):
        with self.lock:
            adopted, self.adopted = self.adopted, []
            self.streams.update(adopted)
        for stream in adopted:
            self.selector.register(stream.sock, selectors.EVENT_READ, stream)

    def _feed(self):
        try:
            sends, ended = self.feed([s.subscriber for s in self.streams])
        except Exception:
            if time.monotonic() >= self.quiet_until:  # a database down: once a minute
                self.quiet_until = time.monotonic() + 60
                log.exception("event streams: the feed failed; trying again")
            return
        for stream in list(self.streams):
            data = sends.get(stream.subscriber)
            if data:
                self._send(stream, frame(data, stream.chunked))
            last = ended.get(stream.subscriber)
            if last is not None:
                self._end(stream, last)

    def _end(self, stream, last):
        """Send ``last`` and the chunked body's end, then close: sent at once or never
        (the socket is not waited for)."""
        if last:
            self._send(stream, frame(last, stream.chunked))
        if stream.chunked:
            self._send(stream, frame(b"", True))
        self._drop(stream)

    def _heartbeats(self, now):
        for stream in list(self.streams):
            if now - stream.last_write >= self.heartbeat:
                self._send(stream, frame(b": heartbeat\n\n", stream.chunked))

    def _read(self, stream):
        """A stream's client sends nothing more; readable means it closed (or broke the
        protocol): the stream ends."""
        try:
            data = stream.sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(stream)
        # Anything else (a pipelined request) is ignored: this connection only streams.

    def _send(self, stream, data):
        if stream.closed:
            return
        stream.pending += data
        stream.last_write = time.monotonic()
        self._flush(stream)

    def _flush(self, stream):
        try:
            while stream.pending:
                sent = stream.sock.send(stream.pending)
                del stream.pending[:sent]
        except BlockingIOError:
            if len(stream.pending) > self.max_buffered:
                log.info("event stream dropped: its client reads too slowly")
                self._drop(stream)
                return
        except OSError:
            self._drop(stream)
            return
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if stream.pending else 0)
        self.selector.modify(stream.sock, events, stream)

    def _drop(self, stream):
        if stream.closed:
            return
        stream.closed = True
        with self.lock:
            self.streams.discard(stream)
        try:
            self.selector.unregister(stream.sock)
        except (KeyError, ValueError):
            pass
        stream.sock.close()


_HUBS = []


def close_all():
    """End every open stream of this process (a worker's graceful stop)."""
    for hub in _HUBS:
        hub.close()


_HUNG_UP = select.POLLHUP | select.POLLERR | getattr(select, "POLLRDHUP", 0)


def client_gone(environ):
    """Whether this request's client has closed its connection (or reset it) while the
    answer is being made; False where it cannot be known (another server, no socket)."""
    sock = environ.get("gunicorn.socket")
    if sock is None:
        return False
    try:
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN | _HUNG_UP)
        return any(events & _HUNG_UP for _, events in poller.poll(0))
    except (OSError, ValueError):
        return True  # closed under us
