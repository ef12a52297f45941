"""Prometheus metrics for operators, served at ``GET /metrics`` by datahub.ops (which
adds the gauges it reads from the database) to clients in ``METRICS_ALLOWED_NETWORKS``.

Counters and histograms are kept by prometheus_client: in this process (its default
registry), or under gunicorn in its multiprocess mode, where every process of the server
(web workers, and the pipeline worker it supervises) writes its counts to files in
``PROMETHEUS_MULTIPROC_DIR`` (set by gunicorn.conf.py before anything imports
prometheus_client) and a scrape sums them, those of exited workers included.
"""

import ipaddress
import os
import time

from flask import current_app, request, request_finished, request_started
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

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
RUNS = Counter("datahub_runs", "Pipeline runs finished, by final status", ["status"])
RUN_DURATION = Histogram(
    "datahub_run_duration_seconds",
    "Duration of finished pipeline runs",
    buckets=(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, float("inf")),
)
LOGINS = Counter(
    "datahub_logins",
    "Login attempts, by provider (local, ldap, oidc; password: refused "
    "before the provider was known) and result",
    ["provider", "result"],
)
SEARCH_VALUES = Counter(
    "datahub_search_values",
    "Datasets' values read for the search index, by outcome (indexed, not_tabular, "
    "failed: recorded without columns; retry: the file could not be fetched)",
    ["outcome"],
)
PROFILES = Counter(
    "datahub_profiles",
    "Contents (versions' bytes) profiled by the workers, by outcome (ready, failed; "
    "retry: the file could not be fetched)",
    ["outcome"],
)

UNMATCHED = "unmatched"  # the route of a path no URL rule matches
# Any other method (Werkzeug accepts any token) is "other": the label's values stay few.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_START = "datahub.metrics.start"


def observe_run(status, seconds):
    """Count a finished pipeline run: its final status (``succeeded``, ``failed``,
    ``cancelled``) and how long it ran. Called by the run executor."""
    RUNS.labels(status=str(status)).inc()
    RUN_DURATION.observe(max(float(seconds), 0.0))


def count_login(provider, result):
    """Count a login attempt: ``result`` is success, failure, rate_limited or unavailable."""
    LOGINS.labels(provider=provider or "local", result=result).inc()


def count_search_values(outcome):
    """Count a dataset version's values read for the search index (datahub.search.values)."""
    SEARCH_VALUES.labels(outcome=outcome).inc()


def count_profile(outcome):
    """Count a content profiled (datahub.datasets.profiles.profiler)."""
    PROFILES.labels(outcome=outcome).inc()


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


class _Collected:
    """Families from elsewhere, handed to a registry (prometheus_client's custom collector)."""

    def __init__(self, source):
        self.source = source

    def collect(self):
        return self.source() if callable(self.source) else iter(self.source)


def exposition(extra=()):
    """Every counter and histogram, and the ``extra`` metric families (read by the caller
    at scrape time), in Prometheus' text format: (body, content type)."""
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(_Collected(REGISTRY.collect))
    registry.register(_Collected(extra))
    return generate_latest(registry), CONTENT_TYPE_LATEST
