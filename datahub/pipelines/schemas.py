"""Pipeline and run bodies. Clients set ``name``, ``description``, ``source_dataset_id``,
``steps`` and ``output_dataset_name``; anything else is refused with 422
``extra fields not permitted``."""

from flask import current_app
from marshmallow import ValidationError, post_load, validate

from datahub.datasets.schemas import FILE_FORMAT, PREVIEW_ROWS, PreviewRows
from datahub.datasets.tabular import FORMATS
from datahub.pipelines import schedules
from datahub.pipelines.models import STATUSES
from datahub.pipelines.steps import step_field
from datahub.pipelines.timings import PHASES
from datahub.platform.database import MAX_ID
from datahub.platform.errors import ErrorMessage
from datahub.resources.schemas import CapabilitiesField, visibility_field
from datahub.web.listing import ListArgsSchema, NamedListArgsSchema, page_schema
from datahub.web.validation import (
    ASCII_SPACE,
    NO_CONTROL_PATTERN,
    OneOf,
    Range,
    Schema,
    fields,
    name_field,
    strip_name,
    text_field,
)
from datahub.web.validation.fields import NOT_A_DICT

MAX_STEPS = 100  # PIPELINE_MAX_STEPS' default, which the OpenAPI document states
STEP_DOC = {
    "description": "One step; `op` chooses its shape (`SelectStep` ... `SqlStep`)",
    "oneOf": [
        {"$ref": f"#/components/schemas/{name}Step"}
        for name in (
            "Select",
            "Rename",
            "Filter",
            "Sort",
            "Dedupe",
            "Limit",
            "Cast",
            "Aggregate",
            "Join",
            "Sql",
        )
    ],
}


class MaxSteps(validate.Validator):
    """At most ``PIPELINE_MAX_STEPS`` steps, read from the app's settings at each load."""

    error = ErrorMessage("ensure this value has at most {max} items", "value_error.list.max_items")

    def __call__(self, value):
        limit = int(current_app.config["PIPELINE_MAX_STEPS"])
        if len(value) > limit:
            raise ValidationError(self.error.format(max=limit))
        return value


def _steps(**kwargs):
    return fields.List(
        step_field(metadata=STEP_DOC),
        validate=MaxSteps(),
        metadata={"maxItems": MAX_STEPS},
        **kwargs,
    )


def _source_dataset_id():
    return fields.Integer(
        required=True,
        strict=True,
        validate=Range(min=1),
        metadata={"description": "The dataset whose file (CSV, Parquet or JSON lines) is read"},
    )


def _strip_output_name(data):
    """After validation: both names without surrounding ASCII white space."""
    data = strip_name(data)
    if isinstance(data.get("output_dataset_name"), str):
        data["output_dataset_name"] = data["output_dataset_name"].strip(ASCII_SPACE)
    return data


# The two shapes of a trigger, as components of the OpenAPI document (generated clients
# make a type of each): registered by ``register_trigger_schemas``.
TRIGGER_SCHEMAS = {
    "NewVersionTrigger": {
        "type": "object",
        "description": "A run on each new version of the source or of a joined dataset",
        "properties": {"on": {"type": "string", "enum": [schedules.NEW_VERSION]}},
        "required": ["on"],
        "additionalProperties": False,
    },
    "ScheduleTrigger": {
        "type": "object",
        "description": "A run at each time of a cron expression, in a time zone",
        "properties": {
            "cron": {
                "type": "string",
                "maxLength": 100,
                "pattern": NO_CONTROL_PATTERN,
                "example": "0 3 * * *",
            },
            "timezone": {
                "type": "string",
                "maxLength": 64,
                "pattern": NO_CONTROL_PATTERN,
                "example": "Europe/Oslo",
                "description": "A time zone database name; UTC when left out",
            },
        },
        "required": ["cron"],
        "additionalProperties": False,
    },
}
TRIGGER_DOC = {
    "description": "What starts runs besides a user: null (nothing), a new version of an "
    "input, or a schedule",
    "type": "object",  # OpenAPI 3.0: "nullable" needs a type
    "nullable": True,
    "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in TRIGGER_SCHEMAS],
}


def register_trigger_schemas(spec):
    for name, schema in TRIGGER_SCHEMAS.items():
        if name not in spec.components.schemas:
            spec.components.schema(name, component=schema)


class TriggerField(fields.Field):
    """A pipeline's trigger (datahub.pipelines.triggers); a schedule's ``timezone`` is
    ``UTC`` unless given."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise ValidationError(NOT_A_DICT)
        trigger = value
        reason = schedules.invalid_trigger(trigger)
        if reason:
            raise ValidationError(ErrorMessage(f"trigger {reason}", "value_error.trigger"))
        if "cron" in trigger:
            return {"cron": trigger["cron"], "timezone": trigger.get("timezone", "UTC")}
        return dict(trigger)


class PipelineSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    description = fields.String(required=True)
    owner_id = fields.String(required=True)
    visibility = visibility_field(required=True)
    source_dataset_id = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "null once the source dataset has been deleted"},
    )
    source_version = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The source's version runs read; null: its current one"},
    )
    steps = _steps(required=True)
    output_dataset_name = fields.String(required=True)
    output_format = fields.String(required=True, metadata=FILE_FORMAT)
    trigger = TriggerField(required=True, allow_none=True, metadata=TRIGGER_DOC)
    next_run_at = fields.DateTime(
        required=True,
        allow_none=True,
        format="iso",
        metadata={"description": "When its schedule next starts a run; null without one"},
    )
    trigger_disabled_reason = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Why the trigger was turned off (it could not be acted on): it "
            "starts no runs until the trigger is changed; null while it works"
        },
    )
    created_at = fields.DateTime(required=True, format="iso")
    updated_at = fields.DateTime(required=True, format="iso")
    capabilities = CapabilitiesField()


class PipelineCreateSchema(Schema):
    name = name_field(
        "Unique, compared case-insensitively; surrounding spaces are removed", required=True
    )
    description = text_field(10000, load_default="")
    visibility = visibility_field()
    source_dataset_id = _source_dataset_id()
    source_version = fields.Integer(
        strict=True,
        allow_none=True,
        load_default=None,
        validate=Range(min=1, max=2**31 - 1),
        metadata={
            "description": "Read this version of the source (pinned); null: the current "
            "version when each run starts"
        },
    )
    steps = _steps(load_default=list)
    output_dataset_name = name_field(
        "The dataset a successful run writes; created by the first success, owned by the "
        "pipeline's owner",
        required=True,
    )
    output_format = fields.String(
        validate=OneOf(FORMATS),
        load_default="csv",
        metadata={**FILE_FORMAT, "description": "The output file's format"},
    )
    trigger = TriggerField(allow_none=True, metadata=TRIGGER_DOC)

    @post_load
    def _strip(self, data, **_):
        return _strip_output_name(data)


class PipelineUpdateSchema(PipelineCreateSchema):
    """PATCH: any subset; ``steps`` replaces the whole list."""

    def __init__(self, **kwargs):
        super().__init__(partial=True, **kwargs)

    description = text_field(10000)
    source_version = fields.Integer(
        strict=True, allow_none=True, validate=Range(min=1, max=2**31 - 1)
    )
    steps = _steps()
    output_format = fields.String(validate=OneOf(FORMATS), metadata=FILE_FORMAT)
    trigger = TriggerField(allow_none=True, metadata=TRIGGER_DOC)


class PipelinePreviewSchema(Schema):
    """``POST /pipelines/preview``: a source, steps as a pipeline's (validated alike) and
    the rows to show."""

    source_dataset_id = _source_dataset_id()
    source_version = fields.Integer(
        strict=True,
        allow_none=True,
        load_default=None,
        validate=Range(min=1, max=2**31 - 1),
        metadata={"description": "Read this version of the source; null: its current version"},
    )
    steps = _steps(required=True)
    limit = fields.Integer(
        strict=True,
        load_default=PREVIEW_ROWS,
        validate=PreviewRows(),
        metadata={"description": "Rows to show, 1 to 1000 (PREVIEW_MAX_ROWS)"},
    )


class PipelineListArgsSchema(NamedListArgsSchema):
    source_dataset_id = fields.Integer(
        validate=Range(min=1, max=MAX_ID),
        metadata={"description": "Only pipelines reading this dataset"},
    )


class DatasetVersionRefSchema(Schema):
    dataset_id = fields.Integer(required=True)
    version = fields.Integer(required=True)


EXAMPLE_MS = (2.1, 4, 3.2, 12.5, 850.3, 0.4, 0.2, 9.8, 1.1, 0.3, 6.2, 0.8)  # of a run


class RunSchema(Schema):
    id = fields.Integer(required=True)
    pipeline_id = fields.Integer(required=True)
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    created_at = fields.DateTime(required=True, format="iso")
    started_at = fields.DateTime(required=True, allow_none=True, format="iso")
    finished_at = fields.DateTime(required=True, allow_none=True, format="iso")
    rows_in = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Rows read from the source"}
    )
    rows_out = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Rows written to the output"}
    )
    error = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Why the run failed or was cancelled"},
    )
    output_dataset_id = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "Set when the run succeeded, or its output failed its checks"},
    )
    inputs = fields.List(
        fields.Nested(DatasetVersionRefSchema),
        required=True,
        metadata={"description": "The versions the run read, recorded as it started"},
    )
    output = fields.Nested(
        DatasetVersionRefSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "The version the run made; null until it succeeds (or its output "
            "fails its checks: the quarantined version)"
        },
    )
    triggered_by = fields.String(
        required=True,
        metadata={
            "enum": ["user", schedules.NEW_VERSION, schedules.SCHEDULE],
            "description": "What queued it: a user, a new version of an input, its schedule",
        },
    )
    reused_run_id = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "Set when the run was answered by an earlier run with the same "
            "pipeline definition, engine and input versions: its output version is that "
            "run's, and nothing was computed"
        },
    )
    timings = fields.Dict(
        keys=fields.String(),
        values=fields.Float(),
        required=True,
        allow_none=True,
        metadata={
            "description": "Where the run's time went, in milliseconds by phase "
            f"({', '.join(PHASES)}; a phase the run did not reach is absent); null until "
            "it ends",
            "example": dict(zip(PHASES, EXAMPLE_MS, strict=True)),
        },
    )


RunListArgsSchema = ListArgsSchema
PipelinePageSchema = page_schema(PipelineSchema, "PipelinePage")
RunPageSchema = page_schema(RunSchema, "RunPage")
