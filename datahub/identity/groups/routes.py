"""/api/v1/groups: every user lists and reads groups (to grant to them); admins create,
change and delete them and manage their members."""

from flask import url_for
from flask.views import MethodView

from datahub.identity import permissions
from datahub.identity.groups import services
from datahub.identity.groups.schemas import (
    GroupCreateSchema,
    GroupListArgsSchema,
    GroupPageSchema,
    GroupSchema,
    GroupUpdateSchema,
)
from datahub.identity.guard import authenticate, current_user
from datahub.web.api import Blueprint
from datahub.web.listing import paginate
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, operation

blp = Blueprint(
    "groups",
    __name__,
    url_prefix="/api/v1/groups",
    guard=authenticate,
    description="Groups of users, to grant access to (admins change them)",
)

NOT_FOUND = (404, "Group not found")
NAME_TAKEN = (409, "Name already exists")
MEMBER_NOT_FOUND = (404, "`Group not found`, or `User not found`")
KEPT_BY_SOURCE = (
    409,
    "`Group members are kept by its source`: the group's source is ldap or oidc, whose "
    "members each login keeps",
)


def _admin(**_path_args):
    permissions.require_admin(current_user)


@blp.route("/", strict_slashes=False)
class Groups(MethodView):
    @operation(blp, "list_groups", 401, 403, 422, security=BEARER)
    @blp.arguments(GroupListArgsSchema, location="query")
    @blp.response(200, GroupPageSchema)
    def get(self, args):
        """List groups

        One page of groups, by name; ``q`` keeps those whose name contains it. Any
        user."""
        return paginate(services.groups_query(args), args)

    @operation(blp, "create_group", *JSON_BODY_ERRORS, 401, 403, NAME_TAKEN, security=BEARER)
    @permissions.before_body(_admin)
    @blp.arguments(GroupCreateSchema)
    @blp.response(201, GroupSchema, headers={"Location": "Location"})
    def post(self, values):
        """Create a group

        ``source`` (default local) says who keeps its members, and never changes: admins
        for a local group; each login for an ldap or oidc group, whose members are the
        users the directory or the provider puts in a group of the same name. Admins
        only. The new group's URL is in ``Location``."""
        group = services.create_group(**values)
        return group, 201, {"Location": url_for("groups.GroupById", group_id=group.id)}


@blp.route("/<id:group_id>")
class GroupById(MethodView):
    @operation(blp, "get_group", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.response(200, GroupSchema)
    def get(self, group_id):
        """Get a group

        One group, with its members' ids. Any user."""
        return services.get_group(group_id)

    @operation(
        blp, "update_group", *JSON_BODY_ERRORS, 401, 403, NOT_FOUND, NAME_TAKEN, security=BEARER
    )
    @permissions.before_body(_admin)
    @blp.arguments(GroupUpdateSchema)
    @blp.response(200, GroupSchema)
    def patch(self, values, group_id):
        """Change a group

        Its name or description (the source never changes). Admins only."""
        return services.update_group(services.get_group(group_id), values)

    @operation(blp, "delete_group", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.response(204, description="Deleted, with its memberships and grants")
    def delete(self, group_id):
        """Delete a group

        Its memberships and the grants to it go with it. Admins only."""
        _admin()
        services.delete_group(services.get_group(group_id))


def _membership_change(operation_id):
    """Both changes of membership are documented alike: they answer with the group."""

    def decorator(view):
        view = blp.response(200, GroupSchema)(view)
        return operation(
            blp, operation_id, 401, 403, MEMBER_NOT_FOUND, KEPT_BY_SOURCE, 422, security=BEARER
        )(view)

    return decorator


@blp.route("/<id:group_id>/members/<text:user_id>")
class GroupMembership(MethodView):
    @_membership_change("add_group_member")
    def put(self, group_id, user_id):
        """Add a member to a group

        Idempotent: adding a member again changes nothing. Only to a local group: the
        members of an ldap or oidc group are kept by its source (409). Admins only."""
        _admin()
        return services.add_member(services.get_group(group_id), user_id)

    @_membership_change("remove_group_member")
    def delete(self, group_id, user_id):
        """Remove a member from a group

        Idempotent; the user stays. Only from a local group: the members of an ldap or
        oidc group are kept by its source (409). Admins only."""
        _admin()
        return services.remove_member(services.get_group(group_id), user_id)
