"""Which webhook messages to send now, claiming them, and recording how they went
(docs/guides/events.rst, "Webhooks"); the loop is datahub.events.webhooks.dispatch's.

A webhook has at most one batch of messages on its way at a time, from any dispatcher on
any host: a webhook with a message claimed (``sending``, its lease running) is not chosen
again until that message is recorded. Messages are claimed with one atomic UPDATE, and a
claim whose dispatcher died is taken again after three times ``WEBHOOK_TIMEOUT_SECONDS``:
a batch stops starting attempts once one timeout has passed, so it ends within two.
"""

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from flask import current_app
from sqlalchemy.orm import aliased

from datahub.app.extensions import db
from datahub.events.models import Event
from datahub.events.services import readable_events
from datahub.events.webhooks.models import Webhook, WebhookDelivery
from datahub.events.webhooks.sending import Message, signed_headers
from datahub.events.webhooks.services import PING
from datahub.identity.models import User
from datahub.platform.database import utcnow

log = logging.getLogger("datahub.webhooks")

BATCH = 20  # the messages of one webhook claimed at once, sent one after another


@dataclass(frozen=True)
class Due:
    """A webhook with messages to send now."""

    webhook_id: int
    owner_id: str
    pings_only: bool  # the webhook is off: only its pings are sent


def readable_ids(user, event_ids):
    """Which of ``event_ids`` ``user`` may read."""
    query = readable_events(sa.select(Event.id).where(Event.id.in_(event_ids)), user)
    return set(db.session.scalars(query))


def _lease_start(now):
    return now - timedelta(seconds=3 * float(current_app.config["WEBHOOK_TIMEOUT_SECONDS"]))


def _claimable(now):
    return sa.or_(
        sa.and_(WebhookDelivery.status == "pending", WebhookDelivery.next_attempt_at <= now),
        sa.and_(
            WebhookDelivery.status == "sending", WebhookDelivery.claimed_at < _lease_start(now)
        ),
    )


def _on_its_way(now):
    """The webhook has a message claimed whose lease still runs."""
    other = aliased(WebhookDelivery)
    return sa.exists().where(
        other.webhook_id == WebhookDelivery.webhook_id,
        other.status == "sending",
        other.claimed_at >= _lease_start(now),
    )


def _resting(now):
    """The webhook's last attempt failed less than the first retry delay ago: while its
    receiver fails, it is tried once per that delay (a failed attempt counts once towards
    turning it off, however many messages wait)."""
    rest = timedelta(seconds=float(current_app.config["WEBHOOK_RETRY_SECONDS"][0]))
    other = aliased(WebhookDelivery)
    return sa.and_(
        Webhook.failures > 0,
        sa.exists().where(other.webhook_id == Webhook.id, other.last_attempt_at > now - rest),
    )


def due_webhooks():
    """The webhooks with messages to send now, none on their way and not resting, the
    one with the oldest message first (an off webhook: only for its pings)."""
    now = utcnow()
    sendable = sa.or_(Webhook.active.is_(True), WebhookDelivery.event_type == PING)
    rows = db.session.execute(
        sa.select(WebhookDelivery.webhook_id, Webhook.owner_id, Webhook.active)
        .join(Webhook, Webhook.id == WebhookDelivery.webhook_id)
        .where(_claimable(now), sendable, ~_on_its_way(now), ~_resting(now))
        .group_by(WebhookDelivery.webhook_id, Webhook.owner_id, Webhook.active)
        .order_by(sa.func.min(WebhookDelivery.id))
    ).all()
    db.session.commit()
    return [Due(webhook_id, owner_id, not active) for webhook_id, owner_id, active in rows]


def claim(due, limit=BATCH):
    """Take up to ``limit`` of the webhook's due messages, oldest first (one atomic
    UPDATE); their ids."""
    now = utcnow()
    oldest = (
        sa.select(WebhookDelivery.id)
        .where(WebhookDelivery.webhook_id == due.webhook_id, _claimable(now))
        .order_by(WebhookDelivery.id)
        .limit(limit)
    )
    if due.pings_only:
        oldest = oldest.where(WebhookDelivery.event_type == PING)
    claimed = db.session.scalars(
        sa.update(WebhookDelivery)
        .where(WebhookDelivery.id.in_(oldest.scalar_subquery()), _claimable(now))
        .values(status="sending", claimed_at=now)
        .returning(WebhookDelivery.id)
        .execution_options(synchronize_session=False)
    ).all()
    db.session.commit()
    return sorted(claimed)


def _skip_reason(owner, readable, delivery):
    if owner is None or not owner.is_active:
        return "the webhook's owner is deactivated"
    if delivery.event_id is not None and delivery.event_id not in readable:
        return "the webhook's owner may no longer read what the event is about"
    return None


def prepare(delivery_ids):
    """The claimed messages ``delivery_ids`` (of one webhook), signed, in one
    transaction. A message whose webhook's owner is deactivated, or may no longer read its
    event, is skipped here (and recorded so); a webhook whose message cannot be signed is
    turned off."""
    if not delivery_ids:
        return []
    deliveries = db.session.scalars(
        sa.select(WebhookDelivery)
        .where(WebhookDelivery.id.in_(delivery_ids))
        .order_by(WebhookDelivery.id)
    ).all()
    webhook = deliveries and db.session.get(Webhook, deliveries[0].webhook_id)
    if not webhook:
        db.session.commit()
        return []  # deleted meanwhile, its deliveries with it
    owner = db.session.get(User, webhook.owner_id)
    events = [d.event_id for d in deliveries if d.event_id is not None]
    readable = readable_ids(owner, events) if owner and owner.is_active else set()
    now, messages = datetime.now(UTC), []
    for delivery in deliveries:
        reason = _skip_reason(owner, readable, delivery)
        if reason:
            delivery.status, delivery.error = "skipped", reason
            continue
        try:
            headers = signed_headers(webhook, delivery, now)
        except Exception as exc:  # noqa: BLE001  (the webhook's own data: it alone stops)
            _broken(webhook, delivery, f"signing failed ({type(exc).__name__})")
            continue
        messages.append(Message(delivery.id, webhook.id, webhook.url, delivery.payload, headers))
    db.session.commit()  # no transaction stays open while the receivers answer
    return messages


def record(config, outcomes, unsent=()):
    """Record ``outcomes`` in one transaction, and give the claims of ``unsent`` back
    (untried). The webhook's row is locked first (its failure count)."""
    if not outcomes and not unsent:
        return
    webhook_ids = {outcome.webhook_id for outcome in outcomes}
    webhooks = {
        webhook.id: webhook
        for webhook in db.session.scalars(
            sa.select(Webhook).where(Webhook.id.in_(webhook_ids)).with_for_update()
        )
    }
    ids = [outcome.delivery_id for outcome in outcomes] + list(unsent)
    deliveries = {
        delivery.id: delivery
        for delivery in db.session.scalars(
            sa.select(WebhookDelivery)
            .where(WebhookDelivery.id.in_(ids))
            .execution_options(populate_existing=True)
        )
    }
    now = utcnow()
    for outcome in sorted(outcomes, key=lambda outcome: outcome.delivery_id):
        delivery = deliveries.get(outcome.delivery_id)
        webhook = webhooks.get(outcome.webhook_id)
        if webhook is None or delivery is None or delivery.status != "sending":
            continue  # deleted meanwhile, or redelivered: its new claim decides
        if webhook.failures and outcome.error is None and not outcome.broken:
            _receiver_back(webhook, now)
        _apply(config, webhook, delivery, outcome, now)
    for delivery_id in unsent:
        delivery = deliveries.get(delivery_id)
        if delivery is not None and delivery.status == "sending":
            delivery.status, delivery.claimed_at = "pending", None
    db.session.commit()


def _apply(config, webhook, delivery, outcome, now):
    delivery.attempts += 1
    delivery.response_status, delivery.error = outcome.status, outcome.error
    delivery.duration_ms, delivery.last_attempt_at = round(outcome.seconds * 1000), now
    delivery.claimed_at = None
    if outcome.broken:
        _broken(webhook, delivery, outcome.error)
        return
    if outcome.error is None:
        delivery.status, delivery.delivered_at = "succeeded", now
        webhook.failures = 0
        return
    delays = config["WEBHOOK_RETRY_SECONDS"]
    if delivery.attempts > len(delays):
        delivery.status = "failed"
    else:
        delivery.status = "pending"
        delivery.next_attempt_at = now + timedelta(seconds=float(delays[delivery.attempts - 1]))
    if delivery.event_type != PING:
        webhook.failures += 1
        limit = int(config["WEBHOOK_MAX_FAILURES"])
        if webhook.active and webhook.failures >= limit:
            turn_off(webhook, f"{limit} deliveries in a row failed")


def _receiver_back(webhook, now):
    """A receiver that failed answers again: the messages that failed meanwhile are due
    now, rather than at their next retry (up to an hour away)."""
    db.session.execute(
        sa.update(WebhookDelivery)
        .where(
            WebhookDelivery.webhook_id == webhook.id,
            WebhookDelivery.status == "pending",
            WebhookDelivery.next_attempt_at > now,
        )
        .values(next_attempt_at=now)
        .execution_options(synchronize_session=False)
    )


def _broken(webhook, delivery, why):
    """The dispatcher itself failed on this message (not the receiver): it fails, and
    the webhook is turned off, saying which message, until its owner turns it on again."""
    delivery.status, delivery.error, delivery.claimed_at = "failed", why[:255], None
    turn_off(webhook, f"the dispatcher failed on message msg_{delivery.id}: {why}"[:255])


def turn_off(webhook, reason):
    """Turn ``webhook`` off (if on), saying why to its owner."""
    if webhook.active:
        webhook.active, webhook.disabled_reason = False, reason
        log.warning("webhook %s turned off: %s", webhook.id, reason)
