"""/api/v1/collections: CRUD and membership."""
from flask.views import MethodView

from datahub.api import BEARER, Blueprint, error_responses
from datahub.collections import schemas, services
from datahub.identity.guard import authenticate
from datahub.resource_views import changeable, owned_named_views

blp = Blueprint(
    "collections", __name__, url_prefix="/api/v1/collections", guard=authenticate,
    description="Collections: named groups of datasets",
)


owned_named_views(
    blp, "collection", services, schemas, filters="name or owner",
    patch_doc="Change name, description or the whole member list (owner editor, or admin).",
    delete_doc="Delete a collection (owner editor, or admin). Its datasets are not deleted.",
    deleted="Deleted; its datasets stay",
    create_errors=(400, 401, 403, 404, 409, 422),
)


def _membership_change(view):
    """Both changes of membership are documented alike: they answer with the collection."""
    view = error_responses(blp, 401, 403, 404, 422)(view)
    view = blp.response(200, schemas.CollectionSchema)(view)
    return blp.doc(security=BEARER)(view)


@blp.route("/<id:collection_id>/datasets/<id:dataset_id>")
class CollectionMember(MethodView):
    @_membership_change
    def put(self, collection_id, dataset_id):
        """Add a dataset to the collection (idempotent)."""
        collection = changeable(services.get_collection(collection_id))
        return services.add_dataset(collection, dataset_id)

    @_membership_change
    def delete(self, collection_id, dataset_id):
        """Remove a dataset from the collection (idempotent; the dataset stays)."""
        collection = changeable(services.get_collection(collection_id))
        return services.remove_dataset(collection, dataset_id)
