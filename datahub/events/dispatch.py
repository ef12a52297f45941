"""Webhook deliveries (docs/guides/events.rst, "Webhooks"): events are handed out to the
webhooks that want them, then each message is sent (datahub.events.sending) and retried
with backoff until it succeeds or its attempts run out.

Any number of dispatchers, on any number of hosts, may run at once. Handing out holds the
cursor row's lock (one dispatcher at a time, each event once); messages are claimed with
one atomic UPDATE, and a claim whose dispatcher died is taken again after three times
``WEBHOOK_TIMEOUT_SECONDS`` (an attempt takes at most one): at least once, never lost (a
receiver tells repeats apart by the ``webhook-id`` header). A cycle reads and signs its
claimed messages in one transaction, sends them, and records how they went in one more:
the database's work does not grow with each message's round trips.
"""

import functools
import json
import logging
import threading
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from flask import current_app

from datahub.app.extensions import db
from datahub.events.models import Event
from datahub.events.sending import Message, send, signed_headers
from datahub.events.services import cloud_event, readable_events
from datahub.events.webhook_models import EventCursor, Webhook, WebhookDelivery
from datahub.events.webhooks import PING
from datahub.identity.models import User
from datahub.platform.database import utcnow

log = logging.getLogger("datahub.webhooks")

CURSOR = "webhooks"
HAND_OUT_BATCH = 500


# -- handing events out ------------------------------------------------------------------


def _wanted(webhook, event):
    """Of its types and dataset, and since the webhook was made (never the history)."""
    return (
        event.time >= webhook.created_at
        and (not webhook.event_types or event.type in webhook.event_types)
        and (webhook.dataset_id is None or webhook.dataset_id == event.dataset_id)
    )


def _readable_ids(user, event_ids):
    query = readable_events(sa.select(Event.id).where(Event.id.in_(event_ids)), user)
    return set(db.session.scalars(query))


def _anything_new():
    """Whether an event is past the cursor: a read, so that an idle loop writes nothing."""
    last = sa.select(EventCursor.last_event_id).where(EventCursor.name == CURSOR)
    newer = sa.select(Event.id).where(Event.id > sa.func.coalesce(last.scalar_subquery(), 0))
    found = db.session.scalar(newer.limit(1)) is not None
    db.session.commit()
    return found


def hand_out():
    """Make the deliveries of the events after the cursor (one batch); how many events."""
    if not _anything_new():
        return 0
    # The lock first (SQLite's write lock; the row's on PostgreSQL), then the cursor.
    db.session.execute(sa.update(EventCursor).where(EventCursor.name == CURSOR).values(name=CURSOR))
    cursor = db.session.scalar(
        sa.select(EventCursor).where(EventCursor.name == CURSOR).with_for_update()
    )
    if cursor is None:  # the migration makes it; the tests' emptying removes it
        cursor = EventCursor(name=CURSOR, last_event_id=0)
        db.session.add(cursor)
        db.session.flush()
    events = db.session.scalars(
        sa.select(Event)
        .where(Event.id > cursor.last_event_id)
        .order_by(Event.id)
        .limit(HAND_OUT_BATCH)
    ).all()
    if not events:
        db.session.commit()
        return 0
    now = utcnow()
    webhooks = db.session.scalars(sa.select(Webhook).where(Webhook.active.is_(True))).all()
    owners = {webhook.owner_id for webhook in webhooks}
    users = {
        user.id: user for user in db.session.scalars(sa.select(User).where(User.id.in_(owners)))
    }
    readable = {
        owner: _readable_ids(users[owner], [event.id for event in events])
        for owner in owners
        if owner in users and users[owner].is_active
    }
    for event in events:
        body = json.dumps(cloud_event(event), separators=(",", ":"))
        for webhook in webhooks:
            if _wanted(webhook, event) and event.id in readable.get(webhook.owner_id, ()):
                db.session.add(
                    WebhookDelivery(
                        webhook_id=webhook.id,
                        event_id=event.id,
                        event_type=event.type,
                        payload=body,
                        status="pending",
                        attempts=0,
                        next_attempt_at=now,
                        created_at=now,
                    )
                )
    cursor.last_event_id = events[-1].id
    db.session.commit()
    return len(events)


# -- sending -----------------------------------------------------------------------------


def _claimable(now):
    lease = now - timedelta(seconds=3 * float(current_app.config["WEBHOOK_TIMEOUT_SECONDS"]))
    return sa.or_(
        sa.and_(WebhookDelivery.status == "pending", WebhookDelivery.next_attempt_at <= now),
        sa.and_(WebhookDelivery.status == "sending", WebhookDelivery.claimed_at < lease),
    )


def due(limit=100):
    """The ids of the messages to send now, oldest first (an off webhook's wait, but its
    pings)."""
    query = (
        sa.select(WebhookDelivery.id)
        .join(Webhook, Webhook.id == WebhookDelivery.webhook_id)
        .where(
            _claimable(utcnow()),
            sa.or_(Webhook.active.is_(True), WebhookDelivery.event_type == PING),
        )
        .order_by(WebhookDelivery.id)
        .limit(limit)
    )
    ids = db.session.scalars(query).all()
    db.session.commit()
    return ids


def claim(delivery_ids):
    """Take those of messages ``delivery_ids`` that are still due (one atomic UPDATE); their
    ids."""
    if not delivery_ids:
        return []
    now = utcnow()
    claimed = db.session.scalars(
        sa.update(WebhookDelivery)
        .where(WebhookDelivery.id.in_(delivery_ids), _claimable(now))
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
    """The claimed messages ``delivery_ids``, signed, in one transaction. A message whose
    webhook's owner is deactivated, or may no longer read its event, is skipped here
    (and recorded so)."""
    if not delivery_ids:
        return []
    deliveries = db.session.scalars(
        sa.select(WebhookDelivery)
        .where(WebhookDelivery.id.in_(delivery_ids))
        .order_by(WebhookDelivery.id)
    ).all()
    webhooks = {
        webhook.id: webhook
        for webhook in db.session.scalars(
            sa.select(Webhook).where(Webhook.id.in_({d.webhook_id for d in deliveries}))
        )
    }
    owner_ids = {webhook.owner_id for webhook in webhooks.values()}
    owners = {
        user.id: user for user in db.session.scalars(sa.select(User).where(User.id.in_(owner_ids)))
    }
    readable = {
        owner.id: _readable_ids(
            owner,
            [
                delivery.event_id
                for delivery in deliveries
                if delivery.event_id is not None
                and delivery.webhook_id in webhooks
                and webhooks[delivery.webhook_id].owner_id == owner.id
            ],
        )
        for owner in owners.values()
        if owner.is_active
    }
    now, messages = datetime.now(UTC), []
    for delivery in deliveries:
        webhook = webhooks.get(delivery.webhook_id)
        if webhook is None:
            continue  # deleted meanwhile, its deliveries with it
        owner = owners.get(webhook.owner_id)
        reason = _skip_reason(owner, readable.get(webhook.owner_id, ()), delivery)
        if reason:
            delivery.status, delivery.error = "skipped", reason
            continue
        headers = signed_headers(webhook, delivery, now)
        messages.append(Message(delivery.id, webhook.id, webhook.url, delivery.payload, headers))
    db.session.commit()  # no transaction stays open while the receivers answer
    return messages


def record(config, outcomes):
    """Record ``outcomes`` in one transaction. The webhooks' rows are locked first, in id
    order (their failure counts; two dispatchers never wait for each other in a cycle)."""
    if not outcomes:
        return
    webhooks = {
        webhook.id: webhook
        for webhook in db.session.scalars(
            sa.select(Webhook)
            .where(Webhook.id.in_({outcome.webhook_id for outcome in outcomes}))
            .order_by(Webhook.id)
            .with_for_update()
        )
    }
    deliveries = {
        delivery.id: delivery
        for delivery in db.session.scalars(
            sa.select(WebhookDelivery)
            .where(WebhookDelivery.id.in_([outcome.delivery_id for outcome in outcomes]))
            .execution_options(populate_existing=True)
        )
    }
    now = utcnow()
    for outcome in sorted(outcomes, key=lambda outcome: outcome.delivery_id):
        delivery = deliveries.get(outcome.delivery_id)
        webhook = webhooks.get(outcome.webhook_id)
        if webhook is None or delivery is None or delivery.status != "sending":
            continue  # deleted meanwhile, or redelivered: its new claim decides
        _apply(config, webhook, delivery, outcome, now)
    db.session.commit()


def _apply(config, webhook, delivery, outcome, now):
    delivery.attempts += 1
    delivery.response_status, delivery.error = outcome.status, outcome.error
    delivery.duration_ms, delivery.last_attempt_at = round(outcome.seconds * 1000), now
    delivery.claimed_at = None
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
            webhook.active = False
            webhook.disabled_reason = f"{limit} deliveries in a row failed"
            log.warning("webhook %s turned off: %s", webhook.id, webhook.disabled_reason)


# -- the loop ----------------------------------------------------------------------------


def run_once(app, pool=None, also=()):
    """Call each of ``also`` (the worker's own periodic work: its triggers), hand out every
    new event, then send every due message (in ``pool``'s threads, or here) and record how
    each went; how many messages were sent."""
    with app.app_context():
        try:
            for work in also:
                work()
            while hand_out():
                pass
            messages = prepare(claim(due()))
        finally:
            db.session.remove()
    if not messages:
        return 0
    if pool is None:
        outcomes = [send(app.config, message) for message in messages]
    else:
        outcomes = list(pool.map(functools.partial(send, app.config), messages))
    with app.app_context():
        try:
            record(app.config, outcomes)
        finally:
            db.session.remove()
    return len(messages)


class Dispatcher:
    """Delivers webhooks from a thread of a worker process until ``stop`` is set: every
    ``WEBHOOK_POLL_SECONDS``, with ``WEBHOOK_CONCURRENCY`` messages on their way at once;
    calls each of ``also`` as often (the pipeline triggers' sweep)."""

    def __init__(self, app, stop, also=()):
        self.app, self.stop, self.also = app, stop, tuple(also)
        self.thread = threading.Thread(target=self._loop, daemon=True, name="webhook-dispatcher")

    def start(self):
        self.thread.start()
        return self

    def _loop(self):
        from concurrent.futures import ThreadPoolExecutor

        poll = float(self.app.config["WEBHOOK_POLL_SECONDS"])
        with ThreadPoolExecutor(int(self.app.config["WEBHOOK_CONCURRENCY"])) as pool:
            while not self.stop.is_set():
                try:
                    run_once(self.app, pool, self.also)
                except (sa.exc.OperationalError, sa.exc.InterfaceError) as exc:
                    log.warning(
                        "webhook dispatcher: database unavailable: %s", str(exc).splitlines()[0]
                    )
                except Exception:
                    log.exception("webhook dispatcher: error, retrying")
                self.stop.wait(poll)
