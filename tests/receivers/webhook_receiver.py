"""A webhook receiver for the tests, as a process of its own (``python -m
tests.receivers.webhook_receiver PORT_FILE LOG_FILE SECRET_FILE [MODE]``): it listens on a
free loopback port, writes the port to PORT_FILE, verifies each message with the secret
then in SECRET_FILE (the webhook is made once the port is known), and appends one JSON line per request to
LOG_FILE: its ``webhook-id``, whether its signature verified, the status it answered, the
event and the headers. MODE: ``ok`` answers 204; ``flaky`` answers 500 to the first attempt
at every fifth message id; ``fail`` answers 500; ``redirect`` answers 302 to itself;
``slow`` sleeps 10 s before answering; ``slow-first`` does so at each message's first
attempt only."""

import http.server
import json
import sys
import threading
import time

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.receivers import serve


def main(port_file, log_file, secret_file, mode="ok"):
    lock, attempts = threading.Lock(), {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {name.lower(): value for name, value in self.headers.items()}
            try:
                with open(secret_file) as secret:
                    event, verified = Webhook(secret.read().strip()).verify(body, headers), True
            except WebhookVerificationError:
                event, verified = None, False
            message_id = headers.get("webhook-id", "")
            with lock:
                attempts[message_id] = attempts.get(message_id, 0) + 1
                first = attempts[message_id] == 1
            status = 204 if verified else 400
            if mode == "fail" or (mode == "flaky" and first and int(message_id[4:] or 0) % 5 == 0):
                status = 500
            if mode == "slow" or (mode == "slow-first" and first):
                time.sleep(10)
            if mode == "redirect":
                status = 302
            entry = {
                "id": message_id,
                "verified": verified,
                "status": status,
                "event": event,
                "headers": headers,
            }
            with lock, open(log_file, "a") as log:
                log.write(json.dumps(entry) + "\n")
            self.send_response(status)
            if status == 302:
                self.send_header("Location", self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    serve(Handler, port_file)


if __name__ == "__main__":
    main(*sys.argv[1:])
