"""The step language: one marshmallow schema per ``op``, and ``step_field`` that picks the
schema by ``op`` so each error keeps its place (``["body", "steps", 0, "value"]``)."""

from marshmallow import ValidationError, validate

from datahub.datasets.sql_field import SqlQuery
from datahub.platform.errors import ErrorMessage
from datahub.web.validation import (
    MAX_LENGTH,
    NO_NUL_PATTERN,
    ChosenBy,
    Length,
    OneOf,
    Range,
    Schema,
    StrictBoolean,
    fields,
)

# Column names and values are any text; NUL is refused in every JSON string.
ANY_TEXT = {"pattern": NO_NUL_PATTERN}

OPERATORS = ("eq", "ne", "lt", "le", "gt", "ge", "contains")
MAX_COLUMNS = 1000
MAX_NAME = 255
MAX_VALUE = 10000  # a filter's string value
MAX_QUERY = 100000  # characters of a sql step's query
CAST_TYPES = ("integer", "float", "string", "boolean", "date", "timestamp")
COLUMN_FUNCTIONS = ("sum", "avg", "min", "max")
JOIN_KINDS = ("inner", "left")
MAX_AGGREGATES = 100


def _columns(**kwargs):
    return fields.List(
        fields.String(validate=Length(min=1, max=MAX_NAME), metadata=ANY_TEXT),
        validate=Length(min=1, max=MAX_COLUMNS),
        **kwargs,
    )


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
    mapping = fields.Dict(
        keys=fields.String(),
        values=fields.String(validate=Length(min=1, max=MAX_NAME), metadata=ANY_TEXT),
        required=True,
        validate=MaxProperties(MAX_COLUMNS),
        metadata={"maxProperties": MAX_COLUMNS, "propertyNames": ANY_TEXT},
    )


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
    """Keep the rows whose ``column`` compares true with ``value``, in the column's
    inferred type: a number column compares numerically with a number (or a string that
    reads as one), a date or timestamp column with a value that reads as one; a text
    column compares as text. An empty cell compares as empty text; ``contains`` compares
    the cell's text."""

    op = fields.String(required=True, metadata={"enum": ["filter"]})

    column = fields.String(required=True, validate=Length(min=1, max=MAX_NAME), metadata=ANY_TEXT)
    operator = fields.String(required=True, validate=OneOf(OPERATORS))
    value = FilterValue(
        required=True,
        metadata={
            "oneOf": [{"type": "string", "maxLength": MAX_VALUE, **ANY_TEXT}, {"type": "number"}]
        },
    )


class SortStep(_StepSchema):
    """Order rows by ``columns``, in their inferred types (numbers numerically); rows equal
    on them are ordered by the remaining columns, so the output is always the same."""

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


class CastStep(_StepSchema):
    """Convert ``column`` to ``type``; a value that does not convert fails the run."""

    op = fields.String(required=True, metadata={"enum": ["cast"]})

    column = fields.String(required=True, validate=Length(min=1, max=MAX_NAME), metadata=ANY_TEXT)
    type = fields.String(required=True, validate=OneOf(CAST_TYPES))


class _Aggregate(Schema):
    as_ = fields.String(
        data_key="as",
        attribute="as",
        validate=Length(min=1, max=MAX_NAME),
        metadata={
            **ANY_TEXT,
            "description": "The result's column name; default <function>_<column> (or count)",
        },
    )


class CountAggregate(_Aggregate):
    """The number of rows, or of ``column``'s non-empty cells."""

    function = fields.String(required=True, validate=OneOf(["count"]))
    column = fields.String(validate=Length(min=1, max=MAX_NAME), metadata=ANY_TEXT)


class ColumnAggregate(_Aggregate):
    """sum or avg of a number column; min or max of any column."""

    function = fields.String(required=True, validate=OneOf(COLUMN_FUNCTIONS))
    column = fields.String(required=True, validate=Length(min=1, max=MAX_NAME), metadata=ANY_TEXT)


AGGREGATE_SCHEMAS = {
    **{function: ColumnAggregate for function in COLUMN_FUNCTIONS},
    "count": CountAggregate,
}


class AggregateStep(_StepSchema):
    """One row per distinct ``group_by`` (all rows in one when empty), ordered by it, with
    the ``aggregates``: sum and avg of a number column, min, max, count (of the non-empty
    cells of ``column``, or of rows)."""

    op = fields.String(required=True, metadata={"enum": ["aggregate"]})

    group_by = fields.List(
        fields.String(validate=Length(min=1, max=MAX_NAME), metadata=ANY_TEXT),
        validate=Length(max=MAX_COLUMNS),
        load_default=list,
    )
    aggregates = fields.List(
        ChosenBy(
            "function",
            AGGREGATE_SCHEMAS,
            metadata={
                "oneOf": [
                    {"$ref": "#/components/schemas/CountAggregate"},
                    {"$ref": "#/components/schemas/ColumnAggregate"},
                ]
            },
        ),
        required=True,
        validate=Length(min=1, max=MAX_AGGREGATES),
    )


class JoinStep(_StepSchema):
    """Join with another dataset's file on the columns ``on`` (both sides have them; the
    result has them once). ``inner`` keeps matching rows; ``left`` keeps every row, with
    empty cells where nothing matches. The other columns' names must differ."""

    op = fields.String(required=True, metadata={"enum": ["join"]})

    dataset_id = fields.Integer(required=True, strict=True, validate=Range(min=1, max=2**63 - 1))
    version = fields.Integer(
        strict=True,
        validate=Range(min=1, max=2**31 - 1),
        metadata={"description": "Join this version of the dataset; default: its current one"},
    )
    on = _columns(required=True)
    how = fields.String(validate=OneOf(JOIN_KINDS), load_default="inner")


class SqlStep(_StepSchema):
    """``query``: one SELECT over the previous step's result, named ``input``. It can read
    no other table and no file, and call no table function."""

    op = fields.String(required=True, metadata={"enum": ["sql"]})

    query = SqlQuery(required=True, validate=Length(min=1, max=MAX_QUERY), metadata=ANY_TEXT)


STEP_SCHEMAS = {
    "select": SelectStep,
    "rename": RenameStep,
    "filter": FilterStep,
    "sort": SortStep,
    "dedupe": DedupeStep,
    "limit": LimitStep,
    "cast": CastStep,
    "aggregate": AggregateStep,
    "join": JoinStep,
    "sql": SqlStep,
}


def step_field(**kwargs):
    """One step: an object whose ``op`` chooses its schema."""
    return ChosenBy("op", STEP_SCHEMAS, **kwargs)


def register_openapi_schemas(spec):
    """Publish each step shape (``SelectStep`` ...) under components/schemas; the
    pipeline schemas refer to them in a ``oneOf``."""
    for op, schema in STEP_SCHEMAS.items():
        name = f"{op.capitalize()}Step"
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=schema)
    for schema in (CountAggregate, ColumnAggregate):
        if schema.__name__ not in spec.components.schemas:
            spec.components.schema(schema.__name__, schema=schema)
