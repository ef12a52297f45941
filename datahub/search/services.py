"""Searching datasets, collections and pipelines (docs/guides/search.rst): one query for
a page, one for its total and facets, both over the index (datahub.search.backends) and
filtered by what the caller may read in the same statement."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.collections.models import CollectionDataset
from datahub.datasets.models import Dataset, DatasetTag
from datahub.identity.models import User
from datahub.resources.access import granted_ids, is_admin
from datahub.search import backends, highlights
from datahub.search.documents import MODELS
from datahub.search.query import parse

DOCS = backends.DOCS
FACET_VALUES = 20
SUGGESTIONS = 10


def _index():
    return backends.for_dialect(db.session.get_bind().dialect.name)


def readable(user):
    """The documents ``user`` may read (datahub.resources.access, on the index's copy of
    each resource's owner and visibility); None: all of them."""
    if is_admin(user):
        return None
    return sa.or_(
        DOCS.c.visibility == "internal",
        DOCS.c.owner_id == user.id,
        *(
            sa.and_(DOCS.c.kind == kind, DOCS.c.resource_id.in_(granted_ids(model, user)))
            for kind, model in MODELS.items()
        ),
    )


def _filters(args, user):
    where = []
    if args.get("type"):
        where.append(DOCS.c.kind.in_(args["type"]))
    if args.get("owner"):
        where.append(DOCS.c.owner_id == (user.id if args["owner"] == "me" else args["owner"]))
    if args.get("visibility"):
        where.append(DOCS.c.visibility == args["visibility"])
    if args.get("format"):
        where.append(DOCS.c.format == args["format"])
    for kind_ids in _dataset_filters(args):
        where += [DOCS.c.kind == "dataset", DOCS.c.resource_id.in_(kind_ids)]
    access = readable(user)
    if access is not None:
        where.append(access)
    return where


def _dataset_filters(args):
    if args.get("tag"):
        yield sa.select(DatasetTag.dataset_id).where(DatasetTag.tag == args["tag"])
    if args.get("collection"):
        yield sa.select(CollectionDataset.dataset_id).where(
            CollectionDataset.collection_id == args["collection"]
        )


def _boosted(rank, index):
    """Text relevance first; usage, recency and documentation add at most about a fifth."""
    usage = DOCS.c.popularity / (DOCS.c.popularity + 20.0)
    recency = 1.0 / (1.0 + index.age_days() / 30.0)
    documented = sa.case((DOCS.c.documented, 1.0), else_=0.0)
    return rank * (1.0 + 0.1 * usage + 0.05 * recency + 0.05 * documented)


def _order(sort, score):
    if sort == "name":
        return (sa.func.lower(DOCS.c.name), DOCS.c.id)
    if sort == "popular":
        return (DOCS.c.popularity.desc(), DOCS.c.updated_at.desc(), DOCS.c.id.desc())
    if sort == "relevance" and score is not None:
        return (score.desc(), DOCS.c.id.desc())
    return (DOCS.c.updated_at.desc(), DOCS.c.id.desc())


def search(args, user):
    """``{"items", "total", "limit", "offset", "facets"}`` for the search ``args``."""
    index = _index()
    parsed = parse(args.get("q") or "")
    match = index.match(parsed)
    where = [*match.where, *_filters(args, user)]
    score = _boosted(match.rank, index) if match.rank is not None else None
    columns = [DOCS, (score if score is not None else sa.literal(0.0)).label("score")]
    page = (
        sa.select(*columns)
        .select_from(DOCS, *match.froms)
        .where(*where)
        .order_by(*_order(args.get("sort") or "relevance", score))
        .limit(args["limit"])
        .offset(args["offset"])
    )
    rows = db.session.execute(page).mappings().all()
    facets, total = _facets(match, where)
    matcher = highlights.Matcher(parsed.words())
    return {
        "items": _items(rows, matcher),
        "total": total,
        "limit": args["limit"],
        "offset": args["offset"],
        "facets": facets,
    }


def _facets(match, where):
    hits = (
        sa.select(
            DOCS.c.id,
            DOCS.c.kind,
            DOCS.c.resource_id,
            DOCS.c.owner_id,
            DOCS.c.visibility,
            DOCS.c.format,
        )
        .select_from(DOCS, *match.froms)
        .where(*where)
        .cte("hits")
        .prefix_with("MATERIALIZED", dialect="postgresql")
    )

    def counted(name, column, *joins_where):
        query = sa.select(
            sa.literal(name).label("facet"), column.label("value"), sa.func.count().label("n")
        )
        query = query.select_from(hits)
        for clause in joins_where:
            query = query.where(clause)
        return query.group_by(column)

    tags = (
        sa.select(sa.literal("tags"), DatasetTag.tag, sa.func.count())
        .select_from(
            hits.join(
                DatasetTag,
                sa.and_(hits.c.kind == "dataset", DatasetTag.dataset_id == hits.c.resource_id),
            )
        )
        .group_by(DatasetTag.tag)
    )
    statement = sa.union_all(
        counted("type", hits.c.kind),
        counted("visibility", hits.c.visibility),
        counted("format", hits.c.format, hits.c.format.is_not(None)),
        counted("owner", hits.c.owner_id),
        tags,
    )
    facets = {name: [] for name in ("type", "tags", "owner", "format", "visibility")}
    for name, value, count in db.session.execute(statement):
        facets[name].append({"value": value, "count": count})
    for values in facets.values():
        values.sort(key=lambda item: (-item["count"], str(item["value"])))
        del values[FACET_VALUES:]
    total = sum(item["count"] for item in facets["type"])
    _name_owners(facets["owner"])
    return facets, total


def _name_owners(values):
    names = _user_names([item["value"] for item in values])
    for item in values:
        item["name"] = names.get(item["value"], "")


def _user_names(ids):
    if not ids:
        return {}
    return dict(
        db.session.execute(sa.select(User.id, User.name).where(User.id.in_(set(ids)))).all()
    )


def _items(rows, matcher):
    owners = _user_names([row["owner_id"] for row in rows])
    extras = _resource_extras(rows)
    items = []
    for row in rows:
        extra = extras.get((row["kind"], row["resource_id"]), {})
        description = extra.get("description", "")
        items.append(
            {
                "type": row["kind"],
                "id": row["resource_id"],
                "name": row["name"],
                "description": highlights.short(description),
                "tags": extra.get("tags", []),
                "owner_id": row["owner_id"],
                "owner": {"id": row["owner_id"], "name": owners.get(row["owner_id"], "")},
                "updated_at": row["updated_at"],
                "visibility": row["visibility"],
                "format": row["format"],
                "size_bytes": extra.get("size_bytes"),
                "rows": None,
                "score": float(row["score"] or 0.0),
                "highlights": highlights.highlights(
                    matcher, row["name"], description, extra.get("readme")
                ),
                "matched_columns": highlights.matched_columns(
                    matcher,
                    row["column_data"],
                    row["columns"].split("\n") if row["columns"] else [],
                ),
            }
        )
    return items


def _resource_extras(rows):
    """What the results show that the index does not keep (full text, tags, size), read
    from each kind's table in one query."""
    extras = {}
    for kind, model in MODELS.items():
        ids = [row["resource_id"] for row in rows if row["kind"] == kind]
        if not ids:
            continue
        if kind == "dataset":
            query = sa.select(Dataset).where(Dataset.id.in_(ids))
            for dataset in db.session.scalars(query):
                extras[(kind, dataset.id)] = {
                    "description": dataset.description,
                    "readme": dataset.readme,
                    "tags": dataset.tags,
                    "size_bytes": dataset.file_size,
                }
        else:
            query = sa.select(model.id, model.description).where(model.id.in_(ids))
            for resource_id, description in db.session.execute(query):
                extras[(kind, resource_id)] = {"description": description, "tags": []}
    return extras


def suggest(q, user):
    """Up to ten names of datasets, collections and pipelines, tags and columns that
    contain ``q`` (names that start with it first), of what ``user`` may read."""
    text = " ".join(q.split()).lower()
    if not text:
        return []
    index = _index()
    access = readable(user)
    where = [access] if access is not None else []
    starts = sa.func.lower(DOCS.c.name).like(
        text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%", escape="\\"
    )
    names = db.session.execute(
        sa.select(DOCS.c.kind, DOCS.c.resource_id, DOCS.c.name)
        .where(index.substring("name", text), *where)
        .order_by(
            sa.case((starts, 0), else_=1),
            DOCS.c.popularity.desc(),
            sa.func.length(DOCS.c.name),
            DOCS.c.id,
        )
        .limit(SUGGESTIONS)
    ).all()
    items = [
        {"type": kind, "id": resource_id, "name": name, "kind": kind}
        for kind, resource_id, name in names
    ]
    if len(items) < SUGGESTIONS:
        items += _label_suggestions(index, text, where, SUGGESTIONS - len(items))
    return items


def _label_suggestions(index, text, where, wanted):
    """Tags and column names containing ``text``, from readable datasets."""
    rows = db.session.execute(
        sa.select(DOCS.c.resource_id, DOCS.c.tags, DOCS.c.columns)
        .where(DOCS.c.kind == "dataset", index.substring("labels", text), *where)
        .order_by(DOCS.c.popularity.desc(), DOCS.c.id)
        .limit(50)
    ).all()
    found = {}
    for resource_id, tags, columns in rows:
        for kind, labels in (("tag", tags.split("\n")), ("column", columns.split("\n"))):
            for label in labels:
                if text in label.lower() and (kind, label) not in found:
                    found[(kind, label)] = {
                        "type": "dataset",
                        "id": resource_id,
                        "name": label,
                        "kind": kind,
                    }
    ordered = sorted(
        found.values(),
        key=lambda item: (
            not item["name"].lower().startswith(text),
            item["kind"] != "tag",
            len(item["name"]),
        ),
    )
    return ordered[:wanted]
