"""Schemas and profiles of versions, as the worker recorded them (datahub.datasets.profiles
.profiler), and what is made of them: a dataset's ``schema``, a Frictionless Data Package,
the drift between two versions."""

import sqlalchemy as sa
from flask import g
from sqlalchemy.dialects import postgresql, sqlite

from datahub.app.extensions import db
from datahub.datasets.profiles.errors import VersionHasNoSchema
from datahub.datasets.profiles.models import ContentProfile
from datahub.platform.database import utcnow

PENDING = {"status": "pending"}


def request_profile(version):
    """In the transaction that adds ``version``: its content is to be read by a worker,
    unless it is not a table or its bytes were read before (identical bytes share one
    profile)."""
    if version.format is None:
        return
    dialect = db.session.get_bind().dialect.name
    insert = (postgresql if dialect == "postgresql" else sqlite).insert(ContentProfile)
    db.session.execute(
        insert.values(
            sha256=version.sha256,
            size_bytes=version.size_bytes,
            status="pending",
            backfill=False,
            requested_at=utcnow(),
            attempts=0,
        ).on_conflict_do_nothing(index_elements=["sha256", "size_bytes"])
    )


def content_of(version):
    """The :class:`ContentProfile` of a version's bytes, or None."""
    return db.session.get(ContentProfile, (version.sha256, version.size_bytes))


def schema_of(version):
    """``{"columns", "rows"}``, or ``PENDING`` while a worker has not read it;
    :class:`VersionHasNoSchema` when the file is not a table (or could not be read)."""
    row = content_of(version)
    if row is None:
        if version.format is None:
            raise VersionHasNoSchema()
        return PENDING  # a version from before profiles, not backfilled yet
    if row.status == "pending":
        return PENDING
    if row.status == "failed" or row.schema is None:
        raise VersionHasNoSchema()
    return row.schema


def profile_of(version):
    """``{"status": "pending"}``, ``{"status": "ready", ...}`` or ``{"status": "failed",
    "error"}``."""
    row = content_of(version)
    if row is None:
        if version.format is None:
            return {"status": "failed", "error": NOT_A_TABLE}
        return PENDING
    if row.status == "pending":
        return PENDING
    if row.status == "failed":
        return {"status": "failed", "error": row.error}
    return {"status": "ready", "computed_at": row.computed_at, **row.profile}


NOT_A_TABLE = "The file is not a table (CSV, Parquet or JSON lines)"


def know_schemas(datasets):
    """Read the current schemas of a page of datasets together (one query)."""
    known = _known()
    wanted = {
        (dataset.file_sha256, dataset.file_size)
        for dataset in datasets
        if dataset.file_sha256 is not None and (dataset.file_sha256, dataset.file_size) not in known
    }
    if not wanted:
        return
    for key in wanted:
        known[key] = None
    rows = db.session.execute(
        sa.select(ContentProfile.sha256, ContentProfile.size_bytes, ContentProfile.schema).where(
            ContentProfile.status == "ready",
            ContentProfile.sha256.in_({sha for sha, _size in wanted}),
        )
    )
    for sha256, size, schema in rows:
        if (sha256, size) in wanted:
            known[(sha256, size)] = schema


def current_schema(dataset):
    """The dataset's current version's ``{"columns", "rows"}``, or None (no file yet, not
    a table, or not read yet)."""
    if dataset.file_sha256 is None:
        return None
    know_schemas([dataset])
    return _known()[(dataset.file_sha256, dataset.file_size)]


def _known():
    if "current_schemas" not in g:
        g.current_schemas = {}
    return g.current_schemas
