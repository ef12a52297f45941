"""Operations: health and readiness probes, and the Prometheus metrics (request ids:
``datahub.web.request_ids``; the counters: ``datahub.web.metrics`` and
``datahub.platform.metrics``)."""

import logging

import sqlalchemy as sa
from flask import Blueprint, Response, current_app, request
from prometheus_client.core import GaugeMetricFamily

from datahub.app.extensions import db
from datahub.datasets.models import DatasetVersion
from datahub.pipelines.models import Run
from datahub.platform import fallbacks
from datahub.platform.metrics import exposition
from datahub.web.errors import NotFound, ServiceUnavailable
from datahub.web.metrics import allowed

log = logging.getLogger("datahub.ops")
blp = Blueprint("ops", __name__)


@blp.get("/healthz")
def healthz():
    """The process is alive (no dependency is checked)."""
    return {"status": "ok"}


@blp.get("/readyz")
def readyz():
    """The service can answer requests: the database is reachable. Also says, for this
    process, whether the rate limits are counted in the shared store (``ok``) or in its
    own memory (``local``), and, with the auth cache on, whether it is used (``ok``) or
    every request queries (``querying``): both still answer, so both are ready."""
    try:
        db.session.execute(sa.text("SELECT 1"))
    except sa.exc.SQLAlchemyError as exc:
        db.session.rollback()
        raise ServiceUnavailable("Database unavailable") from exc
    ready = {"status": "ok", "database": "ok"}
    ready["rate_limits"] = "local" if fallbacks.on_fallback("rate_limits") else "ok"
    if current_app.config.get("AUTH_CACHE_REDIS_URL"):
        ready["auth_cache"] = "querying" if fallbacks.on_fallback("auth_cache") else "ok"
    return ready


@blp.get("/metrics")
def metrics():
    """Prometheus metrics, for clients in METRICS_ALLOWED_NETWORKS only (not in the OpenAPI
    document); anyone else gets the 404 of an unknown path."""
    if not allowed(request.remote_addr):
        raise NotFound()
    body, content_type = exposition(database_gauges())
    return Response(body, content_type=content_type, headers={"Cache-Control": "no-store"})


def database_gauges():
    """Read at scrape time, so every host answers the same: runs waiting for a worker and
    bytes stored. An unreachable database leaves them out rather than failing the scrape."""
    try:
        queued = db.session.scalar(
            sa.select(sa.func.count()).select_from(Run).where(Run.status == "queued")
        )
        objects = (
            sa.select(sa.func.max(DatasetVersion.size_bytes).label("size"))
            .group_by(DatasetVersion.file_key)
            .subquery()
        )
        stored = db.session.scalar(sa.select(sa.func.coalesce(sa.func.sum(objects.c.size), 0)))
    except sa.exc.SQLAlchemyError as exc:
        db.session.rollback()
        log.warning("metrics: the database gauges are left out: %s", exc)
        return []
    return [
        GaugeMetricFamily(
            "datahub_runs_queued", "Pipeline runs waiting for a worker", value=queued
        ),
        GaugeMetricFamily(
            "datahub_storage_bytes",
            "Bytes of the stored dataset files (every kept version's object, once)",
            value=int(stored or 0),
        ),
    ]
