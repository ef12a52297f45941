"""/api/v1/users/directory: who other users are (id, name, email), for every signed-in
user: to pick a person to share with, and to show people instead of ids."""

from flask.views import MethodView

from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.identity.users import services
from datahub.identity.users.schemas import DirectoryArgsSchema, DirectoryEntrySchema
from datahub.web.api import Blueprint
from datahub.web.listing import page_schema, paginate
from datahub.web.openapi import BEARER, operation

blp = Blueprint(
    "user_directory",
    __name__,
    url_prefix="/api/v1/users/directory",
    guard=authenticate,
    description="The user directory: who other users are, for every signed-in user",
)

DirectoryPageSchema = page_schema(DirectoryEntrySchema, "UserDirectoryPage")


@blp.route("/", strict_slashes=False)
class UserDirectory(MethodView):
    @operation(blp, "find_users", 401, 403, 422, security=BEARER)
    @blp.arguments(DirectoryArgsSchema, location="query")
    @blp.response(200, DirectoryPageSchema)
    def get(self, args):
        """Find users

        Active users whose name or email contains ``q`` (those that start with it first,
        then by name), or whose id is in ``ids``, or both; without either, every active
        user by name. ``id``, ``name`` and ``email`` each, at most 20 a page. Any
        signed-in user (a personal access token of scope ``read`` too); deactivated
        users are never listed."""
        permissions.require_read(current_user)
        return paginate(services.directory_query(args), args)
