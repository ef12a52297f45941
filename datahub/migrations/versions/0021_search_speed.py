"""search: indexes for broad queries and short suggestions; PostgreSQL's document written
only when its text changes

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03 10:00:00.000000

``ix_search_documents_name_key`` (``lower(name)``; PostgreSQL: ``text_pattern_ops``) serves
suggestions of one or two letters, which the trigram indexes cannot: names starting with
them are read as an index range. On SQLite, ``ix_search_documents_hits`` holds what a
search filters, facets and ranks by, so that the matches of a broad query are read from it
rather than from the rows, whose long text fills a page each (bench/README.rst, "Search").
On PostgreSQL the weighted ``document`` is no longer a generated column, which is computed
again on every update of its row, but written by a trigger when one of its text columns
changed: a new version or a visibility change no longer re-parses the column values.
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None

TEXT_COLUMNS = ("name", "tags", "columns", "body", "cell_values")
HIT_COLUMNS = ("id", "kind", "resource_id", "owner_id", "visibility", "format", "popularity",
               "documented", "updated_at")
PG_DOCUMENT = (
    "setweight(to_tsvector('datahub_search'::regconfig, new.name), 'A') || "
    "setweight(to_tsvector('datahub_search'::regconfig, new.tags || ' ' || new.columns), 'B') || "
    "setweight(to_tsvector('datahub_search'::regconfig, new.body), 'C') || "
    "setweight(to_tsvector('datahub_search'::regconfig, new.cell_values), 'D')"
)
PG_TRIGGER = (
    "CREATE FUNCTION search_documents_document() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN "
    "IF TG_OP = 'INSERT' OR "
    + " OR ".join(f"new.{c} IS DISTINCT FROM old.{c}" for c in TEXT_COLUMNS)
    + f" THEN new.document := {PG_DOCUMENT}; END IF; "
    "RETURN new; END $$",
    "CREATE TRIGGER search_documents_document BEFORE INSERT OR UPDATE ON search_documents "
    "FOR EACH ROW EXECUTE FUNCTION search_documents_document()",
)
PG_GENERATED = (
    "ALTER TABLE search_documents ADD COLUMN document tsvector GENERATED ALWAYS AS ("
    + PG_DOCUMENT.replace("new.", "")
    + ") STORED"
)


def upgrade():
    if op.get_context().dialect.name == "postgresql":
        op.execute("CREATE INDEX ix_search_documents_name_key ON search_documents "
                   "(lower(name) text_pattern_ops)")
        op.execute("ALTER TABLE search_documents ALTER COLUMN document DROP EXPRESSION")
        for statement in PG_TRIGGER:
            op.execute(statement)
    else:
        op.execute("CREATE INDEX ix_search_documents_name_key ON search_documents (lower(name))")
        op.execute(f"CREATE INDEX ix_search_documents_hits ON search_documents "
                   f"({', '.join(HIT_COLUMNS)})")


def downgrade():
    op.execute("DROP INDEX ix_search_documents_name_key")
    if op.get_context().dialect.name == "postgresql":
        op.execute("DROP TRIGGER search_documents_document ON search_documents")
        op.execute("DROP FUNCTION search_documents_document()")
        op.execute("ALTER TABLE search_documents DROP COLUMN document")
        op.execute(PG_GENERATED)
        op.execute("CREATE INDEX ix_search_documents_document ON search_documents "
                   "USING gin (document)")
    else:
        op.execute("DROP INDEX ix_search_documents_hits")
