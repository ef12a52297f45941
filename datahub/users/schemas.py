"""User resources as the API shows them and as operators create them."""
from marshmallow import pre_load

from datahub import fields
from datahub.identity.models import PROVIDERS, ROLES, normalise_email
from datahub.identity.passwords import MAX_PASSWORD_BYTES, MIN_PASSWORD_BYTES
from datahub.validation import (
    NO_NUL_PATTERN,
    ByteLength,
    Length,
    OneOf,
    Schema,
    StrictBoolean,
    label_field,
)


class UserSchema(Schema):
    """A user as seed 2.1 defines it."""

    id = fields.String(required=True)
    email = fields.String(required=True)
    name = fields.String(required=True)
    is_active = fields.Boolean(required=True)
    provider = fields.String(required=True, metadata={"enum": list(PROVIDERS)})
    roles = fields.List(fields.String(validate=OneOf(ROLES)), required=True)
    created_at = fields.DateTime(required=True, format="iso")


def password_field(**kwargs):
    """A new password: 8 to 72 bytes of UTF-8 (bcrypt's limit). JSON Schema counts
    characters, so the document states the bounds and the description says bytes."""
    return fields.String(
        load_only=True,
        validate=ByteLength(min=MIN_PASSWORD_BYTES, max=MAX_PASSWORD_BYTES),
        metadata={"minLength": MIN_PASSWORD_BYTES, "maxLength": MAX_PASSWORD_BYTES,
                  "pattern": NO_NUL_PATTERN, "description": "8 to 72 bytes in UTF-8"},
        **kwargs,
    )


class NewUserSchema(Schema):
    """What it takes to create a user (operator CLI, admin API)."""

    email = fields.Email(required=True, validate=Length(max=320))
    password = password_field(required=True)
    name = label_field(Length(max=255), load_default="")
    roles = fields.List(
        fields.String(validate=OneOf(ROLES)),
        load_default=lambda: ["viewer"],
    )

    @pre_load
    def _normalise(self, data, **_):
        if isinstance(data, dict) and "email" in data:
            data = {**data, "email": normalise_email(data["email"])}
        return data


class PasswordSchema(Schema):
    password = password_field(required=True)


class UserUpdateSchema(Schema):
    """PATCH /users/{id}: any subset. Changing the password or deactivating ends the
    user's sessions."""

    name = label_field(Length(max=255))
    roles = fields.List(fields.String(validate=OneOf(ROLES)))
    is_active = StrictBoolean()
    password = password_field()
