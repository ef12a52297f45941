"""Operations: health and readiness probes (request ids: ``datahub.request_ids``)."""
import sqlalchemy as sa
from flask import Blueprint

from datahub.errors import ServiceUnavailable
from datahub.extensions import db

blp = Blueprint("ops", __name__)


@blp.get("/healthz")
def healthz():
    """The process is alive (no dependency is checked)."""
    return {"status": "ok"}


@blp.get("/readyz")
def readyz():
    """The service can answer requests: the database is reachable."""
    try:
        db.session.execute(sa.text("SELECT 1"))
    except sa.exc.SQLAlchemyError as exc:
        db.session.rollback()
        raise ServiceUnavailable("Database unavailable") from exc
    return {"status": "ok", "database": "ok"}

