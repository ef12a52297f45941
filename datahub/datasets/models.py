"""The dataset, its tags, its versions (docs/guides/versions.rst) and which versions runs read."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from datahub.app.extensions import db
from datahub.datasets.errors import DatasetNotFound
from datahub.platform.database import UTCDateTime
from datahub.resources.models import OwnedNamed


class Dataset(OwnedNamed, db.Model):
    __tablename__ = "datasets"
    not_found = DatasetNotFound  # what a caller who may not read it is told

    # The current version's number (None before the first) and a copy of its file's
    # metadata, so that lists and downloads read one row (datasets.versions.make_current).
    current_version: Mapped[int | None] = mapped_column(sa.Integer)
    file_key: Mapped[str | None] = mapped_column(sa.String(64))
    file_name: Mapped[str | None] = mapped_column(sa.String(255))
    file_content_type: Mapped[str | None] = mapped_column(sa.String(255))
    file_size: Mapped[int | None] = mapped_column(sa.BigInteger)
    file_sha256: Mapped[str | None] = mapped_column(sa.String(64))
    file_uploaded_at: Mapped[object | None] = mapped_column(UTCDateTime)
    # No Python default: rows written by older code (a migration's test) take the database's.
    readme: Mapped[str] = mapped_column(sa.Text, server_default=sa.text("''"))

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


class DatasetVersion(db.Model):
    """One immutable version of a dataset's file (docs/guides/versions.rst). Its bytes are
    the stored object ``file_key``, which versions of one dataset with the same content
    share; a row is never changed but for ``pinned`` and ``message``."""

    __tablename__ = "dataset_versions"
    __table_args__ = (
        sa.Index("ix_dataset_versions_file_key", "file_key"),
        sa.Index("ix_dataset_versions_dataset_id_sha256", "dataset_id", "sha256"),
        sa.Index("ix_dataset_versions_run_id", "run_id"),
        # A content's versions (its profile: datahub.datasets.profiles).
        sa.Index("ix_dataset_versions_sha256_size_bytes", "sha256", "size_bytes"),
    )

    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    file_key: Mapped[str] = mapped_column(sa.String(64))
    sha256: Mapped[str] = mapped_column(sa.String(64))
    size_bytes: Mapped[int] = mapped_column(sa.BigInteger)
    filename: Mapped[str] = mapped_column(sa.String(255))
    content_type: Mapped[str] = mapped_column(sa.String(255))
    format: Mapped[str | None] = mapped_column(sa.String(16))  # csv, parquet, jsonl or None
    created_at: Mapped[object] = mapped_column(UTCDateTime)
    created_by: Mapped[str | None] = mapped_column(sa.ForeignKey("users.id", ondelete="SET NULL"))
    run_id: Mapped[int | None] = mapped_column(sa.ForeignKey("runs.id", ondelete="SET NULL"))
    message: Mapped[str | None] = mapped_column(sa.Text)
    pinned: Mapped[bool] = mapped_column(sa.Boolean, default=False, server_default=sa.false())
    # ``published``; ``pending`` while its dataset's checks run; ``quarantined`` when one
    # that is an error failed (datahub.datasets.checks): only a published version is
    # current, triggers runs and feeds pipelines.
    state: Mapped[str] = mapped_column(
        sa.String(16), default="published", server_default="published"
    )


class VersionRead(db.Model):
    """A run read this version (its ``inputs``). While the run is running, and for as
    long as a succeeded run exists, the version is kept: retention passes it by, and
    deleting it is 409 ``Version is used by a run``. A failed or cancelled run keeps
    nothing; deleting the version also removes it from that run's ``inputs``."""

    __tablename__ = "dataset_version_reads"
    __table_args__ = (
        sa.ForeignKeyConstraint(
            ["dataset_id", "version"],
            ["dataset_versions.dataset_id", "dataset_versions.version"],
            ondelete="CASCADE",
        ),
        sa.Index("ix_dataset_version_reads_dataset_id_version", "dataset_id", "version"),
    )

    run_id: Mapped[int] = mapped_column(
        sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True
    )
    dataset_id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    version: Mapped[int] = mapped_column(sa.Integer, primary_key=True)


class DatasetUsage(db.Model):
    """Views and downloads of a dataset on one day (UTC), added to in batches."""

    __tablename__ = "dataset_usage"

    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[object] = mapped_column(sa.Date, primary_key=True)
    views: Mapped[int] = mapped_column(sa.Integer, default=0, server_default="0")
    downloads: Mapped[int] = mapped_column(sa.Integer, default=0, server_default="0")
