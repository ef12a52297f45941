"""Webhook bodies and answers. Clients set ``url``, ``event_types``, ``dataset_id`` and
``active``; the secret is made by the service and shown once."""

from datahub.events.outbox import TYPES
from datahub.events.schemas import EVENT_TYPE
from datahub.events.webhooks.models import DELIVERY_STATUSES
from datahub.platform.database import MAX_ID
from datahub.web.listing import page_schema
from datahub.web.validation import Length, OneOf, Range, Schema, StrictBoolean, fields, label_field

URL = "Where deliveries are POSTed: https, to a public address (docs: Events)"


def _event_types(**kwargs):
    return fields.List(
        fields.String(validate=OneOf(TYPES), metadata=EVENT_TYPE),
        validate=Length(max=len(TYPES)),
        metadata={"description": "The types it receives; empty: every type"},
        **kwargs,
    )


def _dataset_id(**kwargs):
    return fields.Integer(
        strict=True,
        allow_none=True,
        validate=Range(min=1, max=MAX_ID),
        metadata={"description": "Only the events about this dataset; null: about anything"},
        **kwargs,
    )


class WebhookSchema(Schema):
    id = fields.Integer(required=True)
    url = fields.String(required=True)
    event_types = _event_types(required=True)
    dataset_id = _dataset_id(required=True)
    active = fields.Boolean(
        required=True, metadata={"description": "false: off (by its owner, or after failures)"}
    )
    failures = fields.Integer(required=True, metadata={"description": "Failed attempts in a row"})
    disabled_reason = fields.String(
        required=True, allow_none=True, metadata={"description": "Why the service turned it off"}
    )
    created_at = fields.DateTime(required=True, format="iso")


class NewWebhookSchema(WebhookSchema):
    secret = fields.String(
        required=True,
        metadata={"description": "The signing secret (`whsec_...`), shown this once"},
    )


class WebhookCreateSchema(Schema):
    url = label_field(Length(min=1, max=2048), URL, required=True)
    event_types = _event_types(load_default=list)
    dataset_id = _dataset_id(load_default=None)
    active = StrictBoolean(load_default=True)


class WebhookUpdateSchema(Schema):
    """PATCH: any subset; ``active: true`` turns it on again and clears its failures."""

    url = label_field(Length(min=1, max=2048), URL)
    event_types = _event_types()
    dataset_id = _dataset_id()
    active = StrictBoolean()


class DeliverySchema(Schema):
    id = fields.Integer(required=True, metadata={"description": "`webhook-id` is `msg_<id>`"})
    event_id = fields.Integer(
        required=True, allow_none=True, metadata={"description": "null: a ping"}
    )
    event_type = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": list(DELIVERY_STATUSES)})
    attempts = fields.Integer(required=True)
    response_status = fields.Integer(required=True, allow_none=True)
    duration_ms = fields.Integer(required=True, allow_none=True)
    error = fields.String(required=True, allow_none=True)
    created_at = fields.DateTime(required=True, format="iso")
    last_attempt_at = fields.DateTime(required=True, allow_none=True, format="iso")
    next_attempt_at = fields.DateTime(required=True, allow_none=True, format="iso")
    delivered_at = fields.DateTime(required=True, allow_none=True, format="iso")


WebhookPageSchema = page_schema(WebhookSchema, "WebhookPage")
DeliveryPageSchema = page_schema(DeliverySchema, "DeliveryPage")
