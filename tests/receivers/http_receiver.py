"""A receiver of HTTP POSTs on loopback, as a process of its own (``python -m
tests.receivers.http_receiver PORT_FILE LOG_FILE [STATUS]``): it listens on a free port,
writes the port to PORT_FILE, and appends every request's path and JSON body to LOG_FILE,
one JSON line each, answering STATUS (200 by default)."""

import http.server
import json
import sys


def main(port_file, log_file, status=200):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with open(log_file, "a") as log:
                entry = {"path": self.path, "body": json.loads(body or b"null")}
                log.write(json.dumps(entry) + "\n")
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as handle:
        handle.write(str(server.server_address[1]))
    import os

    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *(int(arg) for arg in sys.argv[3:]))
