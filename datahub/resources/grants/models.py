"""Grants of ``read`` or ``write`` on one dataset, collection or pipeline to a user or a
group (docs/guides/access.rst). One table per kind of resource, so that deleting the
resource, the user or the group deletes its grants (ON DELETE CASCADE)."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, declared_attr, mapped_column

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime, utcnow

PERMISSIONS = ("read", "write")


class GrantColumns:
    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    # "user:<uuid>" or "group:<id>", as the API names it; one of the two ids below is set.
    principal: Mapped[str] = mapped_column(sa.String(64))
    user_id: Mapped[str | None] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"))
    group_id: Mapped[int | None] = mapped_column(sa.ForeignKey("groups.id", ondelete="CASCADE"))
    permission: Mapped[str] = mapped_column(sa.String(8))
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    created_by: Mapped[str | None] = mapped_column(sa.ForeignKey("users.id", ondelete="SET NULL"))
    # Whether the resource is private, kept by migration 0011's triggers (never written
    # here): a list's total counts the private rows a user is granted from the indexes.
    resource_private: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())

    @declared_attr.directive
    def __table_args__(cls):
        # The list filter asks "which resources does this user or these groups hold a
        # grant on", and a list's total "which private ones": these two answer both.
        table = cls.__tablename__
        return (
            sa.UniqueConstraint("resource_id", "principal", name=f"uq_{table}_resource_principal"),
            sa.Index(
                f"ix_{table}_user_id_private_resource_id",
                "user_id",
                "resource_private",
                "resource_id",
            ),
            sa.Index(
                f"ix_{table}_group_id_private_resource_id",
                "group_id",
                "resource_private",
                "resource_id",
            ),
            {"sqlite_autoincrement": True},
        )


class DatasetGrant(GrantColumns, db.Model):
    __tablename__ = "dataset_grants"
    resource_id: Mapped[int] = mapped_column(sa.ForeignKey("datasets.id", ondelete="CASCADE"))


class CollectionGrant(GrantColumns, db.Model):
    __tablename__ = "collection_grants"
    resource_id: Mapped[int] = mapped_column(sa.ForeignKey("collections.id", ondelete="CASCADE"))


class PipelineGrant(GrantColumns, db.Model):
    __tablename__ = "pipeline_grants"
    resource_id: Mapped[int] = mapped_column(sa.ForeignKey("pipelines.id", ondelete="CASCADE"))


GRANT_MODELS = {
    "datasets": DatasetGrant,
    "collections": CollectionGrant,
    "pipelines": PipelineGrant,
}
