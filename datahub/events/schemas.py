"""The events list's query and answer: CloudEvents 1.0 in structured JSON."""

from datahub.events.outbox import TYPES
from datahub.platform.database import MAX_ID
from datahub.web.listing import DEFAULT_LIMIT, MAX_LIMIT
from datahub.web.openapi import named_enum
from datahub.web.validation import OneOf, Range, Schema, fields

EVENT_TYPE = named_enum("EventType", TYPES, "What happened (docs: Events)")


class EventListArgsSchema(Schema):
    after = fields.Integer(
        load_default=0,
        validate=Range(min=0, max=MAX_ID),
        metadata={
            "description": "Only events after this id (the last one seen); 0: the oldest kept"
        },
    )
    before = fields.Integer(
        validate=Range(min=1, max=MAX_ID),
        metadata={
            "description": "Newest first, only events before this id; the first page of a "
            "feed: `before` larger than any id (2147483647, the largest id), the next page: the "
            "answer's `next_before`"
        },
    )
    limit = fields.Integer(
        load_default=DEFAULT_LIMIT,
        validate=Range(min=1, max=MAX_LIMIT),
        metadata={"description": "Page size, 1 to 100"},
    )
    event_type = fields.String(data_key="type", validate=OneOf(TYPES), metadata=EVENT_TYPE)
    dataset_id = fields.Integer(
        validate=Range(min=1, max=MAX_ID),
        metadata={"description": "Only events about this dataset and its versions"},
    )


class EventStreamArgsSchema(Schema):
    after = fields.Integer(
        validate=Range(min=0, max=MAX_ID),
        metadata={
            "description": "Start after this id (`Last-Event-ID` wins when sent); "
            "none: with the events from now on"
        },
    )
    event_type = fields.String(data_key="type", validate=OneOf(TYPES), metadata=EVENT_TYPE)
    dataset_id = fields.Integer(
        validate=Range(min=1, max=MAX_ID),
        metadata={"description": "Only events about this dataset and its versions"},
    )


class EventStreamMessageSchema(Schema):
    """One message of the event stream, as Server-Sent Events frame it."""

    id = fields.String(required=True, metadata={"description": "The event's id"})
    data = fields.String(
        required=True, metadata={"description": "The event: a CloudEvent, as JSON on one line"}
    )
    event = fields.String(metadata={"description": "Never sent: every message is a `message`"})
    retry = fields.Integer(metadata={"description": "Milliseconds to wait before reconnecting"})


class EventStreamHeadersSchema(Schema):
    last_event_id = fields.Integer(
        data_key="Last-Event-ID",
        validate=Range(min=0, max=MAX_ID),
        metadata={"description": "Resume after this event id (browsers send it to reconnect)"},
    )


class CloudEventSchema(Schema):
    """A CloudEvent 1.0, structured mode."""

    specversion = fields.String(required=True, metadata={"enum": ["1.0"]})
    id = fields.String(required=True, metadata={"description": "The event's id, ascending"})
    source = fields.String(required=True, metadata={"description": "The path of what it is about"})
    type = fields.String(required=True, metadata=EVENT_TYPE)
    time = fields.String(required=True, metadata={"format": "date-time"})
    datacontenttype = fields.String(required=True, metadata={"enum": ["application/json"]})
    data = fields.Dict(
        required=True, metadata={"description": "What it is about, as it was (docs: Events)"}
    )


class EventPageSchema(Schema):
    items = fields.List(fields.Nested(CloudEventSchema), required=True)
    next_after = fields.Integer(
        required=True,
        metadata={
            "description": "The `after` of the next page: the last item's id, or the "
            "`after` asked when there are none yet"
        },
    )
    next_before = fields.Integer(
        allow_none=True,
        metadata={
            "description": "With `before`: the `before` of the next (older) page, the last "
            "item's id; null when there are no more"
        },
    )
