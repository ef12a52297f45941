"""Prometheus counters of what happens off the request path (pipeline runs, logins, the
workers' search values and profiles), and the exposition of every metric, which
``GET /metrics`` (datahub.ops) serves. The HTTP requests' own counters are
datahub.web.metrics'.

Counters and histograms are kept by prometheus_client: in this process (its default
registry), or under gunicorn in its multiprocess mode, where every process of the server
(web workers, and the pipeline worker it supervises) writes its counts to files in
``PROMETHEUS_MULTIPROC_DIR`` (set by gunicorn.conf.py before anything imports
prometheus_client) and a scrape sums them, those of exited workers included.
"""

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
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
