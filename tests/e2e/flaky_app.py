"""A WSGI app for client tests: ``/flaky?key=K&fail=N&retry_after=S`` answers 503 (JSON)
N times per key, then 200; every arrival time is appended to FLAKY_LOG (one worker)."""
import json
import os
import time
from urllib.parse import parse_qs

_counts = {}


def app(environ, start_response):
    query = {k: v[0] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
    key = f"{environ['REQUEST_METHOD']} {query.get('key', '')}"
    with open(os.environ["FLAKY_LOG"], "a") as log:
        log.write(json.dumps({"key": key, "at": time.time()}) + "\n")
    _counts[key] = _counts.get(key, 0) + 1
    if _counts[key] <= int(query.get("fail", 2)):
        headers = [("Content-Type", "application/json")]
        if "retry_after" in query:
            headers.append(("Retry-After", query["retry_after"]))
        start_response("503 Service Unavailable", headers)
        return [b'{"detail": "Service unavailable"}']
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps({"attempts": _counts[key]}).encode()]
