"""``.../{id}/grants``: who besides the owner may read or change a dataset, collection or
pipeline (docs/guides/access.rst). The owner (an editor) and admins list, add and
delete grants; anyone else who may read the row is refused with 403, anyone who may not
read it is told it does not exist (404)."""

from flask import request
from flask.views import MethodView

from datahub.identity import permissions
from datahub.identity.guard import current_user
from datahub.resources.grants import schemas
from datahub.resources.grants import services as grants
from datahub.resources.rights import manageable
from datahub.web.listing import paginate
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, described, operation


def grant_views(blp, get_row, path_name, kind):
    """The views of ``/<id:path_name>/grants`` (list, add) and ``.../grants/<grant_id>``
    (revoke) on ``blp``, for the rows ``get_row(id)`` finds (its 404 when there is none).
    ``kind`` (``dataset``...) names the operations. The feature registers them, each under
    its own endpoint name (``DatasetGrants``, ``DatasetGrant``...)."""
    title = kind.capitalize()
    not_found = (404, f"`{title} not found`")
    grant_not_found = (404, f"`{title} not found`, or `Grant not found`")

    def row_of(path):
        return manageable(get_row(path[path_name]))

    class Grants(MethodView):
        @operation(blp, f"list_{kind}_grants", 401, 403, not_found, 422, security=BEARER)
        @blp.arguments(schemas.GrantListArgsSchema, location="query")
        @blp.response(200, schemas.GrantPageSchema)
        @described(
            f"List a {kind}'s grants",
            f"Who besides its owner may read or change the {kind} (the owner, if an "
            "editor, or an admin).",
        )
        def get(self, args, **path):
            return paginate(grants.grants_query(row_of(path)), args)

        @operation(
            blp,
            f"add_{kind}_grant",
            *JSON_BODY_ERRORS,
            401,
            403,
            not_found,
            (409, "`Grant already exists` (the principal holds one: delete it first)"),
            security=BEARER,
        )
        @permissions.before_body(lambda **path: row_of(path))
        @blp.arguments(schemas.GrantCreateSchema)
        @blp.response(201, schemas.GrantSchema, headers={"Location": "Location"})
        @described(
            f"Grant access to a {kind}",
            "Let a user (`user:<uuid>`, or `user:<email>`, kept as the id) or every "
            "member of a group (`group:<id>`) read, "
            f"or read and change, the {kind} (the owner, if an editor, or an admin). "
            "422 at `principal` when there is no such user or group.",
        )
        def post(self, values, **path):
            row = row_of(path)
            grant = grants.add_grant(row, values["principal"], values["permission"], current_user)
            return grant, 201, {"Location": f"{request.path.rstrip('/')}/{grant.id}"}

    class Grant(MethodView):
        @operation(blp, f"delete_{kind}_grant", 401, 403, grant_not_found, 422, security=BEARER)
        @blp.response(204, description="Revoked: the next request is refused, on every host")
        @described(
            f"Revoke a {kind} grant",
            "The owner, if an editor, or an admin. Takes effect on the next request.",
        )
        def delete(self, grant_id, **path):
            grants.remove_grant(row_of(path), grant_id, current_user)

    return Grants, Grant
