"""The columns' answer and the descriptions a client sets."""

from datahub.web.validation import Length, Schema, fields, label_field, text_field

MAX_COLUMN_DESCRIPTION = 10000
MAX_DESCRIBED_COLUMNS = 1000


class ColumnSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True, metadata={"description": "Its type, as DuckDB reads it"})
    description = fields.String(
        required=True, metadata={"description": 'What it means; "" when not described'}
    )


class ColumnsSchema(Schema):
    version = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The current version, whose columns these are; null: no file"},
    )
    columns = fields.List(fields.Nested(ColumnSchema), required=True)


class ColumnDescriptionSchema(Schema):
    name = label_field(Length(min=1, max=255), "A column of the current version", required=True)
    description = text_field(MAX_COLUMN_DESCRIPTION, required=True)


class ColumnsUpdateSchema(Schema):
    columns = fields.List(
        fields.Nested(ColumnDescriptionSchema),
        required=True,
        validate=Length(min=1, max=MAX_DESCRIBED_COLUMNS),
        metadata={"description": "The descriptions to set; the other columns keep theirs"},
    )
