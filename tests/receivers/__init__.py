"""Receivers of HTTP requests, each run as a process of its own by the tests."""

import http.server
import os


def serve(handler_class, port_file):
    """Serve ``handler_class`` on a free loopback port, written to ``port_file`` once it
    listens (atomically: a reader never sees half of it), until the process ends."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    with open(port_file + ".tmp", "w") as handle:
        handle.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()
