"""The search index's rows, made from the resources they describe: written in the
transaction of each change (datahub.search.sync) and by a rebuild
(``reindex``, below), by the same functions."""

import concurrent.futures
import functools

import sqlalchemy as sa
from flask import current_app

from datahub.app.extensions import db
from datahub.collections.models import Collection
from datahub.datasets import usage
from datahub.datasets.columns.models import ColumnDescription
from datahub.datasets.models import Dataset, DatasetVersion
from datahub.pipelines.models import Pipeline
from datahub.search.models import SearchDocument

MODELS = {"dataset": Dataset, "collection": Collection, "pipeline": Pipeline}
KIND_OF = {model: kind for kind, model in MODELS.items()}
# What a document's text is made of (tags and column descriptions are rows of their own).
TEXT_ATTRIBUTES = {
    Dataset: ("name", "description", "readme", "tag_rows"),
    Collection: ("name", "description"),
    Pipeline: ("name", "description", "output_dataset_name"),
}


def document(kind, row, descriptions=(), file_format=None):
    """The indexed values of ``row`` (a ``kind``), but for its columns' values.
    ``descriptions``: a dataset's column descriptions as (name, text)."""
    body = [row.description or ""]
    tags = ""
    if kind == "dataset":
        tags = "\n".join(row.tags)
        body += [row.readme or "", *(f"{name}: {text}" for name, text in descriptions)]
    elif kind == "pipeline":
        body.append(row.output_dataset_name or "")
    return {
        "kind": kind,
        "resource_id": row.id,
        "name": row.name,
        "tags": tags,
        "body": "\n".join(part for part in body if part),
        "owner_id": row.owner_id,
        "visibility": row.visibility,
        "format": file_format,
        "updated_at": row.updated_at,
        "documented": bool(kind == "dataset" and (row.readme or descriptions)),
    }


def column_descriptions(dataset_ids):
    """``{dataset_id: [(name, description)]}`` for ``dataset_ids``, in one query."""
    found = {}
    if dataset_ids:
        query = (
            sa.select(
                ColumnDescription.dataset_id, ColumnDescription.name, ColumnDescription.description
            )
            .where(ColumnDescription.dataset_id.in_(dataset_ids))
            .order_by(ColumnDescription.dataset_id, ColumnDescription.name)
        )
        for dataset_id, name, text in db.session.execute(query):
            found.setdefault(dataset_id, []).append((name, text))
    return found


def current_formats(datasets):
    """``{dataset_id: format}`` of the current versions of ``datasets``, in one query."""
    versions = {row.id: row.current_version for row in datasets if row.current_version}
    if not versions:
        return {}
    # By dataset, its versions then picked here: a list of (dataset, version) pairs is
    # read by a scan of every version on PostgreSQL (130 ms for 1,000 datasets).
    query = sa.select(
        DatasetVersion.dataset_id, DatasetVersion.version, DatasetVersion.format
    ).where(DatasetVersion.dataset_id.in_(versions))
    return {
        dataset_id: file_format
        for dataset_id, version, file_format in db.session.execute(query)
        if versions[dataset_id] == version
    }


def write(connection, documents, current_versions):
    """Insert or update ``documents`` (of one kind). A dataset whose current version is
    not the one its columns and values were read from (``current_versions``: dataset id →
    current version) is marked for the worker to read again (datahub.search.values),
    which then replaces them; until then the earlier version's are searched. Leaving the
    text as it is spares an upload rewriting the full-text index twice (bench/README.rst,
    "Search")."""
    if not documents:
        return
    table = SearchDocument.__table__
    kind = documents[0]["kind"]
    ids = [doc["resource_id"] for doc in documents]
    existing = set(
        connection.scalars(
            sa.select(table.c.resource_id).where(table.c.kind == kind, table.c.resource_id.in_(ids))
        )
    )
    updates = [doc for doc in documents if doc["resource_id"] in existing]
    inserts = [doc for doc in documents if doc["resource_id"] not in existing]
    if updates:
        connection.execute(_update_statement(), [_keyed(doc, current_versions) for doc in updates])
    if inserts:
        connection.execute(_INSERT, inserts)


def _keyed(doc, current_versions):
    return {
        **{f"new_{key}": value for key, value in doc.items()},
        "current_version": current_versions.get(doc["resource_id"]),
    }


_INSERT = SearchDocument.__table__.insert()


@functools.cache
def _update_statement():
    table = SearchDocument.__table__
    kept = table.c.values_version == sa.bindparam("current_version")
    values = {
        name: sa.bindparam(f"new_{name}")
        for name in (
            "name",
            "tags",
            "body",
            "owner_id",
            "visibility",
            "format",
            "updated_at",
            "documented",
        )
    }
    changed = [table.c[name].is_distinct_from(value) for name, value in values.items()]
    values["values_version"] = sa.case((kept, table.c.values_version), else_=sa.null())
    # A row left as it is is not written: a reindex of an unchanged catalog writes nothing
    # (PostgreSQL: no new row version, no index entries).
    changed.append(
        sa.and_(
            table.c.values_version.is_not(None),
            table.c.values_version.is_distinct_from(sa.bindparam("current_version")),
        )
    )
    return (
        table.update()
        .where(
            table.c.kind == sa.bindparam("new_kind"),
            table.c.resource_id == sa.bindparam("new_resource_id"),
            sa.or_(*changed),
        )
        .values(values)
    )


def write_attributes(connection, kind, rows):
    """Write what results are filtered and faceted by (owner, visibility, format, time)
    of ``rows`` whose text did not change, one statement each: a new version, a
    visibility or an owner leaves the text, its descriptions and tags unread (bench/
    README.rst, "Search"). The rows that have no document yet are returned."""
    statement = _attributes_statement(kind)
    missing = []
    for row in rows:
        done = connection.execute(
            statement,
            {
                "attr_id": row.id,
                "attr_owner_id": row.owner_id,
                "attr_visibility": row.visibility,
                "attr_updated_at": row.updated_at,
                "attr_current_version": getattr(row, "current_version", None),
            },
        )
        if done.rowcount == 0:
            missing.append(row)
    return missing


@functools.cache
def _attributes_statement(kind):
    """Built once: building it and its cache key took more than half of an upload's
    time in the index (0.33 ms; bench/README.rst, "Search")."""
    table = SearchDocument.__table__
    current = sa.bindparam("attr_current_version", type_=sa.Integer)
    file_format = sa.null()
    if kind == "dataset":
        file_format = (
            sa.select(DatasetVersion.format)
            .where(
                DatasetVersion.dataset_id == sa.bindparam("attr_id"),
                DatasetVersion.version == current,
            )
            .scalar_subquery()
        )
    return (
        table.update()
        .where(table.c.kind == kind, table.c.resource_id == sa.bindparam("attr_id"))
        .values(
            owner_id=sa.bindparam("attr_owner_id"),
            visibility=sa.bindparam("attr_visibility"),
            updated_at=sa.bindparam("attr_updated_at"),
            format=file_format,
            values_version=sa.case(
                (table.c.values_version == current, table.c.values_version), else_=sa.null()
            ),
        )
    )


def remove(connection, kind, ids):
    table = SearchDocument.__table__
    connection.execute(table.delete().where(table.c.kind == kind, table.c.resource_id.in_(ids)))


def index_rows(connection, kind, rows, new=False):
    """Write the documents of ``rows`` (loaded ``kind`` rows); ``new``: none has one yet
    (their insert needs no lookup)."""
    descriptions, formats = {}, {}
    if kind == "dataset":
        descriptions = {} if new else column_descriptions([row.id for row in rows])
        formats = current_formats(rows)
    documents = [
        document(kind, row, descriptions.get(row.id, ()), formats.get(row.id)) for row in rows
    ]
    if new:
        if documents:  # one row (a create) as one statement, not as a batch of one
            connection.execute(_INSERT, documents[0] if len(documents) == 1 else documents)
        return
    versions = {row.id: row.current_version for row in rows} if kind == "dataset" else {}
    write(connection, documents, versions)


def reindex(batch_size=1000, report=None, workers=2):
    """Rebuild every document, ``batch_size`` resources to a transaction (the service
    goes on meanwhile: a change in between writes its own document), and drop those whose
    resource is gone. ``report(kind, count)`` after each batch. On PostgreSQL, which
    parses the text, ``workers`` batches at once, each in a thread with a connection of
    its own; SQLite writes one transaction at a time."""
    app = current_app._get_current_object()
    if db.engine.dialect.name != "postgresql":
        workers = 1
    for kind, model in MODELS.items():
        done = functools.partial(report, kind) if report is not None else _ignore
        ranges = list(_id_ranges(model, batch_size))
        db.session.commit()  # the ranges' read ends before the batches write
        if workers > 1 and len(ranges) > 1:
            _in_threads(workers, functools.partial(_index_batch_in, app, kind, model), ranges, done)
        else:
            for ids in ranges:
                done(_index_batch(kind, model, ids))
        # Rows created since the ranges were read (each wrote its own document already).
        for ids in _id_ranges(model, batch_size, after=ranges[-1][1] if ranges else 0):
            done(_index_batch(kind, model, ids))
        table = SearchDocument.__table__
        db.session.execute(
            table.delete().where(
                table.c.kind == kind, table.c.resource_id.not_in(sa.select(model.id))
            )
        )
        db.session.commit()


def _ignore(_count):
    pass


def _id_ranges(model, batch_size, after=0):
    """``(after, through)`` id ranges of up to ``batch_size`` rows of ``model`` with ids
    above ``after``, in order, the last one through the highest id."""
    while True:
        following = sa.select(model.id).where(model.id > after)
        through = db.session.scalar(
            following.order_by(model.id).offset(batch_size - 1).limit(1)
        ) or db.session.scalar(sa.select(sa.func.max(model.id)).where(model.id > after))
        if through is None:
            return
        yield after, through
        after = through


def _in_threads(workers, function, arguments, done):
    """``done(function(argument))`` for each of ``arguments``, ``workers`` at once, as
    each ends; the first failure stops those not begun and is raised."""
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(function, argument) for argument in arguments]
        try:
            for future in concurrent.futures.as_completed(futures):
                done(future.result())
        finally:
            for future in futures:
                future.cancel()


def _index_batch_in(app, kind, model, ids):
    with app.app_context():
        return _index_batch(kind, model, ids)


def _index_batch(kind, model, ids):
    """Write the documents of ``model`` rows with ids in ``ids`` (``(after, through)``),
    in a transaction of their own; how many there were."""
    after, through = ids
    rows = db.session.scalars(
        sa.select(model).where(model.id > after, model.id <= through).order_by(model.id)
    ).all()
    if rows:
        index_rows(db.session.connection(), kind, rows)
        if kind == "dataset":  # a document made anew ranks by its usage too
            usage.set_popularity(db.session.connection(), [row.id for row in rows])
    db.session.commit()
    return len(rows)
