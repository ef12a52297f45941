"""Search's query parameters and answers."""

from marshmallow import post_load, validate

from datahub.datasets.tabular import FORMATS
from datahub.platform.errors import ErrorMessage
from datahub.resources.schemas import visibility_field
from datahub.search.models import KINDS
from datahub.search.query import MAX_QUERY_CHARS
from datahub.web.listing import ListArgsSchema
from datahub.web.validation import Length, OneOf, Range, Schema, fields, label_field

SORTS = ("relevance", "-updated_at", "name", "popular")
MAX_SUGGEST_CHARS = 100
_KIND = "(" + "|".join(KINDS) + ")"
KIND_LIST_PATTERN = f"^{_KIND}(,{_KIND})*$"


class KindList(validate.Validator):
    """A comma-separated list of kinds: ``dataset,collection``."""

    error = ErrorMessage(
        "value is not a valid enumeration member; permitted: "
        + ", ".join(f"'{kind}'" for kind in KINDS)
        + " (comma-separated)",
        "type_error.enum",
    )

    def __call__(self, value):
        if not value or any(kind not in KINDS for kind in value.split(",")):
            raise validate.ValidationError(self.error)
        return value


class SearchArgsSchema(ListArgsSchema):
    q = label_field(
        Length(max=MAX_QUERY_CHARS),
        'Words (all must match, stemmed, case- and accent-insensitive), `"a phrase"`, '
        "`-word` (must not match), `or` between two; the last word also matches as a "
        "prefix. None: everything the caller may read",
    )
    kinds = fields.String(
        data_key="type",
        validate=KindList(),
        metadata={
            "description": "Only these kinds, comma-separated: `dataset`, `collection`, `pipeline`",
            "pattern": KIND_LIST_PATTERN,
        },
    )
    tag = label_field(Length(min=1, max=64), "Only datasets carrying this tag (exact)")
    owner = label_field(Length(min=1, max=36), "Only what this user id owns (`me`: the caller)")
    format = fields.String(
        validate=OneOf(FORMATS),
        metadata={"description": "Only datasets whose current file has this format"},
    )
    visibility = visibility_field()
    collection = fields.Integer(
        validate=Range(min=1, max=2**31 - 1),
        metadata={"description": "Only datasets that are members of this collection"},
    )
    sort = fields.String(
        validate=OneOf(SORTS),
        metadata={
            "description": "`relevance` (the default; without `q`: `-updated_at`), "
            "`-updated_at` (newest first), `name`, or `popular` (views and downloads in "
            "the last 30 days)"
        },
    )

    @post_load
    def _kinds(self, data, **_):
        if data.get("kinds"):
            data["kinds"] = list(dict.fromkeys(data["kinds"].split(",")))
        return data


class SuggestArgsSchema(Schema):
    q = label_field(
        Length(max=MAX_SUGGEST_CHARS),
        "What has been typed so far: names of datasets, collections and pipelines, tags and "
        "column names containing it are suggested",
        required=True,
    )


class HighlightsSchema(Schema):
    name = fields.String()
    description = fields.String()
    readme = fields.String(metadata={"description": "An excerpt of the README"})


class MatchedColumnSchema(Schema):
    name = fields.String(required=True)
    value = fields.String(metadata={"description": "A value of the column that matched"})


class OwnerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class SearchResultSchema(Schema):
    type = fields.String(required=True, validate=OneOf(KINDS))
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    description = fields.String(required=True, metadata={"description": "At most 300 characters"})
    tags = fields.List(fields.String(), required=True)
    owner_id = fields.String(required=True)
    owner = fields.Nested(OwnerSchema, required=True)
    updated_at = fields.DateTime(required=True, format="iso")
    visibility = visibility_field(required=True)
    format = fields.String(required=True, allow_none=True)
    size_bytes = fields.Integer(required=True, allow_none=True)
    rows = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Not known yet: null"}
    )
    score = fields.Float(required=True, metadata={"description": "Relevance: higher is better"})
    highlights = fields.Nested(
        HighlightsSchema,
        required=True,
        metadata={
            "description": "The text that matched, HTML-escaped, each match in `<mark>...</mark>`"
        },
    )
    matched_columns = fields.List(fields.Nested(MatchedColumnSchema), required=True)


class FacetValueSchema(Schema):
    value = fields.String(required=True)
    count = fields.Integer(required=True)
    name = fields.String(metadata={"description": "An owner's name"})


class FacetsSchema(Schema):
    type = fields.List(fields.Nested(FacetValueSchema), required=True)
    tags = fields.List(fields.Nested(FacetValueSchema), required=True)
    owner = fields.List(fields.Nested(FacetValueSchema), required=True)
    format = fields.List(fields.Nested(FacetValueSchema), required=True)
    visibility = fields.List(fields.Nested(FacetValueSchema), required=True)


class SearchPageSchema(Schema):
    items = fields.List(fields.Nested(SearchResultSchema), required=True)
    total = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    facets = fields.Nested(FacetsSchema, required=True)


class SuggestionSchema(Schema):
    type = fields.String(
        required=True, validate=OneOf(KINDS), metadata={"description": "What choosing it opens"}
    )
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = fields.String(
        required=True,
        validate=OneOf(("dataset", "collection", "pipeline", "tag", "column")),
        metadata={"description": "What `name` is: a resource's name, a tag, or a column name"},
    )


class SuggestionsSchema(Schema):
    items = fields.List(fields.Nested(SuggestionSchema), required=True)
