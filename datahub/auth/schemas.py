"""Request and response bodies of the auth endpoints (seed 2.2, 2.3, 4.1)."""
from marshmallow import Schema, fields


class LoginSchema(Schema):
    # No format or length rules here: any wrong email or password is a 401, not a 422.
    email = fields.String(required=True)
    password = fields.String(required=True, load_only=True)


class TokenSchema(Schema):
    access_token = fields.String(required=True)
    token_type = fields.String(required=True, metadata={"enum": ["bearer"]})
