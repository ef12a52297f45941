"""The full-text index's two implementations behind one interface: what a query matches
and how well (SQLite FTS5 and PostgreSQL full-text search, migration 0018). Nothing
outside this module knows which database answers."""

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles

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
            # ``rowid + 0``: the full-text match drives the join and each match's row is read
            # by its key (a bare ``rowid =`` let SQLite scan every row and probe the index
            # for each: 30 ms instead of 3 at 100,000 rows).
            where.append(DOCS.c.id == self.text.c.rowid + 0)
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

    def from_hit_columns(self, query):
        """``query`` (on the matches) reading search_documents' short columns and name from
        ``ix_search_documents_hits`` (migrations 0021, 0023) rather than from the rows,
        whose long text fills a page each: 14 ms instead of 51 for 30,000 matches. SQLite
        would otherwise read each match's row by its key."""
        return query.with_hint(DOCS, "INDEXED BY ix_search_documents_hits", "sqlite")

    def name_starts(self, text):
        """Documents whose lowercase name starts with ``text`` (lowercase), as a range of
        ``ix_search_documents_name_key`` (migration 0021): BINARY order is code points'."""
        name = sa.func.lower(DOCS.c.name)
        if text[-1] == chr(0x10FFFF):
            return name.like(escaped(text) + "%", escape="\\")
        return sa.and_(name >= text, name < text[:-1] + chr(ord(text[-1]) + 1))

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
        positive = None
        for group in parsed.groups:
            alternatives = None
            for term in group:
                alternatives = _either(alternatives, _ts_term(term))
            positive = alternatives if positive is None else positive.op("&&")(alternatives)
        excluded = queries.ts_excluded(parsed)
        if excluded is not None:
            excluded = _tsquery(excluded)
        wanted = excluded if positive is None else _both(positive, excluded)
        if wanted is None:
            return Match([], None)
        document = sa.literal_column("search_documents.document")
        # Ranked by what is to match: an exclusion in the ranking makes every rank tiny.
        rank = sa.func.ts_rank(document, positive) if positive is not None else None
        return Match([document.bool_op("@@")(wanted)], rank)

    def age_days(self):
        return sa.extract("epoch", sa.func.now() - DOCS.c.updated_at) / 86400.0

    def from_hit_columns(self, query):
        return query

    def name_starts(self, text):
        """As written in ``ix_search_documents_name_key`` (``text_pattern_ops``, migration
        0021), which serves a left-anchored ``LIKE``."""
        return sa.func.lower(DOCS.c.name).like(escaped(text) + "%", escape="\\")

    def substring(self, column, text):
        return _like(column, text)


def _tsquery(text, config="datahub_search"):
    return sa.func.to_tsquery(sa.literal_column(f"'{config}'::regconfig"), text)


def _ts_term(term):
    """A term; one the typing may still lengthen also as it is typed, not stemmed:
    English stemming turns the prefix ``bwcy`` into ``bwci``, which ``bwcyuh`` does not
    start with."""
    text = queries.ts_term(term)
    stemmed = _tsquery(text)
    return stemmed.op("||")(_tsquery(text, "simple")) if term.prefix else stemmed


def _either(first, second):
    return second if first is None else first.op("||")(second)


def _both(first, second):
    return first if second is None else first.op("&&")(second)


def escaped(text):
    """``text`` as a literal in a ``LIKE`` pattern (escape character ``\\``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _like(column, text):
    pattern = "%" + escaped(text.lower()) + "%"
    if column == "name":
        return sa.func.lower(DOCS.c.name).like(pattern, escape="\\")
    # As written in PostgreSQL's trigram index (migration 0018), so that it is used.
    space = sa.literal_column("' '")
    labels = sa.func.lower(DOCS.c.tags.op("||")(space).op("||")(DOCS.c.columns))
    return labels.like(pattern, escape="\\")


@compiles(sa.Table, "sqlite")
def _sqlite_table(table, compiler, fromhints=None, **kw):
    """A table with its ``with_hint`` text (``INDEXED BY``), which SQLAlchemy's SQLite
    dialect leaves out."""
    text = compiler.visit_table(table, fromhints=None, **kw)
    if fromhints and table in fromhints and kw.get("asfrom"):
        text += " " + fromhints[table]
    return text


_INDEXES = {"sqlite": SQLiteIndex(), "postgresql": PostgresIndex()}


def for_dialect(name):
    return _INDEXES[name]
