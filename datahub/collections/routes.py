"""/api/v1/collections: CRUD and membership."""
from flask import url_for
from flask.views import MethodView

from datahub.api import BEARER, Blueprint, error_responses
from datahub.collections import services
from datahub.collections.schemas import (
    CollectionCreateSchema,
    CollectionListArgsSchema,
    CollectionPageSchema,
    CollectionSchema,
    CollectionUpdateSchema,
)
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user

blp = Blueprint(
    "collections", __name__, url_prefix="/api/v1/collections", guard=authenticate,
    description="Collections: named groups of datasets",
)


@blp.route("/", strict_slashes=False)
class Collections(MethodView):
    @blp.doc(security=BEARER)
    @blp.arguments(CollectionListArgsSchema, location="query")
    @blp.response(200, CollectionPageSchema)
    @error_responses(blp, 401, 403, 422)
    def get(self, args):
        """List collections, oldest first, filtered by name or owner."""
        permissions.require_read(current_user)
        return services.list_collections(args, current_user)

    @blp.doc(security=BEARER)
    @permissions.before_body(lambda: permissions.require_create(current_user))
    @blp.arguments(CollectionCreateSchema)
    @blp.response(201, CollectionSchema, headers={
        "Location": {"description": "The new collection's URL", "schema": {"type": "string"}}
    })
    @error_responses(blp, 400, 401, 403, 404, 409, 422)
    def post(self, values):
        """Create a collection (editors and admins); the caller owns it."""
        collection = services.create_collection(current_user, values)
        location = url_for("collections.CollectionById", collection_id=collection.id)
        return collection, 201, {"Location": location}


@blp.route("/<id:collection_id>")
class CollectionById(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, CollectionSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def get(self, collection_id):
        """One collection."""
        permissions.require_read(current_user)
        return services.get_collection(collection_id)

    @blp.doc(security=BEARER)
    @permissions.before_body(lambda collection_id: permissions.require_change(
        current_user, services.get_collection(collection_id)))
    @blp.arguments(CollectionUpdateSchema)
    @blp.response(200, CollectionSchema)
    @error_responses(blp, 400, 401, 403, 404, 409, 422)
    def patch(self, values, collection_id):
        """Change name, description or the whole member list (owner editor, or admin)."""
        return services.update_collection(services.get_collection(collection_id), values)

    @blp.doc(security=BEARER)
    @blp.response(204, description="Deleted; its datasets stay")
    @error_responses(blp, 401, 403, 404, 422)
    def delete(self, collection_id):
        """Delete a collection (owner editor, or admin). Its datasets are not deleted."""
        collection = services.get_collection(collection_id)
        permissions.require_change(current_user, collection)
        services.delete_collection(collection)


@blp.route("/<id:collection_id>/datasets/<id:dataset_id>")
class CollectionMember(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, CollectionSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def put(self, collection_id, dataset_id):
        """Add a dataset to the collection (idempotent)."""
        collection = services.get_collection(collection_id)
        permissions.require_change(current_user, collection)
        return services.add_dataset(collection, dataset_id)

    @blp.doc(security=BEARER)
    @blp.response(200, CollectionSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def delete(self, collection_id, dataset_id):
        """Remove a dataset from the collection (idempotent; the dataset stays)."""
        collection = services.get_collection(collection_id)
        permissions.require_change(current_user, collection)
        return services.remove_dataset(collection, dataset_id)
