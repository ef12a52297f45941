"""The search index's rows: one per dataset, collection and pipeline (migration 0018).

The text columns are what the database's full-text index reads, by weight: ``name``;
``tags`` and ``columns`` (column names); ``body`` (description, README, column
descriptions); ``cell_values`` (values of the current version's columns). The rest is what
results are filtered, faceted and ranked by, copied from the resource so that a search
reads this table alone. PostgreSQL's ``document`` column (written by a trigger when the
text changes, migration 0021) and SQLite's FTS5 tables are not mapped: only
datahub.search.backends reads them.
"""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime

KINDS = ("dataset", "collection", "pipeline")


class SearchDocument(db.Model):
    __tablename__ = "search_documents"
    __table_args__ = (
        sa.UniqueConstraint("kind", "resource_id"),
        sa.Index("ix_search_documents_updated_at", "updated_at", "id"),
        sa.Index("ix_search_documents_owner_id", "owner_id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(16))
    resource_id: Mapped[int] = mapped_column(sa.Integer)
    name: Mapped[str] = mapped_column(sa.Text)
    tags: Mapped[str] = mapped_column(sa.Text, default="", server_default=sa.text("''"))
    columns: Mapped[str] = mapped_column(sa.Text, default="", server_default=sa.text("''"))
    body: Mapped[str] = mapped_column(sa.Text, default="", server_default=sa.text("''"))
    cell_values: Mapped[str] = mapped_column(sa.Text, default="", server_default=sa.text("''"))
    # [{"name", "type", "values": [...]}] of the version ``values_version`` (None: its
    # columns are not read yet), for ``matched_columns``.
    column_data: Mapped[list | None] = mapped_column(sa.JSON)
    values_version: Mapped[int | None] = mapped_column(sa.Integer)
    owner_id: Mapped[str] = mapped_column(sa.String(36))
    visibility: Mapped[str] = mapped_column(sa.String(16))
    format: Mapped[str | None] = mapped_column(sa.String(16))
    updated_at: Mapped[object] = mapped_column(UTCDateTime)
    # Views and downloads in the last 30 days (datasets), and whether it has a README or
    # column descriptions: small boosts in the ranking.
    popularity: Mapped[int] = mapped_column(sa.Integer, default=0, server_default="0")
    documented: Mapped[bool] = mapped_column(sa.Boolean, default=False, server_default=sa.false())
