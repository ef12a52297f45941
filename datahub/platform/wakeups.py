"""Wake the worker processes of this host when a run is queued, so that a run starts at
once instead of at the next poll (``PIPELINE_POLL_SECONDS``). Each idle worker slot binds
a Unix datagram socket in ``<instance>/wakeups/``; queuing a run sends one byte to each.
Best effort: a worker on another host, or a lost datagram, waits for the poll."""

import os
import select
import socket
import tempfile

FOLDER = "wakeups"


def _folder(instance_path):
    return os.path.join(instance_path, FOLDER)


def notify(instance_path):
    """Wake every listening worker of this host; never raises."""
    if not hasattr(socket, "AF_UNIX"):
        return
    folder = _folder(instance_path)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sender:
        sender.setblocking(False)
        for name in names:
            path = os.path.join(folder, name)
            try:
                sender.sendto(b"1", path)
            except (ConnectionRefusedError, FileNotFoundError):
                _unlink(path)  # its worker is gone
            except OSError:
                pass  # its queue is full: it is awake already


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


class Listener:
    """A socket that ``notify`` writes to; ``wait(timeout)`` returns when woken or after
    ``timeout`` seconds. Where it cannot be bound (no Unix sockets, a path too long), it
    only sleeps."""

    def __init__(self, instance_path):
        self.instance_path = instance_path
        self.sock = self.path = None

    def __enter__(self):
        if not hasattr(socket, "AF_UNIX"):
            return self
        folder = _folder(self.instance_path)
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            path = tempfile.mktemp(prefix=f"{os.getpid()}-", suffix=".sock", dir=folder)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            try:
                sock.bind(path)
            except OSError:
                sock.close()
                raise
        except OSError:
            return self
        sock.setblocking(False)
        self.sock, self.path = sock, path
        return self

    def __exit__(self, *exc):
        if self.sock is not None:
            self.sock.close()
            _unlink(self.path)

    def wait(self, timeout):
        if self.sock is None:
            select.select([], [], [], timeout)
            return
        ready, _, _ = select.select([self.sock], [], [], timeout)
        if ready:
            try:
                while self.sock.recv(64):
                    pass
            except BlockingIOError:
                pass
