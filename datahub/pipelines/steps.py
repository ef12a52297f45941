"""The step language: one marshmallow schema per ``op``, and ``StepField`` that picks the
schema by ``op`` so each error keeps its place (``["body", "steps", 0, "value"]``)."""
from marshmallow import ValidationError, validate

from datahub import fields
from datahub.fields import NOT_A_DICT, NOT_A_STRING, REQUIRED, ErrorMessage
from datahub.validation import (
    MAX_LENGTH,
    NO_NUL_PATTERN,
    Length,
    OneOf,
    Range,
    Schema,
    StrictBoolean,
)

# Column names and values are any text; NUL is refused in every JSON string.
ANY_TEXT = {"pattern": NO_NUL_PATTERN}

OPERATORS = ("eq", "ne", "lt", "le", "gt", "ge", "contains")
MAX_COLUMNS = 1000
MAX_NAME = 255
MAX_VALUE = 10000  # a filter's string value


def _columns(**kwargs):
    return fields.List(fields.String(validate=Length(min=1, max=MAX_NAME), metadata=ANY_TEXT),
                       validate=Length(min=1, max=MAX_COLUMNS), **kwargs)


class _StepSchema(Schema):
    op = fields.String(required=True)


class SelectStep(_StepSchema):
    """Keep these columns, in this order."""

    op = fields.String(required=True, metadata={"enum": ["select"]})

    columns = _columns(required=True)


class MaxProperties(validate.Validator):
    """At most ``n`` keys (not marshmallow's Length: apispec would document that as a
    string length)."""

    def __init__(self, n):
        self.n = n

    def __call__(self, value):
        if len(value) > self.n:
            raise ValidationError(MAX_LENGTH.format(max=self.n))
        return value


class RenameStep(_StepSchema):
    """Rename columns: ``{"old": "new"}``."""

    op = fields.String(required=True, metadata={"enum": ["rename"]})

    # Keys name existing columns (checked against the file when the run starts).
    mapping = fields.Dict(keys=fields.String(),
                          values=fields.String(validate=Length(min=1, max=MAX_NAME),
                                               metadata=ANY_TEXT),
                          required=True, validate=MaxProperties(MAX_COLUMNS),
                          metadata={"maxProperties": MAX_COLUMNS, "propertyNames": ANY_TEXT})


class FilterValue(fields.Field):
    """A string or a number (not a boolean, list or object)."""

    NOT_TEXT_OR_NUMBER = ErrorMessage("value must be a string or a number", "value_error")

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ValidationError(self.NOT_TEXT_OR_NUMBER)
        if isinstance(value, str) and len(value) > MAX_VALUE:
            raise ValidationError(MAX_LENGTH.format(max=MAX_VALUE))
        return value


class FilterStep(_StepSchema):
    """Keep the rows whose ``column`` compares true with ``value``. Numbers compare as
    numbers when both the cell and the value parse as numbers, else as text."""

    op = fields.String(required=True, metadata={"enum": ["filter"]})

    column = fields.String(required=True, validate=Length(min=1, max=MAX_NAME), metadata=ANY_TEXT)
    operator = fields.String(required=True, validate=OneOf(OPERATORS))
    value = FilterValue(required=True, metadata={"oneOf": [
        {"type": "string", "maxLength": MAX_VALUE, **ANY_TEXT}, {"type": "number"}]})


class SortStep(_StepSchema):
    """Order rows by ``columns`` (numbers before text, numbers numerically)."""

    op = fields.String(required=True, metadata={"enum": ["sort"]})

    columns = _columns(required=True)
    descending = StrictBoolean(load_default=False)


class DedupeStep(_StepSchema):
    """Drop rows equal on ``columns`` (default: all) to an earlier row; order is kept."""

    op = fields.String(required=True, metadata={"enum": ["dedupe"]})

    columns = _columns()


class LimitStep(_StepSchema):
    """Keep the first ``count`` rows."""

    op = fields.String(required=True, metadata={"enum": ["limit"]})

    count = fields.Integer(required=True, strict=True, validate=Range(min=0, max=2**62))


STEP_SCHEMAS = {
    "select": SelectStep,
    "rename": RenameStep,
    "filter": FilterStep,
    "sort": SortStep,
    "dedupe": DedupeStep,
    "limit": LimitStep,
}


class StepField(fields.Field):
    """One step: an object whose ``op`` chooses its schema."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise ValidationError(NOT_A_DICT)
        if "op" not in value:
            raise ValidationError({"op": [REQUIRED]})
        op = value["op"]
        if not isinstance(op, str):
            raise ValidationError({"op": [NOT_A_STRING]})
        if op not in STEP_SCHEMAS:
            raise ValidationError({"op": [OneOf.default_message.format(
                choices=", ".join(STEP_SCHEMAS))]})
        return STEP_SCHEMAS[op]().load(value)  # its ValidationError carries the field dict

    def _serialize(self, value, attr, obj, **kwargs):
        return value


def register_openapi_schemas(spec):
    """Publish each step shape (``SelectStep`` ...) under components/schemas; the
    pipeline schemas refer to them in a ``oneOf``."""
    for op, schema in STEP_SCHEMAS.items():
        name = f"{op.capitalize()}Step"
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=schema)
