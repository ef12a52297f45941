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


def _filters(args, user, text_first=False):
    where = []
    if args.get("kinds"):
        where.append(DOCS.c.kind.in_(args["kinds"]))
    if args.get("owner"):
        where.append(DOCS.c.owner_id == (user.id if args["owner"] == "me" else args["owner"]))
    if args.get("visibility"):
        where.append(DOCS.c.visibility == args["visibility"])
    if args.get("format"):
        where.append(DOCS.c.format == args["format"])
    # ``+ 0`` when the full-text match is to drive the query: SQLite otherwise starts from
    # a tag's datasets and matches each of them anew (1.8 s instead of 20 ms at 100,000).
    resource_id = DOCS.c.resource_id + 0 if text_first else DOCS.c.resource_id
    for kind_ids in _dataset_filters(args):
        where += [DOCS.c.kind == "dataset", resource_id.in_(kind_ids)]
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


def _boosted(hits):
    """Text relevance first; usage, recency and documentation add at most a fifth."""
    usage = hits.c.popularity / (hits.c.popularity + 20.0)
    recency = 1.0 / (1.0 + hits.c.age / 30.0)
    documented = sa.case((hits.c.documented, 1.0), else_=0.0)
    return hits.c.rank * (1.0 + 0.1 * usage + 0.05 * recency + 0.05 * documented)


def _order(sort, hits, score):
    if sort == "name":
        return (hits.c.name_key, hits.c.id)
    newest = hits.c.age if "age" in hits.c else hits.c.updated_at.desc()
    if sort == "popular":
        return (hits.c.popularity.desc(), newest, hits.c.id.desc())
    if sort == "relevance":
        return (score.desc(), hits.c.id.desc())
    return (newest, hits.c.id.desc())


TYPE_FACET = "type"  # the kinds of the results
FACETS = (TYPE_FACET, "tags", "owner", "format", "visibility")


def search(args, user):
    """``{"items", "total", "limit", "offset", "facets"}`` for the search ``args``.

    One statement: the matches the caller may read (the full-text index's match and
    rank) are taken once, as ``hits``, and both the page and the facet counts are read
    from them (matching again to count cost as much again: bench/README.rst, "Search").
    The page's rows are then read by their keys."""
    index = _index()
    parsed = parse(args.get("q") or "")
    match = index.match(parsed)
    sort = args.get("sort") or "relevance"
    if match.rank is None and sort == "relevance":
        sort = "-updated_at"
    hits = _hits(index, match, sort, _filters(args, user, text_first=bool(match.froms)))
    score = _boosted(hits) if match.rank is not None else sa.literal(0.0)
    page = (
        sa.select(
            sa.literal("page").label("facet"),
            sa.cast(hits.c.id, sa.String).label("value"),
            sa.cast(score, sa.Float).label("n"),
            *_NO_ATTRIBUTES,
        )
        .order_by(*_order(sort, hits, score))
        .limit(args["limit"])
        .offset(args["offset"])
        .subquery()
    )
    statement = sa.union_all(sa.select(page), *_facet_selects(hits))
    scores, counts = {}, {name: {} for name in FACETS}
    for facet, value, count, *attributes in db.session.execute(statement):
        if facet == "page":
            scores[int(value)] = float(count or 0.0)
            continue
        if facet == "tags":
            pairs = [("tags", value)]
        else:
            pairs = zip(_ATTRIBUTE_FACETS, attributes, strict=True)
        for name, key in pairs:
            if key is not None:
                counts[name][key] = counts[name].get(key, 0) + int(count)
    facets = {
        name: sorted(
            ({"value": value, "count": n} for value, n in values.items()),
            key=lambda item: (-item["count"], str(item["value"])),
        )[:FACET_VALUES]
        for name, values in counts.items()
    }
    _name_owners(facets["owner"])
    rows = _rows(list(scores))
    matcher = highlights.Matcher(parsed.words())
    return {
        "items": _items(
            [(rows[id_], score) for id_, score in scores.items() if id_ in rows], matcher
        ),
        "total": sum(item["count"] for item in facets[TYPE_FACET]),
        "limit": args["limit"],
        "offset": args["offset"],
        "facets": facets,
    }


def _hits(index, match, sort, filters):
    """The matches (their columns that the page's order and the facets need), taken
    once (``MATERIALIZED``) when the full-text index matched; without ``q``, the readable
    documents as a plain subquery, which the databases read through their indexes."""
    columns = [
        DOCS.c.id,
        DOCS.c.kind,
        DOCS.c.resource_id,
        DOCS.c.owner_id,
        DOCS.c.visibility,
        DOCS.c.format,
        DOCS.c.popularity,
    ]
    if match.rank is not None:
        columns += [DOCS.c.documented, match.rank.label("rank")]
    if match.rank is not None or sort != "name":
        columns.append(
            index.age_days().label("age") if match.rank is not None else DOCS.c.updated_at
        )
    if sort == "name":
        columns.append(sa.func.lower(DOCS.c.name).label("name_key"))
    query = sa.select(*columns).select_from(DOCS, *match.froms).where(*match.where, *filters)
    if match.rank is None:
        return query.subquery("hits")
    if sort != "name":  # every column is in the index
        query = index.from_hit_columns(query)
    return query.cte("hits").prefix_with("MATERIALIZED")


_ATTRIBUTE_FACETS = (TYPE_FACET, "visibility", "format", "owner")
_NO_ATTRIBUTES = [sa.cast(sa.null(), sa.String).label(name) for name in _ATTRIBUTE_FACETS]


def _facet_selects(hits):
    """``(facet, value, count, kind, visibility, format, owner)`` rows over ``hits``: the
    count of each combination of the four attributes (one grouping, summed per facet
    here, instead of four), and of each tag."""
    attributes = (hits.c.kind, hits.c.visibility, hits.c.format, hits.c.owner_id)
    tagged = hits.join(
        DatasetTag, sa.and_(hits.c.kind == "dataset", DatasetTag.dataset_id == hits.c.resource_id)
    )
    return (
        sa.select(
            sa.literal("attributes"),
            sa.cast(sa.null(), sa.String),
            sa.cast(sa.func.count(), sa.Float),
            *(sa.cast(column, sa.String) for column in attributes),
        )
        .select_from(hits)
        .group_by(*attributes),
        sa.select(
            sa.literal("tags"), DatasetTag.tag, sa.cast(sa.func.count(), sa.Float), *_NO_ATTRIBUTES
        )
        .select_from(tagged)
        .group_by(DatasetTag.tag),
    )


_SHOWN = (
    "id",
    "kind",
    "resource_id",
    "name",
    "tags",
    "owner_id",
    "updated_at",
    "visibility",
    "format",
    "columns",
    "column_data",
)


def _rows(ids):
    """The page's documents with what results show that the index does not keep (the
    resource's description, a dataset's README and size, the owner's name), in one
    query: a query per table cost a third of a small search (bench/README.rst)."""
    if not ids:
        return {}
    joined, descriptions = DOCS, []
    for kind, model in MODELS.items():
        table = model.__table__
        joined = joined.outerjoin(
            table, sa.and_(DOCS.c.kind == kind, table.c.id == DOCS.c.resource_id)
        )
        descriptions.append(table.c.description)
    datasets, users = Dataset.__table__, User.__table__
    query = (
        sa.select(
            *(DOCS.c[name] for name in _SHOWN),
            sa.func.coalesce(*descriptions, "").label("description"),
            datasets.c.readme,
            datasets.c.file_size,
            users.c.name.label("owner_name"),
        )
        .select_from(joined.outerjoin(users, users.c.id == DOCS.c.owner_id))
        .where(DOCS.c.id.in_(ids))
    )
    return {row["id"]: row for row in db.session.execute(query).mappings()}


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


def _items(scored, matcher):
    items = []
    for row, score in scored:
        description = row["description"]
        items.append(
            {
                "type": row["kind"],
                "id": row["resource_id"],
                "name": row["name"],
                "description": highlights.short(description),
                "tags": row["tags"].split("\n") if row["tags"] else [],
                "owner_id": row["owner_id"],
                "owner": {"id": row["owner_id"], "name": row["owner_name"] or ""},
                "updated_at": row["updated_at"],
                "visibility": row["visibility"],
                "format": row["format"],
                "size_bytes": row["file_size"],
                "rows": None,
                "score": score,
                "highlights": highlights.highlights(
                    matcher, row["name"], description, row["readme"]
                ),
                "matched_columns": highlights.matched_columns(
                    matcher,
                    row["column_data"],
                    row["columns"].split("\n") if row["columns"] else [],
                ),
            }
        )
    return items


def suggest(q, user):
    """Up to ten names of datasets, collections and pipelines, tags and columns that
    contain ``q`` (names that start with it first), of what ``user`` may read."""
    text = " ".join(q.split()).lower()
    if not text:
        return []
    index = _index()
    access = readable(user)
    where = [access] if access is not None else []
    starts = sa.func.lower(DOCS.c.name).like(backends.escaped(text) + "%", escape="\\")
    names = []
    if len(text) < 3:
        # Too short for the trigram index: names starting with it first, read as a range
        # of ix_search_documents_name_key; the scan for it inside names only when fewer.
        names = _names(index.name_starts(text), where, ())
    if len(names) < SUGGESTIONS:
        names = _names(
            index.substring("name", text),
            where,
            (sa.case((starts, 0), else_=1),),
            read=index.from_hit_columns,
        )
    items = [
        {"type": kind, "id": resource_id, "name": name, "kind": kind}
        for kind, resource_id, name in names
    ]
    if len(items) < SUGGESTIONS:
        items += _label_suggestions(index, text, where, SUGGESTIONS - len(items))
    return items


def _names(matching, where, first, read=lambda query: query):
    """``read``: how the names are read (the names that contain what is typed: from the
    index of the matches' short columns, 5 ms instead of 8 for ``rid``'s 5,294)."""
    query = (
        sa.select(DOCS.c.kind, DOCS.c.resource_id, DOCS.c.name)
        .where(matching, *where)
        .order_by(*first, DOCS.c.popularity.desc(), sa.func.length(DOCS.c.name), DOCS.c.id)
        .limit(SUGGESTIONS)
    )
    return db.session.execute(read(query)).all()


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
