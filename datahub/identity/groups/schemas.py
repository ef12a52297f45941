"""Group resources as the API shows them and as admins create and change them."""

from marshmallow import post_load

from datahub.identity.group_models import GROUP_SOURCES
from datahub.web.listing import ListArgsSchema, page_schema
from datahub.web.openapi import named_enum
from datahub.web.validation import (
    Length,
    OneOf,
    Schema,
    fields,
    label_field,
    name_field,
    strip_name,
    text_field,
)

GROUP_SOURCE = named_enum(
    "GroupSource",
    GROUP_SOURCES,
    "Who keeps the members. local: admins; ldap, oidc: each login, from the groups the "
    "directory or the provider names (by name, case-insensitively)",
)


class GroupSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    description = fields.String(required=True)
    source = fields.String(required=True, metadata=GROUP_SOURCE)
    member_ids = fields.List(
        fields.String(), required=True, metadata={"description": "Members' user ids, ascending"}
    )
    created_at = fields.DateTime(required=True, format="iso")


class GroupCreateSchema(Schema):
    name = name_field(
        "Unique, compared case-insensitively; surrounding spaces are removed", required=True
    )
    description = text_field(10000, load_default="")
    source = fields.String(
        validate=OneOf(GROUP_SOURCES), load_default="local", metadata=GROUP_SOURCE
    )

    @post_load
    def _strip(self, data, **_):
        return strip_name(data)


class GroupUpdateSchema(Schema):
    """PATCH: any subset of name and description; the source never changes."""

    name = name_field("Unique, compared case-insensitively; surrounding spaces are removed")
    description = text_field(10000)

    @post_load
    def _strip(self, data, **_):
        return strip_name(data)


class GroupListArgsSchema(ListArgsSchema):
    q = label_field(Length(max=255), "Only groups whose name contains this (case-insensitive)")


GroupPageSchema = page_schema(GroupSchema, "GroupPage")
