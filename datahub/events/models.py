"""The outbox: one row per event, written in the transaction of the change it tells of."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime


class Event(db.Model):
    """A CloudEvent (docs/guides/events.rst). Its id is its position: ids are committed in
    order (datahub.events.outbox), so ``after=<id>`` never skips one."""

    __tablename__ = "events"
    __table_args__ = (
        sa.Index("ix_events_dataset_id_id", "dataset_id", "id"),
        {"sqlite_autoincrement": True},  # an id is never given twice, even after retention
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    type: Mapped[str] = mapped_column(sa.String(64))
    source: Mapped[str] = mapped_column(sa.String(255))
    time: Mapped[object] = mapped_column(UTCDateTime)
    data: Mapped[dict] = mapped_column(sa.JSON)
    # Who may read it (datahub.events.access): the dataset or pipeline it is about (no
    # foreign key: the events of a deleted resource stay), and that resource's owner and
    # visibility when it happened.
    dataset_id: Mapped[int | None] = mapped_column(sa.Integer)
    pipeline_id: Mapped[int | None] = mapped_column(sa.Integer)
    owner_id: Mapped[str | None] = mapped_column(sa.String(36))
    private: Mapped[bool] = mapped_column(sa.Boolean, default=False)
