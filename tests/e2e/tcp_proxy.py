"""A loopback TCP proxy that can be cut and restored, to take a database away from the
service for a moment without touching the database server itself."""

import socket
import threading


class TcpProxy:
    def __init__(self, target_host, target_port):
        self.target = (target_host, target_port)
        self.port = None
        self._listener = None
        self._connections = set()
        self._silent = set()  # clients forget() left open and unanswered
        self._lock = threading.Lock()

    def up(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port or 0))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self):
        """Refuse new connections and cut every open one."""
        listener, self._listener = self._listener, None
        if listener:
            try:
                listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept() on Linux
            except OSError:
                pass
            listener.close()
        with self._lock:
            connections, self._connections = self._connections | self._silent, set()
            self._silent = set()
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def forget(self):
        """Close every open connection's upstream but leave its client open and never
        answered, as a load balancer or NAT that lost its state does: the client learns
        of it only through its own timeout. New connections are relayed as before."""
        with self._lock:
            connections, self._connections = self._connections, set()
            self._silent |= {conn for conn in connections if conn.getsockname()[1] == self.port}
        for conn in connections - self._silent:
            try:
                conn.shutdown(socket.SHUT_RDWR)  # wakes the thread relaying from it
            except OSError:
                pass

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._connections |= {client, upstream}
            relays = [2]  # the pair's relays still running: the last one closes both
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(src, dst, relays), daemon=True).start()

    def _pipe(self, src, dst, relays):
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in {src, dst} - self._silent:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            with self._lock:
                relays[0] -= 1
                done = relays[0] == 0
                if done:  # closed, not only shut down: thousands of connections pass
                    pair = {src, dst} - self._silent
                    self._connections -= pair
            if done:
                for sock in pair:
                    sock.close()
