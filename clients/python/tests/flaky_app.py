"""A WSGI app for the retry tests: ``/flaky?key=K&fail=N&retry_after=S`` answers 503 (JSON)
N times per key, then 200; every arrival time is appended to the log (one line of JSON)."""

import json
import threading
import time
from urllib.parse import parse_qs


def make_app(log_path):
    counts = {}
    lock = threading.Lock()

    def app(environ, start_response):
        query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        key = f"{environ['REQUEST_METHOD']} {query.get('key', '')}"
        with lock:
            with open(log_path, "a") as log:
                log.write(json.dumps({"key": key, "at": time.time()}) + "\n")
            counts[key] = counts.get(key, 0) + 1
            count = counts[key]
        if count <= int(query.get("fail", 2)):
            headers = [("Content-Type", "application/json")]
            if "retry_after" in query:
                headers.append(("Retry-After", query["retry_after"]))
            start_response("503 Service Unavailable", headers)
            return [b'{"detail": "Service unavailable"}']
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps({"attempts": count}).encode()]

    return app
