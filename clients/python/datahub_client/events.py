"""Events, webhooks and pipeline triggers (the service's docs: "Events"). Mixed into ``Client``; every method
returns the decoded JSON answer.

    for event in client.events_stream(after=last_seen):   # live, resuming by itself
        print(event["id"], event["type"], event["source"])
"""

import json
import threading
import time

import urllib3

from datahub_client.access import _pages
from datahub_client.errors import UnreachableError

API = "/api/v1"
# ``before`` larger than any event id: the newest events first.
NEWEST = 2**31 - 1


def _query(**params):
    return {name: value for name, value in params.items() if value is not None}


class EventsMixin:
    """Needs ``self._json(method, path, **kwargs)`` and ``self.request(...)``."""

    # -- events ------------------------------------------------------------------------

    def events_list(self, *, after=0, before=None, type=None, dataset_id=None, limit=100):
        """One page of the events after ``after`` (an event id) that the caller may read,
        oldest first: ``{"items": [...CloudEvents], "next_after": id}``. With ``before``
        (an id; NEWEST for the latest events): newest first, and ``next_before`` for the
        older page (None at the end)."""
        params = _query(
            after=int(after), before=before, type=type, dataset_id=dataset_id, limit=limit
        )
        return self._json("GET", f"{API}/events", params=params)

    def events_iter(self, *, after=0, type=None, dataset_id=None):
        """Every event after ``after`` there is now, page after page."""
        while True:
            page = self.events_list(after=after, type=type, dataset_id=dataset_id)
            yield from page["items"]
            if not page["items"]:
                return
            after = page["next_after"]

    def events_follow(self, *, after=0, type=None, dataset_id=None, poll_seconds=2.0):
        """The events after ``after``, then each new one as it happens, forever: the list
        is asked again every ``poll_seconds`` when nothing is new. Resume a stopped follower
        with the last id it saw as ``after``."""
        while True:
            page = self.events_list(after=after, type=type, dataset_id=dataset_id)
            yield from page["items"]
            after = page["next_after"]
            if not page["items"]:
                time.sleep(poll_seconds)

    def events_stream(self, *, after=None, type=None, dataset_id=None, reconnect=True, stop=None):
        """Each event as it happens, from the live stream (``GET /events/stream``): after
        ``after`` (an event id; None: from now on), forever. When the stream ends or
        breaks (a server stopped, the network, an access token that expired and is renewed
        here) it is opened again after the wait the service asked for, resuming after the
        last event yielded: none is lost or repeated. ``reconnect=False``: stop instead;
        ``stop`` (a ``threading.Event``), when set, ends it before it opens the stream again.
        A refused token (revoked, or a personal access token expired) raises."""
        last, wait = after, 2.0
        params = _query(type=type, dataset_id=dataset_id)
        stop = stop or threading.Event()
        while not stop.is_set():
            headers = {"Accept": "text/event-stream"}
            if last is not None:
                headers["Last-Event-ID"] = str(last)
            try:
                response = self.request(
                    "GET", f"{API}/events/stream", params=params, headers=headers, preload=False
                )
            except UnreachableError:
                if not reconnect:
                    raise
                stop.wait(wait)
                continue
            try:
                for field, value in _sse_fields(response):
                    if field == "retry":
                        wait = int(value) / 1000
                    elif field == "message":
                        event_id, data = value
                        last = int(event_id)
                        yield json.loads(data)
            except (urllib3.exceptions.HTTPError, OSError):
                pass  # broken off: resumed below
            finally:
                response.release_conn()
            if not reconnect:
                return
            stop.wait(wait)

    # -- triggers ----------------------------------------------------------------------

    def pipeline_set_trigger(self, pipeline_id, trigger):
        """What starts the pipeline's runs besides a user: ``None``, ``{"on":
        "new_version"}`` (a new version of an input) or ``{"cron": "0 3 * * *",
        "timezone": "Europe/Oslo"}``; answers the pipeline (``next_run_at``: when due)."""
        path = f"{API}/pipelines/{int(pipeline_id)}"
        return self._json("PATCH", path, json_body={"trigger": trigger})

    # -- webhooks ----------------------------------------------------------------------

    def webhook_create(self, url, *, event_types=(), dataset_id=None, active=True):
        """A webhook of the caller's; the answer's ``secret`` (``whsec_...``) signs its
        messages and is shown this once."""
        body = {"url": url, "event_types": list(event_types), "active": bool(active)}
        if dataset_id is not None:
            body["dataset_id"] = int(dataset_id)
        return self._json("POST", f"{API}/webhooks/", json_body=body)

    def webhooks_list(self, *, limit=20, offset=0):
        return self._json("GET", f"{API}/webhooks/", params={"limit": limit, "offset": offset})

    def webhooks_iter(self):
        return _pages(lambda limit, offset: self.webhooks_list(limit=limit, offset=offset))

    def webhook_get(self, webhook_id):
        return self._json("GET", f"{API}/webhooks/{int(webhook_id)}")

    def webhook_update(self, webhook_id, **changes):
        """Change ``url``, ``event_types``, ``dataset_id`` or ``active`` (true turns it on
        again and clears its failures)."""
        return self._json("PATCH", f"{API}/webhooks/{int(webhook_id)}", json_body=changes)

    def webhook_delete(self, webhook_id):
        self.request("DELETE", f"{API}/webhooks/{int(webhook_id)}")

    def webhook_deliveries(self, webhook_id, *, limit=20, offset=0):
        """One page of the webhook's messages, newest first."""
        path = f"{API}/webhooks/{int(webhook_id)}/deliveries"
        return self._json("GET", path, params={"limit": limit, "offset": offset})

    def webhook_redeliver(self, webhook_id, delivery_id):
        path = f"{API}/webhooks/{int(webhook_id)}/deliveries/{int(delivery_id)}/redeliver"
        return self._json("POST", path)

    def webhook_ping(self, webhook_id):
        return self._json("POST", f"{API}/webhooks/{int(webhook_id)}/ping")


def _sse_fields(response):
    """``("retry", ms)`` and ``("message", (id, data))`` from a Server-Sent Events
    response, as they arrive; comments are skipped."""
    buffer = b""
    event_id, data = None, []
    while True:
        chunk = response.read1(65536)
        if not chunk:
            return
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for raw in lines:
            line = raw.rstrip(b"\r").decode("utf-8", "replace")
            if not line:  # a message ends
                if data:
                    yield "message", (event_id, "\n".join(data))
                event_id, data = None, []
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "id":
                event_id = value
            elif field == "data":
                data.append(value)
            elif field == "retry" and value.isdigit():
                yield "retry", value
