"""A dataset's checks, and the audit of each of its versions made while it had some."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime


class DatasetChecks(db.Model):
    """The checks every new version of a dataset must pass to be published (a list, as
    its writers set it whole)."""

    __tablename__ = "dataset_checks"

    dataset_id: Mapped[int] = mapped_column(
        sa.ForeignKey("datasets.id", ondelete="CASCADE"), primary_key=True
    )
    checks: Mapped[list] = mapped_column(sa.JSON)
    updated_at: Mapped[object] = mapped_column(UTCDateTime)


class VersionAudit(db.Model):
    """The checks of one version: ``pending`` until a worker has run them (it holds the
    row meanwhile: ``claimed_until``, as profiles are held), then ``done`` with their
    ``results``; ``checks`` are the dataset's checks when the version was made."""

    __tablename__ = "version_audits"
    __table_args__ = (
        sa.ForeignKeyConstraint(
            ["dataset_id", "version"],
            ["dataset_versions.dataset_id", "dataset_versions.version"],
            ondelete="CASCADE",
        ),
        sa.Index("ix_version_audits_status_requested_at", "status", "requested_at"),
    )

    dataset_id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    version: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    status: Mapped[str] = mapped_column(sa.String(16))
    checks: Mapped[list] = mapped_column(sa.JSON)
    results: Mapped[list | None] = mapped_column(sa.JSON)
    requested_at: Mapped[object] = mapped_column(UTCDateTime)
    claimed_until: Mapped[object | None] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(sa.Integer, default=0, server_default="0")
    checked_at: Mapped[object | None] = mapped_column(UTCDateTime)
    # Who published it although it failed its checks (a manager; audited), and when.
    published_by: Mapped[str | None] = mapped_column(sa.ForeignKey("users.id", ondelete="SET NULL"))
