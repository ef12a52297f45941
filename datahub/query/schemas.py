"""The SQL console's request and answer."""

from flask import current_app

from datahub.datasets.schemas import PreviewColumnSchema
from datahub.datasets.sql_field import ConsoleQuery
from datahub.datasets.tabular import FORMATS
from datahub.pipelines.steps import ANY_TEXT, MAX_QUERY, SqlStep
from datahub.platform.database import MAX_ID
from datahub.web.validation import Length, OneOf, Range, Schema, fields

DEFAULT_ROWS = 1000
MAX_ROWS = 10000  # QUERY_MAX_ROWS's default: what the OpenAPI document states
MAX_PINS = 100


class QueryRows(Range):
    """1 to ``QUERY_MAX_ROWS``, read from the app's settings at each load."""

    def __init__(self):
        super().__init__(min=1, max=MAX_ROWS)

    def __call__(self, value):
        return Range(min=self.min, max=int(current_app.config["QUERY_MAX_ROWS"]))(value)


class VersionPinSchema(Schema):
    dataset_id = fields.Integer(strict=True, required=True, validate=Range(min=1, max=MAX_ID))
    version = fields.Integer(strict=True, required=True, validate=Range(min=1, max=MAX_ID))


class QuerySchema(Schema):
    sql = ConsoleQuery(
        required=True,
        validate=Length(min=1, max=MAX_QUERY),
        metadata={
            **ANY_TEXT,
            "description": "One read-only SELECT (WITH allowed). Its tables are datasets "
            'by name, quoted as identifiers where needed (`"Sales 2025"`), at their '
            'current version, or at a version: `"Sales 2025@3"`',
        },
    )
    limit = fields.Integer(
        strict=True,
        load_default=DEFAULT_ROWS,
        validate=QueryRows(),
        metadata={"description": "Rows to answer as JSON, 1 to 10,000 (QUERY_MAX_ROWS)"},
    )
    pins = fields.List(
        fields.Nested(VersionPinSchema),
        load_default=list,
        validate=Length(max=MAX_PINS),
        metadata={
            "description": "Versions to read instead of the current ones: a table whose "
            "dataset is listed (and that has no `@N`) reads that version. A result's "
            "`inputs` pinned this way give the same rows again"
        },
    )


class QueryArgsSchema(Schema):
    format = fields.String(
        validate=OneOf(FORMATS),
        metadata={
            "description": "Answer the whole result as a file in this format instead of "
            "JSON rows (at most QUERY_MAX_BYTES, else 422: never a cut file)"
        },
    )


class QueryInputSchema(Schema):
    dataset_id = fields.Integer(required=True)
    name = fields.String(required=True, metadata={"description": "The dataset's name"})
    version = fields.Integer(required=True, metadata={"description": "The version read"})


class QueryPipelineSchema(Schema):
    source_dataset_id = fields.Integer(required=True)
    steps = fields.List(fields.Nested(SqlStep), required=True)


class QueryResultSchema(Schema):
    columns = fields.List(fields.Nested(PreviewColumnSchema), required=True)
    rows = fields.List(
        fields.List(fields.Raw(allow_none=True)),
        required=True,
        metadata={
            "description": "The first rows, each a list of values in column order: numbers "
            "and booleans as JSON's, null for NULL, dates and times as ISO 8601 text, "
            "decimals and non-finite numbers as text, blobs as base64"
        },
    )
    truncated = fields.Boolean(
        required=True,
        metadata={
            "description": "True when the result has more rows than shown (past `limit` or "
            "QUERY_MAX_RESPONSE_BYTES of JSON): export it for all of them"
        },
    )
    elapsed_ms = fields.Float(required=True, metadata={"description": "Time on the server"})
    inputs = fields.List(
        fields.Nested(QueryInputSchema),
        required=True,
        metadata={"description": "The dataset versions read (pin them to read them again)"},
    )
    pins = fields.List(
        fields.Nested(VersionPinSchema),
        required=True,
        metadata={
            "description": "Send these back as the body's `pins` for the same rows: the "
            "versions of the tables written without `@N`"
        },
    )
    pipeline = fields.Nested(
        QueryPipelineSchema,
        allow_none=True,
        required=True,
        metadata={
            "description": "A pipeline's `source_dataset_id` and `steps` that make the same "
            "of the one dataset the query reads; null when it reads several or none"
        },
    )
