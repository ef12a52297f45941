"""/api/v1/webhooks: the caller's webhooks, their deliveries, redelivery and ping (editors
and admins, each for themselves)."""

from flask import url_for
from flask.views import MethodView

from datahub.events.webhooks import schemas
from datahub.events.webhooks import services as webhooks
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.web.api import Blueprint
from datahub.web.listing import ListArgsSchema, paginate
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, operation

blp = Blueprint(
    "webhooks",
    __name__,
    url_prefix="/api/v1/webhooks",
    guard=authenticate,
    description="Webhooks: the events, POSTed to a URL and signed",
)

NOT_FOUND = (404, "`Webhook not found` (unknown, or someone else's)")
DELIVERY_NOT_FOUND = (404, "`Webhook not found`, or `Delivery not found`")
DATASET_NOT_FOUND = (404, "`dataset_id` names no dataset the caller may read (`Dataset not found`)")
QUEUE_FULL = (
    429,
    "`Too many queued pings and redeliveries`: the owner's not yet tried, "
    "`WEBHOOK_QUEUED_REQUESTS`; `Retry-After` says when to try again",
)
_NO_STORE = {"Cache-Control": "no-store"}


def _editor(**_path_args):
    permissions.require_create(current_user)


@blp.route("/", strict_slashes=False, endpoint="Webhooks")
class Webhooks(MethodView):
    @operation(blp, "list_webhooks", 401, 403, 422, security=BEARER)
    @permissions.before_body(_editor)
    @blp.arguments(ListArgsSchema, location="query")
    @blp.response(200, schemas.WebhookPageSchema)
    def get(self, args):
        """List the caller's webhooks

        Oldest first, without their secrets. Editors and admins."""
        return paginate(webhooks.webhooks_query(current_user), args)

    @operation(
        blp, "create_webhook", *JSON_BODY_ERRORS, 401, 403, DATASET_NOT_FOUND, security=BEARER
    )
    @permissions.before_body(_editor)
    @blp.arguments(schemas.WebhookCreateSchema)
    @blp.response(
        201,
        schemas.NewWebhookSchema,
        description="Created; `secret` is shown this once",
        headers={
            "Location": "Location",
            "Cache-Control": {"description": "`no-store`", "schema": {"type": "string"}},
        },
    )
    def post(self, values):
        """Create a webhook

        Every event the caller may read, of ``event_types`` (empty: all) and about
        ``dataset_id`` (null: anything), is POSTed to ``url`` as a Standard Webhooks
        message. 422 at ``url`` when it is not https or resolves to a private address."""
        webhook = webhooks.create_webhook(current_user, values)
        location = url_for("webhooks.WebhookById", webhook_id=webhook.id)
        return webhook, 201, {"Location": location, **_NO_STORE}


@blp.route("/<id:webhook_id>", endpoint="WebhookById")
class WebhookById(MethodView):
    @operation(blp, "get_webhook", 401, 403, NOT_FOUND, 422, security=BEARER)
    @permissions.before_body(_editor)
    @blp.response(200, schemas.WebhookSchema)
    def get(self, webhook_id):
        """Get one of the caller's webhooks

        Without its secret."""
        return webhooks.get_webhook(current_user, webhook_id)

    @operation(blp, "update_webhook", *JSON_BODY_ERRORS, 401, 403, NOT_FOUND, security=BEARER)
    @permissions.before_body(_editor)
    @blp.arguments(schemas.WebhookUpdateSchema)
    @blp.response(200, schemas.WebhookSchema)
    def patch(self, values, webhook_id):
        """Change a webhook

        Any subset of ``url``, ``event_types``, ``dataset_id`` and ``active``;
        ``active: true`` turns it on again and clears its failures."""
        webhook = webhooks.get_webhook(current_user, webhook_id)
        return webhooks.update_webhook(current_user, webhook, values)

    @operation(blp, "delete_webhook", 401, 403, NOT_FOUND, 422, security=BEARER)
    @permissions.before_body(_editor)
    @blp.response(204, description="Deleted, with its deliveries")
    def delete(self, webhook_id):
        """Delete a webhook

        Nothing more is sent to it, also not what was still to be retried."""
        webhooks.delete_webhook(webhooks.get_webhook(current_user, webhook_id))
        return ""


@blp.route("/<id:webhook_id>/deliveries", strict_slashes=False, endpoint="Deliveries")
class Deliveries(MethodView):
    @operation(blp, "list_webhook_deliveries", 401, 403, NOT_FOUND, 422, security=BEARER)
    @permissions.before_body(_editor)
    @blp.arguments(ListArgsSchema, location="query")
    @blp.response(200, schemas.DeliveryPageSchema)
    def get(self, args, webhook_id):
        """List a webhook's deliveries

        Newest first: each message's status, attempts, the receiver's last answer and
        how long it took."""
        webhook = webhooks.get_webhook(current_user, webhook_id)
        return paginate(webhooks.deliveries_query(webhook), args)


@blp.route("/<id:webhook_id>/deliveries/<id:delivery_id>/redeliver", endpoint="Redeliver")
class Redeliver(MethodView):
    @operation(
        blp,
        "redeliver_webhook_delivery",
        401,
        403,
        DELIVERY_NOT_FOUND,
        422,
        QUEUE_FULL,
        security=BEARER,
    )
    @permissions.before_body(_editor)
    @blp.response(202, schemas.DeliverySchema, description="Queued: it is sent again soon")
    def post(self, webhook_id, delivery_id):
        """Send a delivery again

        The same message (same ``webhook-id``), with a fresh schedule of attempts.
        429 while the caller has ``WEBHOOK_QUEUED_REQUESTS`` pings and redeliveries not
        yet tried."""
        webhook = webhooks.get_webhook(current_user, webhook_id)
        return webhooks.redeliver(webhooks.get_delivery(webhook, delivery_id))


@blp.route("/<id:webhook_id>/ping", endpoint="Ping")
class Ping(MethodView):
    @operation(blp, "ping_webhook", 401, 403, NOT_FOUND, 422, QUEUE_FULL, security=BEARER)
    @permissions.before_body(_editor)
    @blp.response(202, schemas.DeliverySchema, description="Queued: it is sent soon")
    def post(self, webhook_id):
        """Ping a webhook

        A ``datahub.webhook.ping`` message to it alone, also when it is off. 429 while
        the caller has ``WEBHOOK_QUEUED_REQUESTS`` pings and redeliveries not yet tried."""
        return webhooks.ping(webhooks.get_webhook(current_user, webhook_id))
