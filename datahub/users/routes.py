"""/api/v1/users: user administration, for admins only."""
from flask import url_for
from flask.views import MethodView

from datahub.api import BEARER, Blueprint, error_responses
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.listing import ListArgsSchema, page_schema
from datahub.users import services
from datahub.users.schemas import NewUserSchema, UserSchema, UserUpdateSchema
from datahub.validation import Length, label_field

blp = Blueprint(
    "users", __name__, url_prefix="/api/v1/users", guard=authenticate,
    description="User administration (admins only)",
)


@blp.before_request
def _admins_only():
    permissions.require_admin(current_user)


class UserListArgsSchema(ListArgsSchema):
    q = label_field(Length(max=255), "Only users whose email or name contains this")


UserPageSchema = page_schema(UserSchema, "UserPage")


@blp.route("/", strict_slashes=False)
class Users(MethodView):
    @blp.doc(security=BEARER)
    @blp.arguments(UserListArgsSchema, location="query")
    @blp.response(200, UserPageSchema)
    @error_responses(blp, 401, 403, 422)
    def get(self, args):
        """List users, oldest first."""
        return services.list_users(args)

    @blp.doc(security=BEARER)
    @blp.arguments(NewUserSchema)
    @blp.response(201, UserSchema, headers={
        "Location": {"description": "The new user's URL", "schema": {"type": "string"}}
    })
    @error_responses(blp, 400, 401, 403, 409, 422)
    def post(self, values):
        """Create a local user (default role: viewer)."""
        user = services.create_user(**values)
        return user, 201, {"Location": url_for("users.UserById", user_id=user.id)}


@blp.route("/<text:user_id>")
class UserById(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, UserSchema)
    @error_responses(blp, 401, 403, 404)
    def get(self, user_id):
        """One user."""
        return services.get_user(user_id)

    @blp.doc(security=BEARER)
    @blp.arguments(UserUpdateSchema)
    @blp.response(200, UserSchema)
    @error_responses(blp, 400, 401, 403, 404, 409, 422)
    def patch(self, values, user_id):
        """Change name, roles, is_active or password. Deactivating or a new password ends
        the user's sessions; the last active admin cannot be demoted or deactivated (409),
        and a user of an identity provider (LDAP) has no password here (409)."""
        return services.update_user(services.get_user(user_id), values)

    @blp.doc(security=BEARER)
    @blp.response(204, description="Deleted; the user's sessions end")
    @error_responses(blp, 401, 403, 404, 409)
    def delete(self, user_id):
        """Delete a user. 409 for the last active admin, and while the user owns datasets
        or collections (deactivate instead, to keep them)."""
        services.delete_user(services.get_user(user_id))
