"""/api/v1/events: the events the caller may read, oldest first, after an id."""

from flask.views import MethodView

from datahub.events import live, schemas, services
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_claims, current_user
from datahub.web.api import Blueprint
from datahub.web.openapi import BEARER, described, operation

blp = Blueprint(
    "events",
    __name__,
    url_prefix="/api/v1/events",
    guard=authenticate,
    description="Events: what changed, as CloudEvents",
)


@blp.route("/", strict_slashes=False, endpoint="Events")
class Events(MethodView):
    @operation(blp, "list_events", 401, 403, 422, security=BEARER)
    @blp.arguments(schemas.EventListArgsSchema, location="query")
    @blp.response(200, schemas.EventPageSchema)
    @described(
        "List events",
        "The events after `after` that the caller may read, oldest first (any role). "
        "Poll with the answer's `next_after`; events are kept `EVENTS_RETENTION_DAYS` days. "
        "With `before`: newest first, older pages with the answer's `next_before` (a feed).",
    )
    def get(self, args):
        permissions.require_read(current_user)
        return services.events_page(args, current_user)


@blp.route("/stream", endpoint="EventStream")
class EventStream(MethodView):
    @operation(
        blp,
        "stream_events",
        401,
        403,
        422,
        (429, "`Too many open event streams`: the caller's, or this server's, limit"),
        security=BEARER,
    )
    @blp.arguments(schemas.EventStreamArgsSchema, location="query")
    @blp.arguments(schemas.EventStreamHeadersSchema, location="headers")
    @blp.response(
        200,
        schemas.EventStreamMessageSchema,
        content_type="text/event-stream",
        description="Server-Sent Events, each message an event (the schema: one message); "
        "a `: heartbeat` comment every `EVENTS_STREAM_HEARTBEAT_SECONDS` seconds",
    )
    def get(self, args, headers):
        """Stream events live

        The events the caller may read, as Server-Sent Events, from now on, or after
        `Last-Event-ID` (or `after`): the same events as the list, each sent once it is
        committed. The stream ends when the caller's token expires or is revoked (a
        comment says why): reconnect with a new token and `Last-Event-ID`. Any role."""
        permissions.require_read(current_user)
        return live.open_stream(
            args,
            current_user._get_current_object(),  # the stream outlives the request
            current_claims._get_current_object(),
            headers.get("last_event_id"),
        )
