"""The auth cache's invalidation channel: Redis pub/sub, with a way to know it is live.

Every web process keeps one subscriber connection (a thread of its own, started on first
use, so after gunicorn's fork). The channel is *live* while the subscription has been
acknowledged on the current connection and a PING on it was answered within
``AUTH_CACHE_LIVE_SECONDS``; a new subscription, a broken connection or an overdue answer
empties the cache (messages may have been missed).

The subscriber speaks RESP2 over its own non-blocking socket instead of redis-py's
``PubSub``: the request path drains it before reading the cache, and that must cost one
``poll`` when nothing is pending (``PubSub.get_message`` toggles socket timeouts and is not
safe to share between threads). Publishing uses redis-py.

Ordering: Redis writes a published message to every subscriber's socket before it reads
the publisher's next command, so ``publish`` sends a PING after the PUBLISH: once that is
answered, the message is in every subscriber's socket buffer (on one host, or as far as the
network has carried it), and the next request on any host drains it first.
"""

import logging
import os
import select
import socket
import threading
import time
import weakref
from urllib.parse import unquote, urlsplit

from datahub.platform import fallbacks
from datahub.platform.errors import ConfigurationError

log = logging.getLogger(__name__)

_CHANNELS = weakref.WeakSet()  # reset in a forked child (gunicorn workers)
_MAX_BACKOFF = 5.0


class ChannelError(Exception):
    """Redis answered an error, or something that is not pub/sub."""


def command(*parts):
    """One RESP2 command (an array of bulk strings)."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def parse(buffer, pos=0):
    """``(value, next position)`` of the RESP2 value at ``pos``; None while incomplete."""
    end = buffer.find(b"\r\n", pos)
    if end < 0:
        return None
    kind, line, pos = buffer[pos : pos + 1], bytes(buffer[pos + 1 : end]), end + 2
    if kind == b"+":
        return line.decode(), pos
    if kind == b"-":
        return ChannelError(line.decode(errors="replace")), pos
    if kind == b":":
        return int(line), pos
    if kind == b"$":
        size = int(line)
        if size < 0:
            return None, pos
        if len(buffer) < pos + size + 2:
            return None
        return bytes(buffer[pos : pos + size]), pos + size + 2
    if kind == b"*":
        items = []
        for _ in range(max(int(line), 0)):
            parsed = parse(buffer, pos)
            if parsed is None:
                return None
            item, pos = parsed
            items.append(item)
        return items, pos
    raise ChannelError(f"unexpected reply from Redis: {bytes(buffer[pos : pos + 20])!r}")


def check_url(url):
    parts = urlsplit(url)
    if parts.scheme != "redis" or not parts.hostname:
        raise ConfigurationError("AUTH_CACHE_REDIS_URL must be redis://[user:password@]host[:port]")
    return parts


class RedisChannel:
    """Subscriber and publisher of one channel. ``lock`` guards the subscriber's socket and
    whatever ``on_message`` / ``on_reset`` change (the cache): both run under it."""

    def __init__(self, url, channel, *, on_message, on_reset, ping_seconds, live_seconds, timeout):
        self.parts = check_url(url)
        self.url, self.channel = url, channel
        self.on_message, self.on_reset = on_message, on_reset
        self.ping_seconds, self.live_seconds, self.timeout = ping_seconds, live_seconds, timeout
        self.publisher = None
        self.owed_everything = False  # a publish failed: the next one says "everything"
        self._fresh_state()
        _CHANNELS.add(self)

    def _fresh_state(self):
        self.lock = threading.Lock()
        self.sock = self.poller = None
        self.buffer = bytearray()
        self.subscribed = False
        self.proven_at = float("-inf")  # monotonic time of the last ack or PONG
        self.thread = None
        self.stopping = threading.Event()

    # -- the request path (under ``lock``) ---------------------------------------------

    def live(self):
        """Drain what arrived, then say whether the cache may be used. Caller holds lock."""
        if self.thread is None:
            self.start()
        if self.poller is not None and self.poller.poll(0):
            self._drain()
        return self.subscribed and time.monotonic() - self.proven_at <= self.live_seconds

    def _drain(self):
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    raise ConnectionError("Redis closed the connection")
                self.buffer += data
                self._handle_frames()
                if len(data) < 65536:
                    return
        except BlockingIOError:
            return
        except (OSError, ChannelError, ValueError) as exc:
            log.warning("auth cache: invalidation channel lost (%s); lookups query", exc)
            fallbacks.fell_back("auth_cache", f"invalidation channel lost: {exc}")
            self._close()

    def _handle_frames(self):
        pos = 0
        while (parsed := parse(self.buffer, pos)) is not None:
            frame, pos = parsed
            if isinstance(frame, ChannelError):
                raise frame
            kind = frame[0] if isinstance(frame, list) and frame else frame
            if kind == b"message":
                self.on_message(frame[2].decode())
            elif kind == b"subscribe":
                self.on_reset()  # anything published before this was missed
                self.subscribed, self.proven_at = True, time.monotonic()
                fallbacks.recovered("auth_cache")
            elif kind == b"pong":
                self.proven_at = time.monotonic()
            elif kind != "OK":  # AUTH's answer
                raise ChannelError(f"unexpected frame {frame!r}")
        del self.buffer[:pos]

    def _close(self):
        if self.sock is not None:
            self.sock.close()
        self.sock = self.poller = None
        self.buffer = bytearray()
        self.subscribed = False
        self.on_reset()

    # -- the subscriber thread ---------------------------------------------------------

    def start(self):
        self.thread = threading.Thread(target=self._run, name="auth-cache-subscriber", daemon=True)
        self.thread.start()

    def stop(self):
        self.stopping.set()
        with self.lock:
            self._close()
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(timeout=5)

    def _connect(self):
        sock = socket.create_connection(
            (self.parts.hostname, self.parts.port or 6379), timeout=self.timeout
        )
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        hello = b""
        if self.parts.password is not None:
            auth = ([unquote(self.parts.username)] if self.parts.username else []) + [
                unquote(self.parts.password)
            ]
            hello = command("AUTH", *auth)
        sock.sendall(hello + command("SUBSCRIBE", self.channel))
        sock.setblocking(False)
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        with self.lock:
            # The acknowledgement must come as soon as a PONG would (not yet live: that
            # takes the acknowledgement itself).
            self.sock, self.poller, self.proven_at = sock, poller, time.monotonic()
        waiter = select.poll()  # the thread's own: two threads may not share one poll()
        waiter.register(sock, select.POLLIN)
        return sock, waiter

    def _run(self):
        backoff = 0.1
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                sock, waiter = self._connect()
                self._serve(sock, waiter)
            except (OSError, ChannelError) as exc:
                log.warning(
                    "auth cache: cannot subscribe to %s (%s); lookups query", self.channel, exc
                )
                if not self.stopping.is_set():
                    fallbacks.fell_back("auth_cache", f"cannot subscribe: {exc}")
            with self.lock:
                if self.sock is not None:
                    self._close()
            # Back to a quick retry only after a subscription that held: one refused
            # after connecting (a wrong password, say) keeps backing off.
            if time.monotonic() - started > _MAX_BACKOFF:
                backoff = 0.1
            self.stopping.wait(backoff)
            backoff = min(backoff * 2, _MAX_BACKOFF)

    def _serve(self, sock, waiter):
        next_ping = time.monotonic() + self.ping_seconds
        while not self.stopping.is_set():
            waiter.poll(max(next_ping - time.monotonic(), 0) * 1000)
            with self.lock:
                if self.sock is not sock:  # closed meanwhile (by a request, or stop)
                    return
                self._drain()
                if self.sock is not sock:
                    return
                now = time.monotonic()
                if now - self.proven_at > self.live_seconds:
                    raise ChannelError("no answer to PING in time")
                if now >= next_ping:
                    sock.send(command("PING"))
                    next_ping = now + self.ping_seconds
            if self.owed_everything and self.subscribed:
                self.publish({"*"})

    # -- publishing --------------------------------------------------------------------

    def publish(self, names):
        """Send ``names`` to every subscriber; False (and this process's cache off until it
        subscribes again) when Redis cannot be reached."""
        # Imported here: only a process with a channel publishes, and redis-py is about a
        # tenth of every other process's start (gunicorn's master, a worker, a command).
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        payload = "*" if self.owed_everything or "*" in names else " ".join(sorted(names))
        try:
            if self.publisher is None:
                self.publisher = redis.Redis.from_url(
                    self.url,
                    socket_timeout=self.timeout,
                    socket_connect_timeout=self.timeout,
                    retry=Retry(NoBackoff(), 1),
                )
            self.publisher.publish(self.channel, payload)
            self.publisher.ping()  # see the module's docstring: the message is delivered
        except (redis.RedisError, OSError) as exc:
            # Other hosts may keep the changed answers until this process has sent "*"
            # (once Redis answers it again) or the TTL ends them.
            self.owed_everything = True
            log.error(
                "auth cache: cannot publish an invalidation (%s); lookups query "
                "until the channel is back",
                exc,
            )
            with self.lock:
                if self.sock is not None:
                    self._close()
                else:
                    self.on_reset()
            return False
        if payload == "*":  # not after a payload built before another thread's failure
            self.owed_everything = False
        return True


def _after_fork_in_child():
    """A forked child has none of the parent's threads: each channel starts over (its own
    lock, no socket, an empty cache; the subscriber starts on first use)."""
    for channel in list(_CHANNELS):
        channel.publisher = None
        if channel.sock is not None:  # the parent's subscription: not this process's
            try:
                channel.sock.close()
            except OSError:
                pass
        channel._fresh_state()
        channel.on_reset()


os.register_at_fork(after_in_child=_after_fork_in_child)
