"""Grant bodies (docs/guides/access.rst)."""

from marshmallow import validate

from datahub.platform.errors import ErrorMessage
from datahub.resources.grants.models import PERMISSIONS
from datahub.web.listing import ListArgsSchema, page_schema
from datahub.web.openapi import named_enum
from datahub.web.validation import OneOf, Schema, fields

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
