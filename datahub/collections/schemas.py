"""Collection bodies. Clients set ``name``, ``description`` and ``dataset_ids``; ``id``,
``owner_id`` and timestamps are refused with 422 ``extra fields not permitted``."""

from marshmallow import post_dump, post_load

from datahub.datasets.models import Dataset
from datahub.identity.guard import current_user
from datahub.resources.access import readable_ids
from datahub.resources.schemas import CapabilitiesField, visibility_field
from datahub.web.listing import NamedListArgsSchema, page_schema
from datahub.web.validation import Length, Range, Schema, fields, name_field, strip_name, text_field

MAX_MEMBERS_PER_REQUEST = 1000


class CollectionSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    description = fields.String(required=True)
    owner_id = fields.String(required=True)
    visibility = visibility_field(required=True)
    dataset_ids = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "Member datasets the caller may read, ascending"},
    )
    created_at = fields.DateTime(required=True, format="iso")
    updated_at = fields.DateTime(required=True, format="iso")
    capabilities = CapabilitiesField()

    @post_dump
    def _only_readable_members(self, data, **_):
        """Members the caller may not read are not shown (nor counted)."""
        data["dataset_ids"] = readable_ids(Dataset, data["dataset_ids"], current_user)
        return data


class CollectionCreateSchema(Schema):
    name = name_field(
        "Unique, compared case-insensitively; surrounding spaces are removed", required=True
    )
    description = text_field(10000, load_default="")
    dataset_ids = fields.List(
        fields.Integer(strict=True, validate=Range(min=1)),
        load_default=list,
        validate=Length(max=MAX_MEMBERS_PER_REQUEST),
        metadata={"description": "Initial members; every one must exist"},
    )
    visibility = visibility_field()

    @post_load
    def _strip(self, data, **_):
        return strip_name(data)


class CollectionUpdateSchema(CollectionCreateSchema):
    """PATCH: any subset; ``dataset_ids`` replaces the member list."""

    def __init__(self, **kwargs):
        super().__init__(partial=True, **kwargs)

    description = text_field(10000)
    dataset_ids = fields.List(
        fields.Integer(strict=True, validate=Range(min=1)),
        validate=Length(max=MAX_MEMBERS_PER_REQUEST),
    )


CollectionListArgsSchema = NamedListArgsSchema
CollectionPageSchema = page_schema(CollectionSchema, "CollectionPage")
