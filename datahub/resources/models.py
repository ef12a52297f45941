"""What the models of named, owned resources (datasets, collections, pipelines) share."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, declared_attr, mapped_column

from datahub.platform.database import UTCDateTime, utcnow


class OwnedNamed:
    """The columns of a named, owned, timestamped resource."""

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(255))
    # ``name_key(name)``; lower() can lengthen a few characters (İ → i̇), hence 510.
    name_key: Mapped[str] = mapped_column(sa.String(510), unique=True)
    description: Mapped[str] = mapped_column(sa.Text, default="")
    owner_id: Mapped[str] = mapped_column(sa.ForeignKey("users.id", ondelete="RESTRICT"))
    # "private" (owner, grantees, admins) or "internal" (every active user):
    # datahub.resources.access, docs/guides/access.rst.
    # (No Python default: rows inserted without one take the database's.)
    visibility: Mapped[str] = mapped_column(sa.String(16), server_default="internal")
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)

    @declared_attr.directive
    def __table_args__(cls):
        # Pages are ordered by id: (owner_id, id) serves ``?owner=`` pages without a sort.
        # Ids are never given again once deleted, on SQLite too (AUTOINCREMENT: migration
        # 0008; PostgreSQL's sequences never reuse one).
        return (
            sa.Index(f"ix_{cls.__tablename__}_owner_id_id", "owner_id", "id"),
            # ``?sort=created_at`` and ``updated_at`` pages (``ordered``), either way.
            sa.Index(f"ix_{cls.__tablename__}_created_at_id", "created_at", "id"),
            sa.Index(f"ix_{cls.__tablename__}_updated_at_id", "updated_at", "id"),
            {"sqlite_autoincrement": True},
        )
