"""/api/v1/auth/tokens: the caller's personal access tokens (datahub.identity.personal_tokens),
registered on the auth blueprint by datahub.identity.auth.routes."""

from flask import url_for
from flask.views import MethodView

from datahub.identity.auth.blueprint import blp
from datahub.identity.guard import auth_required, current_user, session_required
from datahub.identity.personal_tokens import services as personal_tokens
from datahub.identity.personal_tokens.schemas import (
    NewPersonalTokenSchema,
    PersonalTokenCreateSchema,
    PersonalTokenPageSchema,
    PersonalTokenSchema,
)
from datahub.web.listing import ListArgsSchema, paginate
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, operation

NOT_FOUND = (404, "`Token not found` (unknown, revoked or someone else's)")
_NO_STORE = {"Cache-Control": "no-store"}
_SHOWN = ("id", "name", "scopes", "created_at", "expires_at", "last_used_at")


class Tokens(MethodView):
    @operation(blp, "list_tokens", 401, 422, security=BEARER)
    @blp.response(200, PersonalTokenPageSchema)
    @auth_required
    @blp.arguments(ListArgsSchema, location="query")
    def get(self, args):
        """List the caller's personal access tokens

        Newest first, without their secrets. A personal access token may list them."""
        return paginate(personal_tokens.tokens_query(current_user.id), args)

    @operation(
        blp,
        "create_token",
        *JSON_BODY_ERRORS,
        401,
        (403, "`Forbidden`: the request came with a personal access token, not a login"),
        security=BEARER,
    )
    @blp.response(
        201,
        NewPersonalTokenSchema,
        description="Created; `token` is shown this once",
        headers={
            "Location": "Location",
            "Cache-Control": {
                "description": "`no-store`: the token is never cached",
                "schema": {"type": "string"},
            },
        },
    )
    @session_required
    @blp.arguments(PersonalTokenCreateSchema)
    def post(self, values):
        """Create a personal access token

        A ``dhp_...`` token for scripts, sent as ``Authorization: Bearer``; the answer
        holds its text, which is shown only this once (only its hash is stored). Scopes:
        ``["read"]`` (GET only) or ``["read", "write"]``. Needs a login's access token
        (403 with a personal access token)."""
        record, text = personal_tokens.create_token(
            current_user.id, values["name"], values["scopes"], values["expires_in_days"]
        )
        body = {name: getattr(record, name) for name in _SHOWN} | {"token": text}
        location = url_for("auth.TokenItem", token_id=record.id)
        return body, 201, {"Location": location, **_NO_STORE}


class TokenItem(MethodView):
    @operation(blp, "get_token", 401, NOT_FOUND, 422, security=BEARER)
    @blp.response(200, PersonalTokenSchema)
    @auth_required
    def get(self, token_id):
        """Get one of the caller's personal access tokens

        Without its secret."""
        return personal_tokens.get_token(current_user.id, token_id)

    @operation(
        blp,
        "delete_token",
        401,
        (403, "`Forbidden`: a personal access token without the `write` scope"),
        NOT_FOUND,
        422,
        security=BEARER,
    )
    @blp.response(204, description="Revoked: the token stops working at once")
    @auth_required
    def delete(self, token_id):
        """Revoke one of the caller's personal access tokens

        It is deleted; the next request with it is answered 401."""
        user = current_user
        record = personal_tokens.get_token(user.id, token_id)
        personal_tokens.revoke_token(record, by=user.id)
        return ""
