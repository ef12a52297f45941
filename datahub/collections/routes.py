"""/api/v1/collections: list, create, get, change and delete, and membership."""

from flask import url_for
from flask.views import MethodView

from datahub.collections import schemas, services
from datahub.collections.models import Collection
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.resources.grants.routes import grant_views
from datahub.resources.rights import (
    apply_change,
    changeable,
    changes_row,
    manageable,
    readable,
    readable_page,
)
from datahub.web.api import Blueprint
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, described, operation

blp = Blueprint(
    "collections",
    __name__,
    url_prefix="/api/v1/collections",
    guard=authenticate,
    description="Collections: named groups of datasets",
)

COLLECTION_NOT_FOUND = (404, "`Collection not found`")
DATASET_NOT_FOUND = (404, "A dataset of `dataset_ids` does not exist (`Dataset not found`)")
MEMBERSHIP_NOT_FOUND = (404, "`Collection not found`, or `Dataset not found`")


@blp.route("/", strict_slashes=False, endpoint="Collections")
class Collections(MethodView):
    @operation(blp, "list_collections", 401, 403, 422, security=BEARER)
    @blp.arguments(schemas.CollectionListArgsSchema, location="query")
    @blp.response(200, schemas.CollectionPageSchema)
    @described(
        "List collections",
        "One page of collections, oldest first or in `sort`'s order, filtered by name or "
        "owner (any role), each with the caller's `capabilities`.",
    )
    def get(self, args):
        permissions.require_read(current_user)
        return readable_page(
            services.collections_query(args, current_user), Collection, args, current_user
        )

    @operation(
        blp,
        "create_collection",
        *JSON_BODY_ERRORS,
        401,
        403,
        DATASET_NOT_FOUND,
        409,
        security=BEARER,
    )
    @permissions.before_body(lambda: permissions.require_create(current_user))
    @blp.arguments(schemas.CollectionCreateSchema)
    @blp.response(201, schemas.CollectionSchema, headers={"Location": "Location"})
    @described(
        "Create a collection",
        "Editors and admins; the caller owns the new "
        "collection, whose URL is in `Location`. 409 `Name already exists` when "
        "another has the name.",
    )
    def post(self, values):
        collection = services.create_collection(current_user, values)
        location = url_for("collections.CollectionById", collection_id=collection.id)
        return collection, 201, {"Location": location}


@blp.route("/<id:collection_id>", endpoint="CollectionById")
class CollectionById(MethodView):
    @operation(blp, "get_collection", 401, 403, COLLECTION_NOT_FOUND, 422, security=BEARER)
    @blp.response(200, schemas.CollectionSchema)
    @described(
        "Get a collection", "One collection the caller may read, with the members it may read."
    )
    def get(self, collection_id):
        return readable(services.get_collection(collection_id))

    @operation(
        blp,
        "update_collection",
        *JSON_BODY_ERRORS,
        401,
        403,
        COLLECTION_NOT_FOUND,
        409,
        security=BEARER,
    )
    @changes_row(services.get_collection)
    @blp.arguments(schemas.CollectionUpdateSchema)
    @blp.response(200, schemas.CollectionSchema)
    @described(
        "Change a collection",
        "Change name, description or the whole member list (the owner, if an editor, a "
        "`write` grantee, or an admin; `visibility` only the owner or an admin). Members "
        "the caller may not read stay.",
    )
    def patch(self, collection, values):
        return apply_change(
            collection,
            values,
            lambda row, values: services.update_collection(row, values, current_user),
        )

    @operation(blp, "delete_collection", 401, 403, COLLECTION_NOT_FOUND, 422, security=BEARER)
    @blp.response(204, description="Deleted; its datasets stay")
    @described(
        "Delete a collection", "The owner, if an editor, or an admin. Its datasets are not deleted."
    )
    def delete(self, collection_id):
        collection = services.get_collection(collection_id, for_update=True)
        services.delete_collection(manageable(collection))


def _membership_change(operation_id):
    """Both changes of membership are documented alike: they answer with the collection."""

    def decorator(view):
        view = blp.response(200, schemas.CollectionSchema)(view)
        return operation(blp, operation_id, 401, 403, MEMBERSHIP_NOT_FOUND, 422, security=BEARER)(
            view
        )

    return decorator


@blp.route("/<id:collection_id>/datasets/<id:dataset_id>")
class CollectionMember(MethodView):
    @_membership_change("add_collection_dataset")
    def put(self, collection_id, dataset_id):
        """Add a dataset to a collection

        Idempotent: adding a member again changes nothing. The owner, if an editor, or an
        admin."""
        collection = changeable(services.get_collection(collection_id))
        return services.add_dataset(collection, dataset_id, current_user)

    @_membership_change("remove_collection_dataset")
    def delete(self, collection_id, dataset_id):
        """Remove a dataset from a collection

        Idempotent; the dataset itself stays. The owner, if an editor, or an admin."""
        collection = changeable(services.get_collection(collection_id))
        return services.remove_dataset(collection, dataset_id, current_user)


CollectionGrants, CollectionGrant = grant_views(
    blp, services.get_collection, "collection_id", "collection"
)
blp.add_url_rule(
    "/<id:collection_id>/grants", "CollectionGrants", CollectionGrants, strict_slashes=False
)
blp.add_url_rule("/<id:collection_id>/grants/<id:grant_id>", "CollectionGrant", CollectionGrant)
