"""What the person who started the server reads last: the first admin's password (shown
once) and the address to open, told once the server answers, below gunicorn's start-up
lines, not among them."""

import http.client
import threading
import time

READY_PATH = "/readyz"
WILDCARDS = {"0.0.0.0", "::", ""}
LOOPBACKS = {"127.0.0.1", "::1", "localhost"}


def address_of(bind):
    """``(host to ask, host to show, port)`` of a gunicorn ``bind`` (``host:port``,
    ``[v6]:port``); None for a Unix socket or a file descriptor."""
    if bind.startswith(("unix:", "fd://")) or ":" not in bind:
        return None
    host, _, port = bind.rpartition(":")
    host = host.strip("[]")
    if not port.isdigit():
        return None
    asked = "127.0.0.1" if host in WILDCARDS else host
    # Browsers treat localhost as secure: the refresh cookie (Secure) works over http there.
    shown = "localhost" if host in WILDCARDS | LOOPBACKS else host
    return asked, shown, int(port)


def app_url(bind):
    """The web app's address on ``bind``, or None."""
    address = address_of(bind)
    if address is None:
        return None
    _, shown, port = address
    return f"http://{shown if ':' not in shown else f'[{shown}]'}:{port}/app/"


def _answers(host, port, timeout=2.0):
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", READY_PATH)
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


class Announcement:
    """Tells ``lines`` once: when ``bind`` first answers ``/readyz`` (from a thread), or
    at the latest when :meth:`tell_now` is called (the server stops, or ``patience``
    seconds pass), so that a password shown only once is never lost."""

    def __init__(self, bind, lines, tell, patience=120.0, settled=lambda: True):
        url = app_url(bind)
        self.lines, self.ready_line = list(lines), url and f"datahub: ready; open {url}"
        self.address, self.tell, self.patience = address_of(bind), tell, patience
        # Asked before each look: the master has forked its workers (a fork while this
        # thread writes could copy a held lock into the child).
        self.settled = settled
        self.lock, self.told = threading.Lock(), False

    def start(self):
        if self.address is None:
            self.tell_now()
            return self
        threading.Thread(target=self._wait, daemon=True, name="datahub-announce").start()
        return self

    def _wait(self):
        host, _, port = self.address
        deadline = time.monotonic() + self.patience
        while time.monotonic() < deadline and not self.told:
            if self.settled() and _answers(host, port):
                time.sleep(0.3)  # the worker logs the look after answering it: below that
                self.tell_now(ready=True)
                return
            time.sleep(0.2)
        self.tell_now()

    def tell_now(self, ready=False):
        """Tell the lines (and, ``ready``, where to go), unless they were told."""
        with self.lock:
            if self.told:
                return
            self.told = True
        lines = [*self.lines, *([self.ready_line] if ready and self.ready_line else [])]
        if lines:
            self.tell(lines)
