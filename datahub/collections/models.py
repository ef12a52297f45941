"""A collection and its member datasets."""
import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from datahub.database import UTCDateTime, utcnow
from datahub.extensions import db


class Collection(db.Model):
    __tablename__ = "collections"
    __table_args__ = (sa.Index("ix_collections_owner_id_id", "owner_id", "id"),)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(255))
    # Lower-cased name; the unique index makes names unique case-insensitively.
    name_key: Mapped[str] = mapped_column(sa.String(510), unique=True)
    description: Mapped[str] = mapped_column(sa.Text, default="")
    owner_id: Mapped[str] = mapped_column(sa.ForeignKey("users.id", ondelete="RESTRICT"))
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)

    members: Mapped[list["CollectionDataset"]] = relationship(
        cascade="all, delete-orphan",
        order_by="CollectionDataset.dataset_id",
        lazy="selectin",
        passive_deletes=True,
    )

    @property
    def dataset_ids(self):
        return [member.dataset_id for member in self.members]


class CollectionDataset(db.Model):
    """Membership. Deleting either side deletes the row (ON DELETE CASCADE)."""

    __tablename__ = "collection_datasets"

    collection_id: Mapped[int] = mapped_column(
        sa.ForeignKey("collections.id", ondelete="CASCADE"), primary_key=True
    )
    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    added_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
