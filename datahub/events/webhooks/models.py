"""Webhook subscriptions, their deliveries, and how far the events have been handed out
(docs/guides/events.rst, "Webhooks")."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime, utcnow

DELIVERY_STATUSES = ("pending", "sending", "succeeded", "failed", "skipped")


class Webhook(db.Model):
    __tablename__ = "webhooks"
    __table_args__ = (
        sa.Index("ix_webhooks_owner_id_id", "owner_id", "id"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    owner_id: Mapped[str] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"))
    url: Mapped[str] = mapped_column(sa.String(2048))
    event_types: Mapped[list] = mapped_column(sa.JSON, default=list)  # empty: every type
    # Only the events about this dataset (no foreign key: its deletion is an event too).
    dataset_id: Mapped[int | None] = mapped_column(sa.Integer)
    # The Standard Webhooks signing secret, ``whsec_<base64>``: shown once, kept to sign.
    secret: Mapped[str] = mapped_column(sa.String(64))
    active: Mapped[bool] = mapped_column(sa.Boolean, default=True)
    failures: Mapped[int] = mapped_column(sa.Integer, default=0)  # consecutive, reset by a success
    disabled_reason: Mapped[str | None] = mapped_column(sa.String(255))
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)


class WebhookDelivery(db.Model):
    """One event (or a ping) for one webhook: a message sent until it succeeds or its
    attempts run out. Its ``webhook-id`` header is ``msg_<id>`` on every attempt."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        sa.Index("ix_webhook_deliveries_webhook_id_id", "webhook_id", "id"),
        sa.Index("ix_webhook_deliveries_status_next_attempt_at", "status", "next_attempt_at"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    webhook_id: Mapped[int] = mapped_column(sa.ForeignKey("webhooks.id", ondelete="CASCADE"))
    event_id: Mapped[int | None] = mapped_column(sa.Integer)  # None: a ping
    event_type: Mapped[str] = mapped_column(sa.String(64))
    payload: Mapped[str] = mapped_column(sa.Text)  # the body, as sent on every attempt
    status: Mapped[str] = mapped_column(sa.String(16), default="pending")
    attempts: Mapped[int] = mapped_column(sa.Integer, default=0)
    next_attempt_at: Mapped[object | None] = mapped_column(UTCDateTime)
    # When a dispatcher took it (``sending``); one that died is retried after a lease.
    claimed_at: Mapped[object | None] = mapped_column(UTCDateTime)
    response_status: Mapped[int | None] = mapped_column(sa.Integer)
    duration_ms: Mapped[int | None] = mapped_column(sa.Integer)
    error: Mapped[str | None] = mapped_column(sa.String(255))
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    last_attempt_at: Mapped[object | None] = mapped_column(UTCDateTime)
    delivered_at: Mapped[object | None] = mapped_column(UTCDateTime)


class EventCursor(db.Model):
    """The last event id handed out to the webhooks (one row, ``name = 'webhooks'``)."""

    __tablename__ = "event_cursors"

    name: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    last_event_id: Mapped[int] = mapped_column(sa.Integer, default=0)
