"""The bodies that datasets, collections and pipelines share: visibility and grants
(docs/guides/access.rst)."""

from marshmallow import validate

from datahub.platform.errors import ErrorMessage
from datahub.resources.access import VISIBILITIES
from datahub.resources.capabilities import capabilities_of
from datahub.resources.grant_models import PERMISSIONS
from datahub.web.listing import ListArgsSchema, page_schema
from datahub.web.openapi import named_enum
from datahub.web.validation import OneOf, Schema, fields

VISIBILITY = named_enum(
    "Visibility",
    VISIBILITIES,
    "private: the owner, grantees and admins; internal: every user",
)
PERMISSION = named_enum(
    "Permission", PERMISSIONS, "read: get, list, download, preview; write: read and change"
)
# A user by id or by email (any owner may share by email: the grant keeps the id), a
# group by id. Plain character classes only (no \s): Python's and JSON Schema's regexes
# must agree on what matches, as the contract fuzz checks; and no NUL, which no request
# string may hold.
PRINCIPAL_PATTERN = (
    r"^(user:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|user:[^@:\u0000]{1,64}@[^@\u0000]{1,255}|group:[1-9][0-9]{0,9})$"
)


def visibility_field(**kwargs):
    return fields.String(validate=OneOf(VISIBILITIES), metadata=VISIBILITY, **kwargs)


class CapabilitiesSchema(Schema):
    """What the caller may do; the server refuses the rest anyway (403)."""

    write = fields.Boolean(
        required=True,
        metadata={"description": "Change it: name, description, files, members, steps, runs"},
    )
    manage = fields.Boolean(
        required=True,
        metadata={"description": "Share it (grants), change its visibility, delete it"},
    )


class CapabilitiesField(fields.Nested):
    """The caller's capabilities on the row being shown (computed, never stored)."""

    def __init__(self):
        super().__init__(
            CapabilitiesSchema,
            required=True,
            metadata={"description": "What the caller may do to it (a role is a ceiling)"},
        )

    def get_value(self, obj, attr, accessor=None, default=None):
        return capabilities_of(obj)


class GrantSchema(Schema):
    id = fields.Integer(required=True)
    principal = fields.String(required=True)
    permission = fields.String(required=True, metadata=PERMISSION)
    created_at = fields.DateTime(required=True, format="iso")


class GrantCreateSchema(Schema):
    principal = fields.String(
        required=True,
        validate=validate.Regexp(
            PRINCIPAL_PATTERN,
            error=ErrorMessage('string does not match regex "{regex}"', "value_error.str.regex"),
        ),
        metadata={
            "description": "`user:<uuid>`, `user:<email>` (kept as the user's id) or `group:<id>`",
            "pattern": PRINCIPAL_PATTERN,
        },
    )
    permission = fields.String(required=True, validate=OneOf(PERMISSIONS), metadata=PERMISSION)


GrantListArgsSchema = ListArgsSchema
GrantPageSchema = page_schema(GrantSchema, "GrantPage")
