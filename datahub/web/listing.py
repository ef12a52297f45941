"""List endpoints: ``limit``/``offset`` paging, the envelope, and the shared filters (the
queries themselves are the features' services')."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.web.validation import Length, OneOf, Range, Schema, fields, label_field

MAX_LIMIT = 100
DEFAULT_LIMIT = 20
MAX_OFFSET = 2**31 - 1  # beyond any table here; keeps the value inside every SQL integer
# A named list's orders: a field, ascending, or descending with a leading "-".
SORTS = ("name", "-name", "created_at", "-created_at", "updated_at", "-updated_at")


class ListArgsSchema(Schema):
    """Query parameters every list takes."""

    limit = fields.Integer(
        load_default=DEFAULT_LIMIT,
        validate=Range(min=1, max=MAX_LIMIT),
        metadata={"description": "Page size, 1 to 100"},
    )
    offset = fields.Integer(
        load_default=0,
        validate=Range(min=0, max=MAX_OFFSET),
        metadata={"description": "Items to skip"},
    )


class NamedListArgsSchema(ListArgsSchema):
    q = label_field(Length(max=255), "Only items whose name contains this (case-insensitive)")
    owner = label_field(
        Length(min=1, max=36), "Only items owned by this user id (`me`: the caller)"
    )
    sort = fields.String(
        validate=OneOf(SORTS),
        metadata={
            "description": "The order: `name` (case-insensitive), `created_at` or "
            "`updated_at`, descending with a leading `-`; ties by id, in the same "
            "direction. Without: by id, oldest first"
        },
    )


def page_schema(item_schema, name):
    """The envelope ``{"items", "total", "limit", "offset"}`` around ``item_schema``."""
    return Schema.from_dict(
        {
            "items": fields.List(fields.Nested(item_schema), required=True),
            "total": fields.Integer(required=True),
            "limit": fields.Integer(required=True),
            "offset": fields.Integer(required=True),
        },
        name=name,
    )


# Kept by database triggers (migration 0005): the number of rows of the tables listed
# most, so that an unfiltered list reads its ``total`` instead of counting the table.
row_counts = sa.Table(
    "row_counts",
    db.metadata,
    sa.Column("table_name", sa.String(64), primary_key=True),
    sa.Column("row_count", sa.BigInteger, nullable=False),
)
COUNTED_TABLES = frozenset({"datasets", "collections", "pipelines"})


def _count(select):
    froms = select.get_final_froms()
    if (
        select.whereclause is None
        and len(froms) == 1
        and getattr(froms[0], "name", None) in COUNTED_TABLES
    ):
        kept = kept_count(froms[0].name)
        if kept is not None:
            return kept
    return db.session.scalar(
        sa.select(sa.func.count()).select_from(select.order_by(None).subquery())
    )


def kept_count_query(table_name):
    return sa.select(row_counts.c.row_count).where(row_counts.c.table_name == table_name)


def kept_count(table_name):
    """The kept number of rows of one of ``COUNTED_TABLES`` (None if not kept)."""
    return db.session.scalar(kept_count_query(table_name))


def paginate(select, args, total=None):
    """One page of ``select`` (filtered and ordered by the feature's service): the envelope,
    as a dict. ``total``, when known, saves counting."""
    if total is None:
        total = _count(select)
    items = db.session.scalars(select.limit(args["limit"]).offset(args["offset"])).all()
    return {"items": items, "total": total, "limit": args["limit"], "offset": args["offset"]}
