"""The live stream, ``GET /api/v1/events/stream``: the events a caller may read as
Server-Sent Events (docs/guides/events.rst, "The live stream").

:class:`EventFeed` is what a process's stream hub (datahub.platform.serving.streams) asks
every ``EVENTS_STREAM_POLL_SECONDS``: one query for the newest id, and when there are new
events one query of their users' rows and one query per user with open streams, whatever
the number of their streams. That row is read before anything is sent: a demotion is
applied, and a deactivation or password change ends the stream, from the first poll
after it. The rest (a logout of the stream's session, a revoked personal access token)
is checked every ``EVENTS_STREAM_RECHECK_SECONDS``: a stream ends then too."""

import dataclasses
import json
import time

import sqlalchemy as sa
from flask import Response, current_app, request

from datahub.app.extensions import db
from datahub.app.registry import per_app
from datahub.events.errors import TooManyStreams
from datahub.events.models import Event
from datahub.events.services import cloud_event, readable_events
from datahub.identity.errors import InvalidToken, NotAuthenticated, TokenRevoked
from datahub.identity.models import User
from datahub.platform.serving import streams

BATCH = 500  # events read per user and poll; a stream far behind catches up over polls
RETRY_MS = 2000  # the client's wait before it reconnects (the SSE ``retry`` field)


class Subscriber:
    """One open stream: who reads it, what it asks for, and the last id it was sent."""

    def __init__(self, user, claims, token, event_type, dataset_id, cursor):
        self.user, self.claims, self.token = user, claims, token
        self.event_type, self.dataset_id, self.cursor = event_type, dataset_id, cursor
        self.checked_at = time.monotonic()

    def wants(self, event):
        return (self.event_type is None or event.type == self.event_type) and (
            self.dataset_id is None or event.dataset_id == self.dataset_id
        )


def frame(event):
    """An event as an SSE message: ``id`` and one ``data`` line, the CloudEvent."""
    data = json.dumps(cloud_event(event), separators=(",", ":"))
    return f"id: {event.id}\ndata: {data}\n\n".encode()


def newest_id():
    return db.session.scalar(sa.select(sa.func.max(Event.id))) or 0


class EventFeed:
    """What each open stream of this process is sent next (the hub's ``feed``)."""

    def __init__(self, app):
        self.app = app
        self.recheck = float(app.config["EVENTS_STREAM_RECHECK_SECONDS"])

    def __call__(self, subscribers):
        with self.app.app_context():
            try:
                ended = self._ended(subscribers)
                live = [s for s in subscribers if s not in ended]
                sends = self._sends(live, ended) if live else {}
            finally:
                db.session.remove()
        return sends, ended

    def _ended(self, subscribers):
        """The streams whose caller may read no more; each is told why in a comment."""
        ended, now = {}, time.monotonic()
        guard = self.app.extensions["datahub.access_guard"]
        for subscriber in subscribers:
            if subscriber.claims.expires_at <= time.time():
                ended[subscriber] = b": token expired\n\n"
            elif now - subscriber.checked_at >= self.recheck:
                subscriber.checked_at = now
                try:
                    if subscriber.claims.is_personal_token:
                        subscriber.user = guard.load_personal(subscriber.token)[1]
                    else:
                        subscriber.user = guard.load(subscriber.claims)
                except NotAuthenticated as exc:
                    ended[subscriber] = f": {exc.detail}\n\n".encode()
        return ended

    def _sends(self, subscribers, ended):
        head = newest_id()
        behind = _as_they_are_now([s for s in subscribers if s.cursor < head], ended)
        by_user = {}
        for subscriber in behind:
            by_user.setdefault(subscriber.user.id, []).append(subscriber)
        sends = {}
        for group in by_user.values():
            low = min(s.cursor for s in group)
            query = readable_events(
                sa.select(Event).where(Event.id > low, Event.id <= head).order_by(Event.id),
                group[0].user,
            )
            events = db.session.scalars(query.limit(BATCH)).all()
            # All of (low, head] was read unless the batch was full.
            reached = events[-1].id if len(events) == BATCH else head
            for subscriber in group:
                data = b"".join(
                    frame(e) for e in events if e.id > subscriber.cursor and subscriber.wants(e)
                )
                if data:
                    sends[subscriber] = data
                subscriber.cursor = max(subscriber.cursor, reached)
        return sends


def _as_they_are_now(subscribers, ended):
    """``subscribers`` with their users' roles as they are now (one query), but for those
    whose user is gone or deactivated, or whose login's tokens were voided (a password
    change): those go to ``ended``."""
    ids = {subscriber.user.id for subscriber in subscribers}
    rows = (
        {
            row.id: row
            for row in db.session.execute(
                sa.select(User.id, User.roles, User.is_active, User.token_version).where(
                    User.id.in_(ids)
                )
            )
        }
        if ids
        else {}
    )
    kept = []
    for subscriber in subscribers:
        row = rows.get(subscriber.user.id)
        if row is None or not row.is_active:
            ended[subscriber] = f": {InvalidToken.detail}\n\n".encode()
        elif (
            not subscriber.claims.is_personal_token
            and subscriber.claims.version != row.token_version
        ):
            ended[subscriber] = f": {TokenRevoked.detail}\n\n".encode()
        else:
            roles = json.loads(row.roles) if isinstance(row.roles, str) else row.roles
            if tuple(roles or ()) != subscriber.user.roles:
                subscriber.user = dataclasses.replace(subscriber.user, roles=tuple(roles or ()))
            kept.append(subscriber)
    return kept


def hub_for(app):
    """This process's stream hub, made at its first stream (after the fork)."""
    return per_app(
        app,
        "datahub.event_streams",
        lambda: streams.StreamHub(
            EventFeed(app),
            poll=float(app.config["EVENTS_STREAM_POLL_SECONDS"]),
            heartbeat=float(app.config["EVENTS_STREAM_HEARTBEAT_SECONDS"]),
        ),
    )


def open_stream(args, user, claims, last_event_id):
    """The stream's response: its first bytes now; then, under the project's gunicorn
    worker, the process's hub holds it; elsewhere this request's thread does."""
    app = current_app._get_current_object()
    token = request.headers.get("Authorization", "").partition(" ")[2].strip()
    after = last_event_id if last_event_id is not None else args.get("after")
    subscriber = Subscriber(
        user,
        claims,
        token if claims.is_personal_token else None,
        args.get("event_type"),
        args.get("dataset_id"),
        newest_id() if after is None else after,
    )
    first = f"retry: {RETRY_MS}\n: after {subscriber.cursor}\n\n".encode()
    environ = request.environ
    if streams.can_hand_off(environ):
        hub = hub_for(app)
        if not hub.reserve(subscriber, lambda held: _room(app, held, user)):
            raise TooManyStreams()
        chunked = environ.get("SERVER_PROTOCOL") == "HTTP/1.1"
        body = HandOver(hub, environ, subscriber, first, chunked)
    else:
        body = _in_this_thread(app, subscriber, first)
    response = Response(body, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"  # nginx passes each event on at once
    return response


def _room(app, held, user):
    """Whether another stream of ``user`` fits beside those ``held`` in this process:
    ``EVENTS_STREAMS_PER_USER`` of one user, ``EVENTS_STREAMS_MAX`` in all (else 429)."""
    mine = sum(1 for subscriber in held if subscriber.user.id == user.id)
    return mine < int(app.config["EVENTS_STREAMS_PER_USER"]) and len(held) < int(
        app.config["EVENTS_STREAMS_MAX"]
    )


class HandOver:
    """A stream's body under the project's worker: its first bytes, then its connection
    goes to the hub. Its place in the hub is held from the answer on, so that streams
    opened at once are all counted; it is given back if the body is never sent (HEAD, a
    client gone before its first bytes)."""

    def __init__(self, hub, environ, subscriber, first, chunked):
        self.hub, self.environ, self.subscriber = hub, environ, subscriber
        self.first, self.chunked, self.adopted = first, chunked, False

    def __iter__(self):
        yield self.first
        self.hub.adopt(streams.hand_off(self.environ), self.subscriber, self.chunked)
        self.adopted = True

    def close(self):
        if not self.adopted:
            self.hub.release(self.subscriber)


def _in_this_thread(app, subscriber, first):
    """The stream from the request's own thread (the Flask test client, ``flask run``):
    the same feed, for one subscriber."""
    feed = EventFeed(app)
    poll = float(app.config["EVENTS_STREAM_POLL_SECONDS"])
    heartbeat = float(app.config["EVENTS_STREAM_HEARTBEAT_SECONDS"])

    yield first
    last = time.monotonic()
    while True:
        time.sleep(poll)
        sends, ended = feed([subscriber])
        data = sends.get(subscriber, b"") + ended.get(subscriber, b"")
        if not data and time.monotonic() - last >= heartbeat:
            data = b": heartbeat\n\n"
        if data:
            last = time.monotonic()
            yield data
        if ended:
            return
