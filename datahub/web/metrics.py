"""Prometheus metrics of the HTTP requests, and who may read ``GET /metrics``, which
datahub.ops serves (with the gauges it reads from the database) to clients in
``METRICS_ALLOWED_NETWORKS``. The counters of what happens off the request path, and
the exposition of them all, are datahub.platform.metrics' (where multiprocess mode is
described).
"""

import ipaddress
import time

from flask import current_app, request, request_finished, request_started
from prometheus_client import Counter, Histogram

HTTP_REQUESTS = Counter(
    "datahub_http_requests",
    "HTTP requests answered, by method, URL rule and status",
    ["method", "route", "status"],
)
HTTP_DURATION = Histogram(
    "datahub_http_request_duration_seconds",
    "Time to answer an HTTP request (until the response is handed to the server), by URL rule",
    ["route"],
)
UNMATCHED = "unmatched"  # the route of a path no URL rule matches
# Any other method (Werkzeug accepts any token) is "other": the label's values stay few.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_START = "datahub.metrics.start"


def init_app(app):
    """Time and count every request the app answers (``/metrics`` is datahub.ops')."""
    request_started.connect(_started, app)
    request_finished.connect(_finished, app)


def _started(sender, **extra):
    request.environ[_START] = time.perf_counter()


# (method, route, status) → that counter and the route's histogram: a dict lookup per
# request instead of two ``labels()`` calls (a few µs). Bounded as the labels are.
_children = {}


def _finished(sender, response, **extra):
    started = request.environ.get(_START)
    rule = request.url_rule
    key = (
        request.method if request.method in METHODS else "other",
        rule.rule if rule is not None else UNMATCHED,
        response.status_code,
    )
    children = _children.get(key)
    if children is None:
        method, route, status = key
        children = _children[key] = (
            HTTP_REQUESTS.labels(method, route, str(status)),
            HTTP_DURATION.labels(route),
        )
    children[0].inc()
    if started is not None:
        children[1].observe(time.perf_counter() - started)


def allowed(address):
    """Whether ``address`` (the client's, after ProxyFix) is in METRICS_ALLOWED_NETWORKS."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d on a dual-stack bind
        ip = ip.ipv4_mapped
    return any(ip in network for network in current_app.config["METRICS_ALLOWED_NETWORKS"])
