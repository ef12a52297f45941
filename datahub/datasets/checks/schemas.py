"""A dataset's checks as its writers set them, and the results of a version's checks."""

import re

from marshmallow import ValidationError, validates_schema

from datahub.datasets.sql_field import SqlQuery
from datahub.platform.errors import ErrorMessage
from datahub.web.validation import (
    NO_NUL_PATTERN,
    ChosenBy,
    Length,
    OneOf,
    Range,
    Schema,
    fields,
    label_field,
)

MAX_CHECKS = 100
MAX_NAME = 255
MAX_VALUES = 1000
MAX_PATTERN = 1000
MAX_QUERY = 100000
SEVERITIES = ("error", "warn")
DURATION = re.compile(r"P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?")
STATES = ("pending", "published", "quarantined")
RESULTS = ("passed", "failed", "warned", "error")


def _column(**kwargs):
    return label_field(Length(min=1, max=MAX_NAME), "A column of the version", **kwargs)


MAX_BOUND_TEXT = 100  # characters of a text value (a range's bound, an accepted value)
NUMBER_OR_TEXT = [
    {"type": "number"},
    {"type": "string", "maxLength": MAX_BOUND_TEXT, "pattern": NO_NUL_PATTERN},
]
ANY_TEXT = {"pattern": NO_NUL_PATTERN}


def _long_text(value):
    """The messages for a text value longer than the document allows, or None (NUL is
    refused in every JSON string: datahub.web.api)."""
    if not isinstance(value, str):
        return None
    try:
        Length(max=MAX_BOUND_TEXT)(value)
    except ValidationError as exc:
        return exc.messages
    return None


def _scalar(description):
    return fields.Raw(metadata={"description": description, "anyOf": NUMBER_OR_TEXT})


class _Check(Schema):
    name = label_field(Length(min=1, max=100), "Unique among the dataset's checks", required=True)
    type = fields.String(required=True)
    severity = fields.String(
        validate=OneOf(SEVERITIES),
        load_default="error",
        metadata={"description": "`error` quarantines a version that fails; `warn` reports"},
    )


def _at_least_one(data, *keys):
    if all(data.get(key) is None for key in keys):
        raise ValidationError(
            ErrorMessage(f"give {' or '.join(keys)}", "value_error.bounds"), keys[0]
        )


class NotNullCheck(_Check):
    """No null in ``column``."""

    type = fields.String(required=True, metadata={"enum": ["not_null"]})

    column = _column(required=True)


class UniqueCheck(_Check):
    """No two rows with the same values of ``columns``."""

    type = fields.String(required=True, metadata={"enum": ["unique"]})

    columns = fields.List(_column(), required=True, validate=Length(min=1, max=20))


class AcceptedValuesCheck(_Check):
    """Every value of ``column`` (nulls aside) is one of ``values`` (compared as text)."""

    type = fields.String(required=True, metadata={"enum": ["accepted_values"]})

    column = _column(required=True)
    values = fields.List(
        fields.Raw(metadata={"anyOf": [*NUMBER_OR_TEXT, {"type": "boolean"}]}),
        required=True,
        validate=Length(min=1, max=MAX_VALUES),
    )

    @validates_schema
    def _scalars(self, data, **_kwargs):
        for position, value in enumerate(data.get("values") or []):
            if not isinstance(value, (str, int, float, bool)):
                raise ValidationError(
                    {position: [ErrorMessage("a string, number or boolean", "type_error")]},
                    "values",
                )
            problem = _long_text(value)
            if problem:
                raise ValidationError({position: problem}, "values")


class RangeCheck(_Check):
    """Every value of ``column`` (nulls aside) is at least ``min`` and at most ``max``
    (numbers, or dates and times as ISO 8601 text)."""

    type = fields.String(required=True, metadata={"enum": ["range"]})

    column = _column(required=True)
    min = _scalar("The smallest value allowed")
    max = _scalar("The largest value allowed")

    @validates_schema
    def _bounds(self, data, **_kwargs):
        _at_least_one(data, "min", "max")
        for key in ("min", "max"):
            value = data.get(key)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, (str, int, float))
            ):
                raise ValidationError(ErrorMessage("a number or a date", "type_error"), key)
            problem = _long_text(value)
            if problem:
                raise ValidationError(problem, key)


class RegexCheck(_Check):
    """Every value of ``column`` (nulls aside), as text, matches ``pattern`` whole (RE2)."""

    type = fields.String(required=True, metadata={"enum": ["regex"]})

    column = _column(required=True)
    pattern = fields.String(
        required=True, validate=Length(min=1, max=MAX_PATTERN), metadata=ANY_TEXT
    )

    @validates_schema
    def _compiles(self, data, **_kwargs):
        try:
            re.compile(data.get("pattern", ""))
        except re.error as exc:
            raise ValidationError(
                ErrorMessage(f"not a regular expression: {exc}", "value_error.regex"), "pattern"
            ) from None


class RowCountCheck(_Check):
    """The version has at least ``min`` and at most ``max`` rows."""

    type = fields.String(required=True, metadata={"enum": ["row_count"]})

    min = fields.Integer(strict=True, validate=Range(min=0, max=2**63 - 1))
    max = fields.Integer(strict=True, validate=Range(min=0, max=2**63 - 1))

    @validates_schema
    def _bounds(self, data, **_kwargs):
        _at_least_one(data, "min", "max")


class RowCountChangeCheck(_Check):
    """Against the previous published version: rows fell by at most
    ``max_drop_fraction`` and grew by at most ``max_growth_fraction`` of its rows."""

    type = fields.String(required=True, metadata={"enum": ["row_count_change"]})

    max_drop_fraction = fields.Float(validate=Range(min=0, max=1))
    max_growth_fraction = fields.Float(validate=Range(min=0, max=1e9))

    @validates_schema
    def _bounds(self, data, **_kwargs):
        _at_least_one(data, "max_drop_fraction", "max_growth_fraction")


class RequiredColumn(Schema):
    name = _column(required=True)
    type = fields.String(
        validate=Length(min=1, max=100),
        metadata={
            **ANY_TEXT,
            "description": "DuckDB's type name (BIGINT, VARCHAR...); any when absent",
        },
    )


class SchemaCheck(_Check):
    """The version has these columns (of these types)."""

    type = fields.String(required=True, metadata={"enum": ["schema"]})

    columns = fields.List(
        fields.Nested(RequiredColumn), required=True, validate=Length(min=1, max=1000)
    )


class FreshnessCheck(_Check):
    """The newest value of ``column`` (a date or time) is at most ``max_age`` old (ISO 8601:
    ``P1D``, ``PT6H``, ``P1W``)."""

    type = fields.String(required=True, metadata={"enum": ["freshness"]})

    column = _column(required=True)
    max_age = fields.String(required=True, validate=Length(min=2, max=40), metadata=ANY_TEXT)

    @validates_schema
    def _duration(self, data, **_kwargs):
        text = data.get("max_age", "")
        if not DURATION.fullmatch(text) or text in ("P", "PT") or text.endswith("T"):
            raise ValidationError(
                ErrorMessage("an ISO 8601 duration such as P1D or PT6H", "value_error.duration"),
                "max_age",
            )


class SqlCheck(_Check):
    """``query``: a read-only SELECT over ``input`` (the version) whose rows are the
    failures, as a pipeline's sql step is written."""

    type = fields.String(required=True, metadata={"enum": ["sql"]})

    query = SqlQuery(required=True, validate=Length(min=1, max=MAX_QUERY), metadata=ANY_TEXT)


CHECK_SCHEMAS = {
    "not_null": NotNullCheck,
    "unique": UniqueCheck,
    "accepted_values": AcceptedValuesCheck,
    "range": RangeCheck,
    "regex": RegexCheck,
    "row_count": RowCountCheck,
    "row_count_change": RowCountChangeCheck,
    "schema": SchemaCheck,
    "freshness": FreshnessCheck,
    "sql": SqlCheck,
}


CHECK_DOC = {
    "description": "One check; `type` chooses its shape (`NotNullCheck` ... `SqlCheck`)",
    "oneOf": [
        {"$ref": f"#/components/schemas/{schema.__name__}"} for schema in CHECK_SCHEMAS.values()
    ],
}


def register_check_schemas(spec):
    """Publish each check's shape under components/schemas, for ``CHECK_DOC``'s ``oneOf``."""
    for schema in CHECK_SCHEMAS.values():
        if schema.__name__ not in spec.components.schemas:
            spec.components.schema(schema.__name__, schema=schema)


class ChecksSchema(Schema):
    checks = fields.List(
        ChosenBy("type", CHECK_SCHEMAS, metadata=CHECK_DOC),
        required=True,
        validate=Length(max=MAX_CHECKS),
    )

    @validates_schema
    def _unique_names(self, data, **_kwargs):
        seen = set()
        for position, check in enumerate(data.get("checks") or []):
            if check["name"] in seen:
                raise ValidationError(
                    {
                        position: {
                            "name": [ErrorMessage("names must be unique", "value_error.unique")]
                        }
                    },
                    "checks",
                )
            seen.add(check["name"])


class CheckResultSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True)
    severity = fields.String(required=True, metadata={"enum": list(SEVERITIES)})
    status = fields.String(required=True, metadata={"enum": list(RESULTS)})
    failing_rows = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Rows that fail it, if rows"}
    )
    message = fields.String(required=True, metadata={"description": "What was found, in words"})
    sample = fields.List(
        fields.List(fields.Raw()),
        required=True,
        metadata={"description": "Up to 10 failing rows (or keys, for unique)"},
    )


class VersionChecksSchema(Schema):
    state = fields.String(required=True, metadata={"enum": list(STATES)})
    checked_at = fields.DateTime(format="iso", allow_none=True, required=True)
    published_by = fields.String(
        allow_none=True, required=True, metadata={"description": "Who published it anyway"}
    )
    results = fields.List(
        fields.Nested(CheckResultSchema),
        required=True,
        metadata={"description": "Empty while pending, and for a dataset without checks"},
    )
