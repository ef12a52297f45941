"""The answers about a version's schema and profile, and a diff's drift."""

from datahub.datasets.profiles import services
from datahub.web.validation import Schema, fields

STATUSES = ("pending", "ready", "failed")


class SchemaColumnSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True, metadata={"description": "Its type, as DuckDB reads it"})
    nullable = fields.Boolean(
        required=True, metadata={"description": "Whether the version has a null in it"}
    )


class VersionSchemaSchema(Schema):
    columns = fields.List(fields.Nested(SchemaColumnSchema), required=True)
    rows = fields.Integer(required=True)


class CurrentSchemaField(fields.Nested):
    """The current version's schema (datahub.datasets.profiles), read by a worker."""

    def __init__(self):
        super().__init__(
            VersionSchemaSchema,
            required=True,
            allow_none=True,
            data_key="schema",
            metadata={
                "description": "The current version's columns and rows; null without a file, "
                "for a file that is not a table, and until a worker has read it"
            },
        )

    def get_value(self, obj, attr, accessor=None, default=None):
        return services.current_schema(obj)


class PendingSchema(Schema):
    status = fields.String(required=True, metadata={"enum": ["pending"]})


def _value(description):
    return fields.Raw(allow_none=True, metadata={"description": description})


class QuantilesSchema(Schema):
    p25 = _value("The first quartile")
    p50 = _value("The median")
    p75 = _value("The third quartile")


class BinSchema(Schema):
    from_ = fields.Raw(required=True, data_key="from", attribute="from")
    to = fields.Raw(required=True)
    count = fields.Integer(required=True)


class ValueCountSchema(Schema):
    value = fields.Raw(required=True)
    count = fields.Integer(required=True)


class LengthSchema(Schema):
    min = fields.Integer(allow_none=True)
    max = fields.Integer(allow_none=True)
    mean = fields.Float(allow_none=True)


class ProfileColumnSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True)
    count = fields.Integer(required=True, metadata={"description": "Values that are not null"})
    nulls = fields.Integer(required=True)
    null_fraction = fields.Float(required=True)
    distinct = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Distinct values (approximate)"}
    )
    min = _value("The smallest value (numbers, dates, text)")
    max = _value("The largest value")
    mean = _value("Numbers only")
    stddev = _value("Numbers only")
    quantiles = fields.Nested(QuantilesSchema, allow_none=True)
    histogram = fields.List(
        fields.Nested(BinSchema),
        allow_none=True,
        metadata={"description": "Numbers and dates: at most 20 bins of equal width"},
    )
    top_values = fields.List(
        fields.Nested(ValueCountSchema),
        allow_none=True,
        metadata={"description": "Label columns: the 10 most frequent values"},
    )
    length = fields.Nested(LengthSchema, allow_none=True, metadata={"description": "Text only"})


class ProfileSchema(Schema):
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    rows = fields.Integer(metadata={"description": "When ready"})
    computed_at = fields.DateTime(format="iso", metadata={"description": "When ready"})
    partial = fields.Boolean(
        metadata={"description": "When ready: whether quantiles come from a sample"}
    )
    columns = fields.List(
        fields.Nested(ProfileColumnSchema), metadata={"description": "When ready"}
    )
    error = fields.String(metadata={"description": "When failed: why"})


class ChangeSchema(Schema):
    from_ = fields.Raw(required=True, allow_none=True, data_key="from", attribute="from")
    to = fields.Raw(required=True, allow_none=True)


class ColumnDriftSchema(Schema):
    name = fields.String(required=True)
    null_fraction = fields.Nested(ChangeSchema, required=True)
    distinct = fields.Nested(ChangeSchema, required=True)
    mean = fields.Nested(ChangeSchema, required=True)
    new_values = fields.List(
        fields.Raw(),
        required=True,
        metadata={"description": "Most frequent values of `to` that `from`'s were not"},
    )
    missing_values = fields.List(
        fields.Raw(),
        required=True,
        metadata={"description": "Most frequent values of `from` that `to`'s are not"},
    )
