"""What the worker read of a content: its schema and profile, shared by every version
with the same bytes (``sha256`` and size)."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime

STATUSES = ("pending", "ready", "failed")


class ContentProfile(db.Model):
    """A content's schema and profile: ``pending`` until a worker has read them, then
    ``ready`` or ``failed`` (``error`` says why). A worker holds a pending row while it
    reads (``claimed_until``); one killed meanwhile lets it go when that time passes, and
    ``attempts`` stops a file that kills every worker that reads it."""

    __tablename__ = "content_profiles"
    __table_args__ = (
        # The worker takes new contents first (``backfill`` false), oldest first.
        sa.Index("ix_content_profiles_status_backfill", "status", "backfill", "requested_at"),
    )

    sha256: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    size_bytes: Mapped[int] = mapped_column(sa.BigInteger, primary_key=True)
    status: Mapped[str] = mapped_column(sa.String(16))
    backfill: Mapped[bool] = mapped_column(sa.Boolean, default=False, server_default=sa.false())
    requested_at: Mapped[object] = mapped_column(UTCDateTime)
    claimed_until: Mapped[object | None] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(sa.Integer, default=0, server_default="0")
    # {"columns": [{"name", "type", "nullable"}], "rows"} and the profile's body.
    schema: Mapped[dict | None] = mapped_column(sa.JSON)
    profile: Mapped[dict | None] = mapped_column(sa.JSON)
    error: Mapped[str | None] = mapped_column(sa.Text)
    computed_at: Mapped[object | None] = mapped_column(UTCDateTime)
