"""/api/v1/users: user administration, for admins only."""

from flask import url_for
from flask.views import MethodView

from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user, require_session
from datahub.identity.personal_tokens import services as personal_tokens
from datahub.identity.personal_tokens.schemas import PersonalTokenPageSchema
from datahub.identity.users import services
from datahub.identity.users.schemas import NewUserSchema, UserSchema, UserUpdateSchema
from datahub.web.api import Blueprint
from datahub.web.listing import ListArgsSchema, page_schema, paginate
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, operation
from datahub.web.validation import Length, label_field

blp = Blueprint(
    "users",
    __name__,
    url_prefix="/api/v1/users",
    guard=authenticate,
    description="User administration (admins only)",
)


@blp.before_request
def _admins_only():
    permissions.require_admin(current_user)


class UserListArgsSchema(ListArgsSchema):
    q = label_field(Length(max=255), "Only users whose email or name contains this")


UserPageSchema = page_schema(UserSchema, "UserPage")


NOT_FOUND = (404, "User not found")


@blp.route("/", strict_slashes=False)
class Users(MethodView):
    @operation(blp, "list_users", 401, 403, 422, security=BEARER)
    @blp.arguments(UserListArgsSchema, location="query")
    @blp.response(200, UserPageSchema)
    def get(self, args):
        """List users

        One page of users, oldest first; ``q`` keeps those whose email or name contains
        it. Admins only (403 for anyone else)."""
        return paginate(services.users_query(args), args)

    @operation(
        blp,
        "create_user",
        *JSON_BODY_ERRORS,
        401,
        403,
        (409, "Email already exists"),
        security=BEARER,
    )
    @blp.arguments(NewUserSchema)
    @blp.response(201, UserSchema, headers={"Location": "Location"})
    def post(self, values):
        """Create a user

        A local user (default role: viewer), who logs in with this email and password.
        Admins only. The new user's URL is in ``Location``."""
        user = services.create_user(**values)
        return user, 201, {"Location": url_for("users.UserById", user_id=user.id)}


@blp.route("/<text:user_id>")
class UserById(MethodView):
    @operation(blp, "get_user", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.response(200, UserSchema)
    def get(self, user_id):
        """Get a user

        One user. Admins only."""
        return services.get_user(user_id)

    @operation(
        blp,
        "update_user",
        *JSON_BODY_ERRORS,
        401,
        403,
        NOT_FOUND,
        (
            409,
            "The last active admin cannot be demoted or deactivated, or the user's "
            "password is managed by the identity provider",
        ),
        security=BEARER,
    )
    @blp.arguments(UserUpdateSchema)
    @blp.response(200, UserSchema)
    def patch(self, values, user_id):
        """Change a user

        Change name, roles, is_active or password. Deactivating or a new password ends
        the user's sessions; the last active admin cannot be demoted or deactivated (409),
        and a user of an identity provider (LDAP) has no password here (409). Admins
        only, and a new password only from a login's session: a personal access token
        changes no password (403)."""
        if "password" in values:
            require_session()
        return services.update_user(services.get_user(user_id), values)

    @operation(
        blp,
        "delete_user",
        401,
        403,
        NOT_FOUND,
        422,
        (409, "The last active admin, or a user who owns datasets, collections or pipelines"),
        security=BEARER,
    )
    @blp.response(204, description="Deleted; the user's sessions end")
    def delete(self, user_id):
        """Delete a user

        409 for the last active admin, and while the user owns datasets, collections or
        pipelines (deactivate instead, to keep them). Admins only."""
        services.delete_user(services.get_user(user_id))


@blp.route("/<text:user_id>/tokens", strict_slashes=False)
class UserTokens(MethodView):
    @operation(blp, "list_user_tokens", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.arguments(ListArgsSchema, location="query")
    @blp.response(200, PersonalTokenPageSchema)
    def get(self, args, user_id):
        """List a user's personal access tokens

        Newest first, without their secrets. Admins only."""
        user = services.get_user(user_id)
        return paginate(personal_tokens.tokens_query(user.id), args)


@blp.route("/<text:user_id>/tokens/<text:token_id>")
class UserTokenItem(MethodView):
    @operation(
        blp,
        "delete_user_token",
        401,
        403,
        (404, "`User not found`, or `Token not found` (unknown, or not this user's)"),
        422,
        security=BEARER,
    )
    @blp.response(204, description="Revoked: the token stops working at once")
    def delete(self, user_id, token_id):
        """Revoke a user's personal access token

        It is deleted; the next request with it is answered 401. Admins only."""
        user = services.get_user(user_id)
        record = personal_tokens.get_token(user.id, token_id)
        personal_tokens.revoke_token(record, by=current_user.id)
        return ""
