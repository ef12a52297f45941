"""The full-text index's two implementations behind one interface: what a query matches
and how well (SQLite FTS5 and PostgreSQL full-text search, migration 0018). Nothing
outside this module knows which database answers."""

import sqlalchemy as sa

from datahub.search import query as queries
from datahub.search.models import SearchDocument

DOCS = SearchDocument.__table__
# bm25 weights of search_text's columns: name; tags; column names; description, README
# and column descriptions; column values.
SQLITE_WEIGHTS = (10.0, 5.0, 5.0, 2.0, 1.0)


class Match:
    """What a parsed query selects: ``where`` (clauses on search_documents) and ``rank``
    (higher is better; None without words)."""

    def __init__(self, where, rank=None, froms=()):
        self.where, self.rank, self.froms = where, rank, froms


class SQLiteIndex:
    text = sa.table("search_text", sa.column("rowid"), sa.column("rank"))
    trigrams = sa.table("search_trigrams", sa.column("rowid"))

    def match(self, parsed):
        positive, negative = queries.fts5(parsed)
        where, rank, froms = [], None, ()
        if positive is not None:
            where.append(
                sa.text("search_text MATCH :search_match").bindparams(search_match=positive)
            )
            where.append(self.text.c.rowid == DOCS.c.id)
            froms = (self.text,)
            weights = ", ".join(str(w) for w in SQLITE_WEIGHTS)
            rank = -sa.literal_column(f"bm25(search_text, {weights})")
        if negative is not None:
            excluded = (
                sa.select(sa.literal_column("rowid"))
                .select_from(sa.text("search_text"))
                .where(
                    sa.text("search_text MATCH :search_excluded").bindparams(
                        search_excluded=negative
                    )
                )
            )
            where.append(DOCS.c.id.not_in(excluded))
        return Match(where, rank, froms)

    def age_days(self):
        return sa.func.julianday("now") - sa.func.julianday(DOCS.c.updated_at)

    def substring(self, column, text):
        """Documents whose ``column`` (name, or tags and column names) contains ``text``."""
        if len(text) >= 3:
            columns = "name" if column == "name" else "{tags columns}"
            phrase = '"' + text.replace('"', '""') + '"'
            ids = (
                sa.select(sa.literal_column("rowid"))
                .select_from(sa.text("search_trigrams"))
                .where(
                    sa.text("search_trigrams MATCH :suggest").bindparams(
                        suggest=f"{columns} : {phrase}"
                    )
                )
            )
            return DOCS.c.id.in_(ids)
        return _like(column, text)


class PostgresIndex:
    document = sa.column("document")

    def match(self, parsed):
        text = queries.tsquery(parsed)
        if text is None:
            return Match([], None)
        document = sa.literal_column("search_documents.document")
        where = [document.bool_op("@@")(_tsquery(text))]
        # Ranked by what is to match: an exclusion in the ranking makes every rank tiny.
        positive = queries.tsquery(queries.Query(groups=parsed.groups))
        rank = sa.func.ts_rank(document, _tsquery(positive)) if positive else None
        return Match(where, rank)

    def age_days(self):
        return sa.extract("epoch", sa.func.now() - DOCS.c.updated_at) / 86400.0

    def substring(self, column, text):
        return _like(column, text)


def _tsquery(text):
    return sa.func.to_tsquery(sa.literal_column("'datahub_search'::regconfig"), text)


def _like(column, text):
    pattern = "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    if column == "name":
        return sa.func.lower(DOCS.c.name).like(pattern, escape="\\")
    # As written in PostgreSQL's trigram index (migration 0018), so that it is used.
    space = sa.literal_column("' '")
    labels = sa.func.lower(DOCS.c.tags.op("||")(space).op("||")(DOCS.c.columns))
    return labels.like(pattern, escape="\\")


_INDEXES = {"sqlite": SQLiteIndex(), "postgresql": PostgresIndex()}


def for_dialect(name):
    return _INDEXES[name]
