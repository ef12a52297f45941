"""Webhook deliveries (docs/guides/events.rst, "Webhooks"): events are handed out to the
webhooks that want them, then each webhook's messages are sent (datahub.events.webhooks.sending)
and retried with backoff until they succeed or their attempts run out.

Any number of dispatchers, on any number of hosts, may run at once. Handing out holds the
cursor row's lock (one dispatcher at a time, each event once); claiming is
datahub.events.webhooks.claims': at least once, never lost (a receiver tells repeats apart by the
``webhook-id`` header). The loop never waits for a receiver: each webhook's batch is sent
in a thread of a pool of its own, a webhook has one batch on its way at a time and an
owner ``WEBHOOK_CONCURRENCY_PER_OWNER``, so a slow receiver holds its own thread only.
Each periodic job and each step runs apart from the others: one that raises stops nothing
else, and is logged once per distinct cause, not at every poll.
"""

import json
import logging
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.events.models import Event
from datahub.events.services import cloud_event
from datahub.events.webhooks.claims import (
    claim,
    due_webhooks,
    prepare,
    readable_ids,
    record,
    turn_off,
)
from datahub.events.webhooks.models import EventCursor, Webhook, WebhookDelivery
from datahub.events.webhooks.sending import send
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


def _wants(webhook, event):
    """:func:`_wanted`; a webhook whose stored filter makes it fail is turned off (it
    alone: the others get the event), saying why."""
    if not webhook.active:
        return False
    try:
        return _wanted(webhook, event)
    except Exception as exc:  # noqa: BLE001  (this webhook's data: it alone stops)
        turn_off(webhook, f"the dispatcher failed on its filter ({type(exc).__name__})")
        return False


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
        owner: readable_ids(users[owner], [event.id for event in events])
        for owner in owners
        if owner in users and users[owner].is_active
    }
    for event in events:
        body = json.dumps(cloud_event(event), separators=(",", ":"))
        for webhook in webhooks:
            if _wants(webhook, event) and event.id in readable.get(webhook.owner_id, ()):
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


def hand_out_all():
    while hand_out():
        pass


# -- each step apart ---------------------------------------------------------------------


class Failures:
    """Runs steps so that one that raises stops nothing else; logs each step's failure
    once per distinct cause (with its traceback), and when the step works again."""

    def __init__(self):
        self.lock, self.causes = threading.Lock(), {}

    def run(self, app, name, work):
        """``work()`` in an app context; its result, or None if it raised."""
        with app.app_context():
            try:
                result = work()
            except Exception as exc:  # noqa: BLE001  (logged; the other steps go on)
                db.session.rollback()
                self._failed(name, exc)
                return None
            finally:
                db.session.remove()
        with self.lock:
            recovered = self.causes.pop(name, None) is not None
        if recovered:
            log.info("webhook dispatcher: %s works again", name)
        return result

    def _failed(self, name, exc):
        cause = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"[:300]
        with self.lock:
            seen = self.causes.setdefault(name, set())
            new = cause not in seen
            seen.add(cause)
        if not new:
            return
        if isinstance(exc, sa.exc.OperationalError | sa.exc.InterfaceError):
            log.warning("webhook dispatcher: %s: database unavailable: %s", name, cause)
        else:
            log.error("webhook dispatcher: %s failed: %s", name, cause, exc_info=exc)


def _name(job):
    return f"{getattr(job, '__module__', '')}.{getattr(job, '__qualname__', repr(job))}"


def run_jobs(app, jobs, failures):
    for job in jobs:
        failures.run(app, _name(job), job)


def deliver(app, due, failures):
    """Claim, sign, send and record a batch of ``due``'s webhook's messages; how many
    were sent. Attempts start only within one ``WEBHOOK_TIMEOUT_SECONDS`` of the first
    (the claims' lease is three), and stop at the first that fails (the receiver is down,
    or refusing: the rest would fail alike, each counting towards turning it off); the
    rest are given back untried."""
    messages = failures.run(app, "claiming", lambda: prepare(claim(due))) or []
    if not messages:
        return 0
    timeout = float(app.config["WEBHOOK_TIMEOUT_SECONDS"])
    started, outcomes = time.monotonic(), []
    for message in messages:
        if outcomes and (outcomes[-1].error or time.monotonic() - started >= timeout):
            break
        outcomes.append(send(app.config, message))
    unsent = [message.delivery_id for message in messages[len(outcomes) :]]
    failures.run(app, "recording", lambda: record(app.config, outcomes, unsent))
    return len(outcomes)


# -- the loop ----------------------------------------------------------------------------

ONCE = Failures()


def run_once(app, also=()):
    """Call each of ``also`` (the worker's own periodic work: its triggers), hand out every
    new event, then send a batch of each webhook's due messages, here, one webhook after
    another; how many messages were sent. Each step apart (:class:`Failures`)."""
    run_jobs(app, also, ONCE)
    ONCE.run(app, "handing out", hand_out_all)
    return sum(deliver(app, due, ONCE) for due in ONCE.run(app, "choosing", due_webhooks) or [])


class Dispatcher:
    """Delivers webhooks from a thread of a worker process until ``stop`` is set: every
    ``WEBHOOK_POLL_SECONDS`` it calls each of ``also`` (the pipeline triggers' sweep) and
    hands the new events out; it starts sending as soon as a thread of its
    ``WEBHOOK_CONCURRENCY`` is free, never waiting for a receiver's answer."""

    def __init__(self, app, stop, also=()):
        self.app, self.stop, self.also = app, stop, tuple(also)
        self.failures, self.wake = Failures(), threading.Event()
        self.lock, self.busy = threading.Lock(), {}  # webhook id: owner id, on its way
        self.thread = threading.Thread(target=self._loop, daemon=True, name="webhook-dispatcher")

    def start(self):
        self.thread.start()
        return self

    def _loop(self):
        app, poll = self.app, float(self.app.config["WEBHOOK_POLL_SECONDS"])
        threads = int(app.config["WEBHOOK_CONCURRENCY"])
        with ThreadPoolExecutor(threads, thread_name_prefix="webhook-send") as pool:
            next_poll = time.monotonic()
            while not self.stop.is_set():
                if time.monotonic() >= next_poll:
                    next_poll = time.monotonic() + poll
                    run_jobs(app, self.also, self.failures)
                    self.failures.run(app, "handing out", hand_out_all)
                self.failures.run(app, "choosing", lambda: self._start(pool, threads))
                self.wake.wait(max(0.0, next_poll - time.monotonic()))
                self.wake.clear()

    def _start(self, pool, threads):
        """Start sending to as many due webhooks as there are free threads: none with a
        batch on its way, nor of an owner with as many as they may have."""
        with self.lock:
            busy = dict(self.busy)
        if len(busy) >= threads:
            return
        per_owner = int(self.app.config["WEBHOOK_CONCURRENCY_PER_OWNER"])
        owners = Counter(busy.values())
        for due in due_webhooks():
            if len(busy) >= threads:
                break
            if due.webhook_id in busy or owners[due.owner_id] >= per_owner:
                continue
            busy[due.webhook_id] = due.owner_id
            owners[due.owner_id] += 1
            with self.lock:
                self.busy[due.webhook_id] = due.owner_id
            pool.submit(self._deliver, due)

    def _deliver(self, due):
        try:
            deliver(self.app, due, self.failures)
        finally:
            with self.lock:
                self.busy.pop(due.webhook_id, None)
            self.wake.set()
