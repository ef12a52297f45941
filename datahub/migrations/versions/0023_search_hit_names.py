"""search: SQLite's index of the matches' short columns also holds the name

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-29 20:10:00.000000

Suggestions read the name of every document whose name contains what is typed (``rid``:
5,294 of 100,000), and rank them by it. From the rows, whose long text fills a page each,
that took 8 ms; from ``ix_search_documents_hits`` with the name appended, 5 ms. Searches
read the same index, no slower (bench/README.rst, "Search"). PostgreSQL has no such index
(migration 0021): nothing changes there.
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None

HIT_COLUMNS = ("id", "kind", "resource_id", "owner_id", "visibility", "format", "popularity",
               "documented", "updated_at")


def _hits_index(columns):
    op.execute("DROP INDEX ix_search_documents_hits")
    op.execute(f"CREATE INDEX ix_search_documents_hits ON search_documents ({', '.join(columns)})")


def upgrade():
    if op.get_context().dialect.name == "sqlite":
        _hits_index((*HIT_COLUMNS, "name"))


def downgrade():
    if op.get_context().dialect.name == "sqlite":
        _hits_index(HIT_COLUMNS)
