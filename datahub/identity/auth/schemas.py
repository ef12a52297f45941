"""Request and response bodies of the auth endpoints (seed 2.2, 2.3, 4.1).

The request bodies are never dumped, so their passwords are not ``load_only``: that is
OpenAPI's ``writeOnly``, from which TypeScript generators make a second type of the
schema, the one without the password named as the schema itself."""

from datahub.identity.users.schemas import password_field
from datahub.web.listing import ListArgsSchema
from datahub.web.validation import NO_NUL_PATTERN, Schema, fields

ANY_TEXT = {"pattern": NO_NUL_PATTERN}  # NUL is refused in every JSON string


class LoginSchema(Schema):
    # No format or length rules here: any wrong email or password is a 401, not a 422.
    email = fields.String(required=True, metadata=ANY_TEXT)
    password = fields.String(required=True, metadata=ANY_TEXT)


class TokenSchema(Schema):
    access_token = fields.String(required=True)
    token_type = fields.String(required=True, metadata={"enum": ["bearer"]})


class PasswordChangeSchema(Schema):
    current_password = fields.String(required=True, metadata=ANY_TEXT)
    new_password = password_field(required=True)


PageArgsSchema = ListArgsSchema


class SessionSchema(Schema):
    """One login of the caller (a family of rotated refresh tokens)."""

    id = fields.String(required=True)
    created_at = fields.DateTime(required=True, format="iso")
    last_used_at = fields.DateTime(required=True, format="iso")
    expires_at = fields.DateTime(
        required=True, format="iso", metadata={"description": "The absolute end, fixed at login"}
    )
    user_agent = fields.String(required=True, allow_none=True)
    client_address = fields.String(
        required=True, allow_none=True, metadata={"description": "As of the last login or refresh"}
    )
    current = fields.Boolean(
        required=True, metadata={"description": "The session of the access token used"}
    )


class SessionPageSchema(Schema):
    items = fields.List(fields.Nested(SessionSchema), required=True)
    total = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    offset = fields.Integer(required=True)


class OIDCProviderSchema(Schema):
    name = fields.String(required=True, metadata={"description": "OIDC_PROVIDER_NAME"})
    login_url = fields.String(
        required=True,
        metadata={"description": "Navigate the browser here, with ?next=<path of the app>"},
    )


class ProvidersSchema(Schema):
    password = fields.Boolean(
        required=True,
        metadata={"description": "POST /auth/login with email and password (local and LDAP users)"},
    )
    oidc = fields.Nested(
        OIDCProviderSchema,
        required=True,
        allow_none=True,
        metadata={"description": "OpenID Connect logins; null when not configured"},
    )


_NO_LIMIT = "; null: no limit"


class UsageLimitsSchema(Schema):
    storage_bytes = fields.Integer(
        required=True, allow_none=True, metadata={"description": "QUOTA_STORAGE_BYTES" + _NO_LIMIT}
    )
    datasets = fields.Integer(
        required=True, allow_none=True, metadata={"description": "QUOTA_DATASETS" + _NO_LIMIT}
    )
    queued_runs = fields.Integer(
        required=True, allow_none=True, metadata={"description": "QUOTA_QUEUED_RUNS" + _NO_LIMIT}
    )


class UsageSchema(Schema):
    """What the caller uses of its quotas, and the quotas."""

    storage_bytes = fields.Integer(
        required=True,
        metadata={"description": "Bytes of the files of the datasets the caller owns"},
    )
    datasets = fields.Integer(required=True, metadata={"description": "Datasets the caller owns"})
    queued_runs = fields.Integer(
        required=True,
        metadata={"description": "Runs queued or running, over the pipelines the caller owns"},
    )
    limits = fields.Nested(UsageLimitsSchema, required=True)
