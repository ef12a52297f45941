"""What can be done to webhooks, independent of HTTP (docs/guides/events.rst, "Webhooks")."""

import base64
import json
import secrets
import uuid

import sqlalchemy as sa
from flask import current_app

from datahub.app.extensions import db
from datahub.datasets.errors import DatasetNotFound
from datahub.datasets.models import Dataset
from datahub.events.webhooks.errors import (
    DeliveryNotFound,
    TooManyQueuedRequests,
    WebhookNotFound,
    WebhookUrlRefused,
)
from datahub.events.webhooks.models import Webhook, WebhookDelivery
from datahub.events.webhooks.urls import UrlRefused, resolve
from datahub.identity.models import User
from datahub.platform.database import isoformat, utcnow, valid_id
from datahub.resources.access import readable_ids

PING = "datahub.webhook.ping"
FIELDS = ("url", "event_types", "dataset_id", "active")


def new_secret():
    """A Standard Webhooks secret: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def check_url(url):
    """:class:`WebhookUrlRefused` (422 at ``url``) unless a delivery could go there now."""
    config = current_app.config
    try:
        resolve(url, config["WEBHOOK_ALLOW_HTTP"], config["WEBHOOK_ALLOW_PRIVATE"])
    except UrlRefused as refused:
        raise WebhookUrlRefused(str(refused)) from None


def webhooks_query(user):
    return sa.select(Webhook).where(Webhook.owner_id == user.id).order_by(Webhook.id)


def get_webhook(user, webhook_id):
    """The caller's webhook; another user's is not found, as a missing one is."""
    webhook = db.session.get(Webhook, webhook_id) if valid_id(webhook_id) else None
    if webhook is None or webhook.owner_id != user.id:
        raise WebhookNotFound()
    return webhook


def _require_readable_dataset(user, values):
    """:class:`DatasetNotFound` unless ``dataset_id`` (if given) is a dataset ``user`` may
    read."""
    dataset_id = values.get("dataset_id")
    if dataset_id is not None and not (
        db.session.get(Dataset, dataset_id) and readable_ids(Dataset, [dataset_id], user)
    ):
        raise DatasetNotFound()


def create_webhook(user, values):
    _require_readable_dataset(user, values)
    check_url(values["url"])
    webhook = Webhook(
        owner_id=user.id,
        url=values["url"],
        event_types=values.get("event_types") or [],
        dataset_id=values.get("dataset_id"),
        secret=new_secret(),
        active=values.get("active", True),
        failures=0,
        created_at=utcnow(),
    )
    db.session.add(webhook)
    db.session.commit()
    return webhook


def update_webhook(user, webhook, values):
    """Apply a PATCH; turning a webhook on again clears its failures."""
    _require_readable_dataset(user, values)
    if "url" in values:
        check_url(values["url"])
    for field in FIELDS:
        if field in values:
            setattr(webhook, field, values[field])
    if values.get("active"):
        webhook.failures, webhook.disabled_reason = 0, None
    db.session.commit()
    return webhook


def delete_webhook(webhook):
    db.session.delete(webhook)  # its deliveries go with it (ON DELETE CASCADE)
    db.session.commit()


def deliveries_query(webhook):
    return (
        sa.select(WebhookDelivery)
        .where(WebhookDelivery.webhook_id == webhook.id)
        .order_by(WebhookDelivery.id.desc())
    )


def get_delivery(webhook, delivery_id):
    delivery = db.session.get(WebhookDelivery, delivery_id) if valid_id(delivery_id) else None
    if delivery is None or delivery.webhook_id != webhook.id:
        raise DeliveryNotFound()
    return delivery


def _queued_requests(owner_id):
    """The owner's pings and redeliveries not yet tried (a redelivered message is one
    that was tried before and has no attempt since)."""
    requested = sa.or_(
        WebhookDelivery.event_type == PING, WebhookDelivery.last_attempt_at.is_not(None)
    )
    return db.session.scalar(
        sa.select(sa.func.count())
        .select_from(WebhookDelivery)
        .join(Webhook, Webhook.id == WebhookDelivery.webhook_id)
        .where(
            Webhook.owner_id == owner_id,
            WebhookDelivery.status.in_(("pending", "sending")),
            WebhookDelivery.attempts == 0,
            requested,
        )
    )


def _require_room(webhook):
    """:class:`TooManyQueuedRequests` when the webhook's owner has
    ``WEBHOOK_QUEUED_REQUESTS`` pings and redeliveries waiting already. Called in the
    transaction that adds one, the owner's row locked first, as datahub.quotas does (on
    SQLite, a writing request's BEGIN IMMEDIATE is the lock)."""
    owner = sa.select(User.id).where(User.id == webhook.owner_id)
    db.session.execute(owner.with_for_update(key_share=True))
    limit = int(current_app.config["WEBHOOK_QUEUED_REQUESTS"])
    if _queued_requests(webhook.owner_id) >= limit:
        db.session.rollback()
        # Each waits for its webhook's messages before it, one timeout at most each.
        raise TooManyQueuedRequests(int(current_app.config["WEBHOOK_TIMEOUT_SECONDS"]))


def redeliver(delivery):
    """Send the same message again, soon, with a fresh schedule of attempts."""
    _require_room(db.session.get(Webhook, delivery.webhook_id))
    delivery.status, delivery.attempts = "pending", 0
    delivery.next_attempt_at, delivery.claimed_at = utcnow(), None
    db.session.commit()
    return delivery


def ping(webhook):
    """A ``datahub.webhook.ping`` message to this webhook alone, sent soon (also when the
    webhook is off: it is how one checks a receiver before turning it on)."""
    _require_room(webhook)
    now = utcnow()
    event = {
        "specversion": "1.0",
        "id": f"ping-{uuid.uuid4()}",
        "source": f"/api/v1/webhooks/{webhook.id}",
        "type": PING,
        "time": isoformat(now),
        "datacontenttype": "application/json",
        "data": {"webhook_id": webhook.id},
    }
    delivery = WebhookDelivery(
        webhook_id=webhook.id,
        event_id=None,
        event_type=PING,
        payload=json.dumps(event, separators=(",", ":")),
        status="pending",
        attempts=0,
        next_attempt_at=now,
        created_at=now,
    )
    db.session.add(delivery)
    db.session.commit()
    return delivery
