"""A receiver of HTTP POSTs on loopback, as a process of its own (``python -m
tests.receivers.http_receiver PORT_FILE LOG_FILE [STATUS]``): it listens on a free port,
writes the port to PORT_FILE, and appends every request's path and JSON body to LOG_FILE,
one JSON line each, answering STATUS (200 by default)."""

import http.server
import json
import sys

from tests.receivers import serve


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

    serve(Handler, port_file)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *(int(arg) for arg in sys.argv[3:]))
