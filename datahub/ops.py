"""Operations: health and readiness probes, request ids and response headers."""
import re
import uuid

import sqlalchemy as sa
from flask import Blueprint, g, request

from datahub.errors import ServiceUnavailable
from datahub.extensions import db

blp = Blueprint("ops", __name__)

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


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


def _assign_request_id():
    incoming = request.headers.get("X-Request-ID", "")
    g.request_id = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex


def _add_headers(response):
    response.headers["X-Request-ID"] = g.get("request_id") or uuid.uuid4().hex
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def register_request_hooks(app):
    app.before_request(_assign_request_id)
    app.after_request(_add_headers)
