"""Personal access tokens as the API shows them (``/auth/tokens``, ``/users/{id}/tokens``)."""

from marshmallow import ValidationError, post_load, validate

from datahub.identity.personal_tokens.services import READ, WRITE
from datahub.platform.errors import ErrorMessage
from datahub.web.listing import page_schema
from datahub.web.validation import OneOf, Range, Schema, fields, name_field, strip_name

MAX_DAYS = 365
SCOPES_DESCRIPTION = (
    '`["read"]` (GET and HEAD only) or `["read", "write"]` (everything the user '
    'may do); `write` implies `read`, so `["write"]` is `["read", "write"]`'
)


class ScopeSet(validate.Validator):
    """One or both of ``read`` and ``write``, each once (the document says so with
    ``minItems``, ``maxItems`` and ``uniqueItems``: what it calls valid is accepted)."""

    error = ErrorMessage("the items must be unique", "value_error.list.unique_items")

    def __call__(self, value):
        if not value:
            raise ValidationError(
                ErrorMessage("ensure this value has at least 1 items", "value_error.list.min_items")
            )
        if len(set(value)) != len(value):
            raise ValidationError(self.error)
        return value


def scopes_field(**kwargs):
    return fields.List(
        fields.String(validate=OneOf((READ, WRITE))),
        metadata={
            "description": SCOPES_DESCRIPTION,
            "minItems": 1,
            "maxItems": 2,
            "uniqueItems": True,
        },
        **kwargs,
    )


class PersonalTokenCreateSchema(Schema):
    @post_load
    def _strip(self, data, **_):
        return strip_name(data)

    name = name_field("What the token is for (1 to 255 characters)", required=True)
    scopes = scopes_field(required=True, validate=ScopeSet())
    expires_in_days = fields.Integer(
        load_default=30,
        validate=Range(min=1, max=MAX_DAYS),
        metadata={"description": f"1 to {MAX_DAYS}; 30 by default"},
    )


class PersonalTokenSchema(Schema):
    """A token, without its secret."""

    id = fields.String(required=True)
    name = fields.String(required=True)
    scopes = scopes_field(required=True)
    created_at = fields.DateTime(required=True, format="iso")
    expires_at = fields.DateTime(required=True, format="iso")
    last_used_at = fields.DateTime(
        required=True,
        allow_none=True,
        format="iso",
        metadata={"description": "To the minute; null: never used"},
    )


class NewPersonalTokenSchema(PersonalTokenSchema):
    """A token just created: with its secret, shown this once."""

    token = fields.String(
        required=True,
        metadata={"description": "`dhp_...`: send it as `Authorization: Bearer`. Not shown again"},
    )


PersonalTokenPageSchema = page_schema(PersonalTokenSchema, "PersonalTokenPage")
