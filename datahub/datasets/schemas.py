"""Dataset bodies. Only ``name``, ``description`` and ``tags`` can be set by clients;
anything else (``id``, ``owner_id``, timestamps, ``file``) is refused with 422
``extra fields not permitted``."""

from flask import current_app
from marshmallow import post_load

from datahub.datasets import usage
from datahub.datasets.profiles.schemas import ColumnDriftSchema, CurrentSchemaField
from datahub.datasets.tabular import FORMATS
from datahub.resources.schemas import CapabilitiesField, visibility_field
from datahub.web.listing import NamedListArgsSchema, page_schema
from datahub.web.openapi import named_enum
from datahub.web.validation import (
    TEXT_PATTERN,
    ByteLength,
    Length,
    NoControlCharacters,
    Range,
    Schema,
    StrictBoolean,
    fields,
    label_field,
    name_field,
    strip_name,
    text_field,
)

MAX_TAGS = 50
MAX_README_BYTES = 102400  # 100 KB of UTF-8
PREVIEW_ROWS = 50  # a preview's default ``limit``
MAX_PREVIEW_ROWS = 1000  # PREVIEW_MAX_ROWS' default, which the OpenAPI document states
FILE_FORMAT = named_enum(
    "FileFormat", FORMATS, "A tabular file's format: csv, parquet or jsonl (JSON lines)"
)


class DatasetFileSchema(Schema):
    """What is known of a dataset's file (named so that no generated client's model
    collides with its own ``File`` type)."""

    filename = fields.String(
        required=True,
        metadata={
            "description": "The name the client gave (multipart part's filename, or the "
            "`filename` query parameter of a raw upload)"
        },
    )
    content_type = fields.String(
        required=True,
        metadata={
            "description": "The media type the client sent with the file (the request's or "
            "the multipart part's Content-Type; application/octet-stream when "
            "none): downloads answer with it"
        },
    )
    size_bytes = fields.Integer(required=True, metadata={"minimum": 0})
    sha256 = fields.String(
        required=True,
        metadata={"description": "Hex digest of the file's bytes; the download's ETag"},
    )
    uploaded_at = fields.DateTime(required=True, format="iso")


class DatasetStatsSchema(Schema):
    """Views and downloads in the last 30 days (UTC), as written so far: a process writes
    its counts every ``USAGE_FLUSH_SECONDS``, so they lag by up to that long."""

    downloads_30d = fields.Integer(
        required=True,
        metadata={
            "minimum": 0,
            "description": "GETs of its file or of a version's file (200, 302, or 206 from "
            "the first byte)",
        },
    )
    views_30d = fields.Integer(
        required=True,
        metadata={"minimum": 0, "description": "GETs of the dataset (2xx or 304)"},
    )


class StatsField(fields.Nested):
    """The dataset's usage statistics (computed from ``dataset_usage``, never stored)."""

    def __init__(self):
        super().__init__(
            DatasetStatsSchema,
            required=True,
            metadata={"description": "Its views and downloads in the last 30 days"},
        )

    def get_value(self, obj, attr, accessor=None, default=None):
        return usage.stats_of(obj)


class DatasetSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    description = fields.String(required=True)
    readme = fields.String(
        required=True, metadata={"description": "Markdown (rendered by clients)"}
    )
    tags = fields.List(fields.String(), required=True)
    owner_id = fields.String(required=True)
    visibility = visibility_field(required=True)
    created_at = fields.DateTime(required=True, format="iso")
    updated_at = fields.DateTime(required=True, format="iso")
    file = fields.Nested(
        DatasetFileSchema,
        allow_none=True,
        required=True,
        metadata={"description": "The current version's file; null until a file is uploaded"},
    )
    current_version = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The current version's number; null until a file is uploaded"},
    )
    capabilities = CapabilitiesField()
    stats = StatsField()
    schema_ = CurrentSchemaField()


def readme_field(**kwargs):
    """A dataset's README: Markdown, at most 100 KB of UTF-8, no control character but
    TAB, LF and CR. Clients render it (sanitised)."""
    return fields.String(
        validate=[ByteLength(max=MAX_README_BYTES), NoControlCharacters(text=True)],
        metadata={
            "pattern": TEXT_PATTERN,
            "maxLength": MAX_README_BYTES,
            "x-maxBytes": MAX_README_BYTES,
            "description": "Markdown, at most 102,400 bytes of UTF-8: what the data is, "
            "where it comes from, how to use it",
        },
        **kwargs,
    )


class DatasetCreateSchema(Schema):
    name = name_field(
        "Unique, compared case-insensitively; surrounding spaces are removed", required=True
    )
    description = text_field(10000, load_default="")
    readme = readme_field(load_default="")
    tags = fields.List(
        label_field(Length(min=1, max=64)),
        load_default=list,
        validate=Length(max=MAX_TAGS),
        metadata={"description": "Up to 50 tags of 1 to 64 characters; duplicates are dropped"},
    )
    visibility = visibility_field()

    @post_load
    def _strip(self, data, **_):
        return strip_name(data)


class DatasetUpdateSchema(DatasetCreateSchema):
    """PATCH: any subset of the create fields."""

    def __init__(self, **kwargs):
        super().__init__(partial=True, **kwargs)

    # No defaults on PATCH: a missing field stays as it is.
    description = text_field(10000)
    readme = readme_field()
    tags = fields.List(label_field(Length(min=1, max=64)), validate=Length(max=MAX_TAGS))


class DatasetListArgsSchema(NamedListArgsSchema):
    tag = label_field(Length(min=1, max=64), "Only datasets carrying this tag (exact)")


class UploadArgsSchema(Schema):
    filename = label_field(
        Length(min=1, max=255),
        "For a raw body: the file name to keep as metadata (a multipart upload takes the "
        "part's filename)",
    )
    message = label_field(
        Length(min=1, max=255), "A note kept with the new version (up to 255 characters)"
    )


class PreviewRows(Range):
    """1 to ``PREVIEW_MAX_ROWS``, read from the app's settings at each load (the OpenAPI
    document states the default)."""

    def __init__(self):
        super().__init__(min=1, max=MAX_PREVIEW_ROWS)

    def __call__(self, value):
        return Range(min=self.min, max=int(current_app.config["PREVIEW_MAX_ROWS"]))(value)


class PreviewArgsSchema(Schema):
    limit = fields.Integer(
        load_default=PREVIEW_ROWS,
        validate=PreviewRows(),
        metadata={"description": "Rows to show, 1 to 1000 (PREVIEW_MAX_ROWS)"},
    )


class PreviewColumnSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(
        required=True,
        metadata={"description": "DuckDB's type name: VARCHAR, BIGINT, DOUBLE, DATE, ..."},
    )


class PreviewSchema(Schema):
    format = fields.String(
        required=True,
        metadata={**FILE_FORMAT, "description": "What the file was read as (from its bytes)"},
    )
    columns = fields.List(fields.Nested(PreviewColumnSchema), required=True)
    rows = fields.List(
        fields.List(fields.Raw(allow_none=True)),
        required=True,
        metadata={
            "description": "The first rows, each a list of values in column order: "
            "numbers and booleans as JSON's, null for an empty cell, "
            "dates and times as ISO 8601 text, decimals as text"
        },
    )
    truncated = fields.Boolean(
        required=True,
        metadata={
            "description": "True when a cell was cut: text past 1,000 characters, or a list "
            "past 100 items, ends with `…`"
        },
    )


DatasetPageSchema = page_schema(DatasetSchema, "DatasetPage")


class DiffArgsSchema(Schema):
    from_ = fields.Integer(
        required=True,
        data_key="from",
        validate=Range(min=1),
        metadata={"description": "The version compared from"},
    )
    to = fields.Integer(
        required=True, validate=Range(min=1), metadata={"description": "The version compared to"}
    )
    key = label_field(
        Length(min=1, max=255),
        "Columns that identify a row, comma-separated (`id` or `city,date`): rows are "
        "matched by them (a key value twice in one version is 422). Without: the versions "
        "are compared as multisets of rows, and nothing is `changed`.",
    )

    @post_load
    def _key_columns(self, data, **_):
        data["key"] = [name.strip() for name in data.get("key", "").split(",") if data.get("key")]
        return data


class ColumnTypeSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True, metadata={"description": "DuckDB's type name"})


class ColumnChangeSchema(Schema):
    name = fields.String(required=True)
    from_ = fields.String(required=True, data_key="from", attribute="from")
    to = fields.String(required=True)


class SchemaChangesSchema(Schema):
    added = fields.List(fields.Nested(ColumnTypeSchema), required=True)
    removed = fields.List(fields.Nested(ColumnTypeSchema), required=True)
    changed = fields.List(fields.Nested(ColumnChangeSchema), required=True)


class RowCountsSchema(Schema):
    added = fields.Integer(required=True)
    removed = fields.Integer(required=True)
    changed = fields.Integer(required=True)
    unchanged = fields.Integer(required=True)


class ChangedRowSchema(Schema):
    key = fields.List(fields.Raw(allow_none=True), required=True)
    from_ = fields.List(
        fields.Raw(allow_none=True), required=True, data_key="from", attribute="from"
    )
    to = fields.List(fields.Raw(allow_none=True), required=True)


class DiffSampleSchema(Schema):
    added = fields.List(fields.List(fields.Raw(allow_none=True)), required=True)
    removed = fields.List(fields.List(fields.Raw(allow_none=True)), required=True)
    changed = fields.List(fields.Nested(ChangedRowSchema), required=True)


class DiffSchema(Schema):
    from_ = fields.Integer(required=True, data_key="from", attribute="from")
    to = fields.Integer(required=True)
    schema_changes = fields.Nested(
        SchemaChangesSchema,
        required=True,
        data_key="schema",
        attribute="schema",
        metadata={"description": "Columns added, removed, and whose type changed"},
    )
    rows = fields.Nested(RowCountsSchema, required=True)
    sample = fields.Nested(
        DiffSampleSchema,
        required=True,
        metadata={
            "description": "Up to 20 rows of each kind (those with the smallest keys), "
            "their values in the order of `columns`; long text cut as in previews"
        },
    )
    columns = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "The columns rows are compared on: those of both versions, in "
            "the order of `to` (a column whose type changed is compared as text)"
        },
    )
    profile = fields.List(
        fields.Nested(ColumnDriftSchema),
        required=True,
        allow_none=True,
        metadata={
            "description": "Drift: how the statistics of the columns both versions have "
            "changed, from their profiles; null until both are profiled"
        },
    )


class VersionSchema(Schema):
    version = fields.Integer(required=True, metadata={"minimum": 1})
    sha256 = fields.String(
        required=True, metadata={"description": "Hex digest of the bytes; the download's ETag"}
    )
    size_bytes = fields.Integer(required=True, metadata={"minimum": 0})
    filename = fields.String(required=True)
    content_type = fields.String(required=True)
    format = fields.String(
        required=True,
        allow_none=True,
        metadata={
            **FILE_FORMAT,
            "description": "csv, parquet or jsonl, recognised from the bytes when stored; "
            "null for a file that is not tabular (or stored before versions)",
        },
    )
    created_at = fields.DateTime(required=True, format="iso")
    created_by = fields.String(
        required=True, allow_none=True, metadata={"description": "The user id; null once deleted"}
    )
    run_id = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The run whose output this is; null for an upload or restore"},
    )
    message = fields.String(required=True, allow_none=True)
    pinned = fields.Boolean(
        required=True, metadata={"description": "Kept whatever VERSIONS_KEEP says"}
    )
    state = fields.String(
        required=True,
        metadata={
            "enum": ["pending", "published", "quarantined"],
            "description": "`pending` while the dataset's checks run on it; only a "
            "`published` version is current, triggers runs and feeds pipelines",
        },
    )


class VersionUpdateSchema(Schema):
    pinned = StrictBoolean(metadata={"description": "Keep it whatever VERSIONS_KEEP says"})
    message = text_field(1000, allow_none=True)


class VersionMessageArgsSchema(Schema):
    message = label_field(
        Length(min=1, max=255), "A note kept with the new version (up to 255 characters)"
    )


class VersionDeleteArgsSchema(Schema):
    force = fields.Boolean(
        load_default=False,
        metadata={"description": "Admins: delete it even though a run read it"},
    )


VersionPageSchema = page_schema(VersionSchema, "VersionPage")
