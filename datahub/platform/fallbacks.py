"""The parts that fall back to local behaviour when the shared store they use is gone,
and say so: a log line and a metric when a process falls back and when it is back.

* ``rate_limits``: the rate limiter's store (Redis, or the host's SQLite file) cannot be
  reached; each process counts in its own memory (datahub.web.ratelimit).
* ``auth_cache``: the auth cache's invalidation channel (Redis pub/sub) is lost; every
  request looks its user up in the database (datahub.identity.invalidation_channel).

``datahub_fallbacks{part}`` counts the falls; ``datahub_fallback_processes{part}`` is the
number of live processes on their fallback now (summed over gunicorn's workers).
"""

import logging
import threading

from prometheus_client import Counter, Gauge

log = logging.getLogger("datahub.fallbacks")

PARTS = ("rate_limits", "auth_cache")
FALLBACKS = Counter(
    "datahub_fallbacks",
    "Times a process fell back to local behaviour, by part (rate_limits: in-memory "
    "counts; auth_cache: a database lookup on every request)",
    ["part"],
)
FALLBACK_PROCESSES = Gauge(
    "datahub_fallback_processes",
    "Processes on their local fallback now, by part",
    ["part"],
    multiprocess_mode="livesum",
)

for _part in PARTS:  # every part's series is there from the start, at 0
    FALLBACKS.labels(part=_part)
    FALLBACK_PROCESSES.labels(part=_part).set(0)

_on_fallback = set()  # this process's parts that are on their fallback
_lock = threading.Lock()


def fell_back(part, why):
    """``part`` lost its store, for ``why`` (logged once, until it is back)."""
    with _lock:
        if part in _on_fallback:
            return
        _on_fallback.add(part)
    FALLBACKS.labels(part=part).inc()
    FALLBACK_PROCESSES.labels(part=part).set(1)
    log.warning("%s: falling back to local behaviour (%s)", part, why)


def recovered(part):
    """``part`` has its store again (logged if it had fallen back)."""
    with _lock:
        if part not in _on_fallback:
            return
        _on_fallback.discard(part)
    FALLBACK_PROCESSES.labels(part=part).set(0)
    log.warning("%s: the store is back; local fallback ended", part)


def on_fallback(part):
    """Whether this process's ``part`` is on its fallback now."""
    return part in _on_fallback
