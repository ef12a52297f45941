"""Receive datahub's webhooks: check each message's signature, then handle each event once.

    pip install standardwebhooks
    WEBHOOK_SECRET=whsec_... python webhook_receiver.py 8080

It prints one line per event: its type and what it is about. Answer 2xx quickly: datahub
waits at most 5 seconds, and retries what failed.
"""

import http.server
import os
import sys
import threading

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

verifier = Webhook(os.environ["WEBHOOK_SECRET"])
handled = set()  # message ids: a message may arrive more than once
handling = threading.Lock()  # messages arrive several at once, each on a thread of its own


def handle(event):
    print(event["type"], event["source"], flush=True)


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            # Checks webhook-signature against the secret, and that webhook-timestamp is
            # within 5 minutes of now (a replayed old message is refused).
            event = verifier.verify(body, dict(self.headers))
        except WebhookVerificationError:
            self.send_response(400)
            self.end_headers()
            return
        message_id = self.headers["webhook-id"]
        with handling:  # one at a time: a repeat is seen as one, and lines never mix
            if message_id not in handled:
                handled.add(message_id)
                handle(event)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):  # no access log on stderr
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Receiver).serve_forever()
