"""User resources as the API shows them and as operators create them."""

from marshmallow import ValidationError, post_load, pre_load

from datahub.identity.models import PROVIDERS, ROLES, normalise_email
from datahub.identity.passwords import MAX_PASSWORD_BYTES, MIN_PASSWORD_BYTES
from datahub.platform.errors import ErrorMessage
from datahub.web.listing import MAX_OFFSET
from datahub.web.openapi import named_enum
from datahub.web.validation import (
    NO_NUL_PATTERN,
    ByteLength,
    Length,
    OneOf,
    Range,
    Schema,
    StrictBoolean,
    fields,
    label_field,
)

ROLE = named_enum(
    "Role",
    ROLES,
    "viewer: reads everything and downloads files; editor: a "
    "viewer that also creates, and changes or deletes what it owns; admin: "
    "everything, users included",
)


def role_field():
    return fields.String(validate=OneOf(ROLES), metadata=ROLE)


class UserSchema(Schema):
    """A user as seed 2.1 defines it."""

    id = fields.String(required=True)
    email = fields.String(required=True)
    name = fields.String(required=True)
    is_active = fields.Boolean(required=True)
    provider = fields.String(required=True, metadata={"enum": list(PROVIDERS)})
    roles = fields.List(role_field(), required=True)
    created_at = fields.DateTime(required=True, format="iso")


# The fewest characters that can make MIN_PASSWORD_BYTES: UTF-8 has at most 4 per character.
MIN_PASSWORD_CHARACTERS = -(-MIN_PASSWORD_BYTES // 4)
PASSWORD_DESCRIPTION = (
    f"{MIN_PASSWORD_BYTES} to {MAX_PASSWORD_BYTES} bytes of UTF-8 (bcrypt's limit), "
    "counted in bytes, not characters: 8 to 72 ASCII characters, but only 4 to 36 of "
    "U+0080 to U+07FF (é, ß, ж...), 3 to 24 of the rest of the BMP (CJK...) and 2 to 18 "
    "beyond it (emoji). `x-minBytes` and `x-maxBytes` state it; `minLength` (2) and "
    "`maxLength` (72) are the widest bounds in characters (JSON Schema counts characters), "
    "so a schema check never refuses a password the server accepts. The server counts "
    "bytes (422 `ensure this value has at least 8 bytes`, `... at most 72 bytes`). No NUL "
    "character."
)


def password_field(**kwargs):
    """A new password: 8 to 72 bytes of UTF-8 (bcrypt's limit). JSON Schema counts
    characters: the document states the bounds in bytes as ``x-minBytes`` and
    ``x-maxBytes`` and in its description, and as ``minLength`` and ``maxLength`` the
    widest bounds in characters (2: two 4-byte characters are 8 bytes; 72), so no
    validating client refuses what the server accepts. Only request bodies have one, so
    it is not ``load_only`` (datahub.identity.auth.schemas says why)."""
    return fields.String(
        validate=ByteLength(min=MIN_PASSWORD_BYTES, max=MAX_PASSWORD_BYTES),
        metadata={
            "minLength": MIN_PASSWORD_CHARACTERS,
            "maxLength": MAX_PASSWORD_BYTES,
            "x-minBytes": MIN_PASSWORD_BYTES,
            "x-maxBytes": MAX_PASSWORD_BYTES,
            "pattern": NO_NUL_PATTERN,
            "description": PASSWORD_DESCRIPTION,
        },
        **kwargs,
    )


class NewUserSchema(Schema):
    """What it takes to create a user (operator CLI, admin API)."""

    email = fields.Email(required=True, validate=Length(max=320))
    password = password_field(required=True)
    name = label_field(Length(max=255), load_default="")
    roles = fields.List(role_field(), load_default=lambda: ["viewer"])

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
    roles = fields.List(role_field())
    is_active = StrictBoolean()
    password = password_field()


DIRECTORY_MAX_LIMIT = 20
DIRECTORY_MAX_IDS = 100


class DirectoryArgsSchema(Schema):
    """``GET /api/v1/users/directory``: ``q``, ``ids``, both or neither (every active
    user), at most 20 a page."""

    q = label_field(
        Length(min=1, max=100),
        "Active users whose name or email contains this (case-insensitive); those whose "
        "name or email starts with it come first",
    )
    ids = label_field(
        Length(min=1, max=DIRECTORY_MAX_IDS * 37),
        f"Comma-separated user ids (at most {DIRECTORY_MAX_IDS}): who they are, to show "
        "people instead of ids (a grant's principal, an owner)",
    )
    limit = fields.Integer(
        load_default=DIRECTORY_MAX_LIMIT,
        validate=Range(min=1, max=DIRECTORY_MAX_LIMIT),
        metadata={"description": f"Page size, 1 to {DIRECTORY_MAX_LIMIT}"},
    )
    offset = fields.Integer(
        load_default=0,
        validate=Range(min=0, max=MAX_OFFSET),
        metadata={"description": "Items to skip"},
    )

    @post_load
    def _split_ids(self, data, **_):
        if "ids" in data:
            data["ids"] = [part.strip().lower() for part in data["ids"].split(",") if part.strip()]
            if len(data["ids"]) > DIRECTORY_MAX_IDS:
                raise ValidationError(
                    ErrorMessage(
                        f"ensure this value has at most {DIRECTORY_MAX_IDS} items",
                        "value_error.list.max_items",
                    ),
                    field_name="ids",
                )
        return data


class DirectoryEntrySchema(Schema):
    """What every signed-in user may know of another: who they are, not their roles."""

    id = fields.String(required=True)
    name = fields.String(required=True)
    email = fields.String(required=True)
