"""/api/v1/collections: CRUD and membership."""
from flask.views import MethodView

from datahub.web.api import Blueprint
from datahub.collections import schemas, services
from datahub.identity.guard import authenticate
from datahub.web.openapi import BEARER, operation
from datahub.resources.views import changeable, owned_named_views

blp = Blueprint(
    "collections", __name__, url_prefix="/api/v1/collections", guard=authenticate,
    description="Collections: named groups of datasets",
)


owned_named_views(
    blp, "collection", services, schemas, filters="name or owner",
    patch_doc=("Change a collection", "Change name, description or the whole member list "
               "(the owner, if an editor, or an admin)."),
    delete_doc=("Delete a collection", "The owner, if an editor, or an admin. Its datasets "
                "are not deleted."),
    deleted="Deleted; its datasets stay",
    create_errors=(401, 403, (404, "A dataset of `dataset_ids` does not exist "
                                   "(`Dataset not found`)"), 409),
)

NOT_FOUND = (404, "`Collection not found`, or `Dataset not found`")


def _membership_change(operation_id):
    """Both changes of membership are documented alike: they answer with the collection."""

    def decorator(view):
        view = blp.response(200, schemas.CollectionSchema)(view)
        return operation(blp, operation_id, 401, 403, NOT_FOUND, 422, security=BEARER)(view)

    return decorator


@blp.route("/<id:collection_id>/datasets/<id:dataset_id>")
class CollectionMember(MethodView):
    @_membership_change("add_collection_dataset")
    def put(self, collection_id, dataset_id):
        """Add a dataset to a collection

        Idempotent: adding a member again changes nothing. The owner, if an editor, or an
        admin."""
        collection = changeable(services.get_collection(collection_id))
        return services.add_dataset(collection, dataset_id)

    @_membership_change("remove_collection_dataset")
    def delete(self, collection_id, dataset_id):
        """Remove a dataset from a collection

        Idempotent; the dataset itself stays. The owner, if an editor, or an admin."""
        collection = changeable(services.get_collection(collection_id))
        return services.remove_dataset(collection, dataset_id)
