"""A collection and its member datasets."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from datahub.app.extensions import db
from datahub.collections.errors import CollectionNotFound
from datahub.platform.database import UTCDateTime, utcnow
from datahub.resources.models import OwnedNamed


class Collection(OwnedNamed, db.Model):
    __tablename__ = "collections"
    not_found = CollectionNotFound  # what a caller who may not read it is told

    members: Mapped[list["CollectionDataset"]] = relationship(
        cascade="all, delete-orphan",
        order_by="CollectionDataset.dataset_id",
        lazy="selectin",
        passive_deletes=True,
    )

    @property
    def dataset_ids(self):
        return [member.dataset_id for member in self.members]

    @dataset_ids.setter
    def dataset_ids(self, values):
        # Keep the rows of members that stay, as Dataset.tags does.
        existing = {member.dataset_id: member for member in self.members}
        self.members = sorted(
            (existing.get(i) or CollectionDataset(dataset_id=i) for i in dict.fromkeys(values)),
            key=lambda member: member.dataset_id,
        )


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
