"""The dataset, its tags, and the metadata of its stored file."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime
from datahub.resources.services import OwnedNamed


class Dataset(OwnedNamed, db.Model):
    __tablename__ = "datasets"

    # The stored file: a server-generated storage key plus what the client told us.
    file_key: Mapped[str | None] = mapped_column(sa.String(64))
    file_name: Mapped[str | None] = mapped_column(sa.String(255))
    file_content_type: Mapped[str | None] = mapped_column(sa.String(255))
    file_size: Mapped[int | None] = mapped_column(sa.BigInteger)
    file_sha256: Mapped[str | None] = mapped_column(sa.String(64))
    file_uploaded_at: Mapped[object | None] = mapped_column(UTCDateTime)

    tag_rows: Mapped[list["DatasetTag"]] = relationship(
        back_populates="dataset",
        cascade="all, delete-orphan",
        order_by="DatasetTag.position",
        lazy="selectin",
        passive_deletes=True,
    )

    @property
    def tags(self):
        return [row.tag for row in self.tag_rows]

    @tags.setter
    def tags(self, values):
        # Keep the rows of tags that stay (a delete and re-insert of one primary key in
        # one flush would collide), drop the others, add the new ones.
        existing = {row.tag: row for row in self.tag_rows}
        rows = []
        for position, tag in enumerate(dict.fromkeys(values)):
            row = existing.pop(tag, None) or DatasetTag(tag=tag)
            row.position = position
            rows.append(row)
        self.tag_rows = rows

    @property
    def file(self):
        if self.file_key is None:
            return None
        return {
            "filename": self.file_name,
            "content_type": self.file_content_type,
            "size_bytes": self.file_size,
            "sha256": self.file_sha256,
            "uploaded_at": self.file_uploaded_at,
        }


class DatasetTag(db.Model):
    """One tag of a dataset; a table rather than JSON so ``?tag=`` filters by an index."""

    __tablename__ = "dataset_tags"
    # ``?tag=`` finds its datasets in id order from this index alone.
    __table_args__ = (sa.Index("ix_dataset_tags_tag_dataset_id", "tag", "dataset_id"),)

    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
    )
    tag: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    position: Mapped[int] = mapped_column(sa.Integer, default=0)

    dataset: Mapped[Dataset] = relationship(back_populates="tag_rows")
