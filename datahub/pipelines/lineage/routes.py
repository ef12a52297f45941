"""/api/v1/datasets/{dataset_id}/lineage: which runs made a dataset's version from which
versions, and what was made from it (docs/guides/versions.rst, "Lineage"). It lives with
the pipelines, whose runs it reads, on a blueprint of its own under the datasets' path."""

from flask.views import MethodView

from datahub.datasets import services as datasets
from datahub.datasets import versions
from datahub.identity.guard import authenticate, current_user
from datahub.pipelines.lineage import schemas, services
from datahub.resources.rights import readable
from datahub.web.api import Blueprint
from datahub.web.openapi import BEARER, operation

blp = Blueprint(
    "lineage",
    __name__,
    url_prefix="/api/v1/datasets",
    guard=authenticate,
    description="Lineage: the runs and versions a dataset's version comes from and leads to",
)


@blp.route("/<id:dataset_id>/lineage")
class DatasetLineage(MethodView):
    @operation(
        blp,
        "get_dataset_lineage",
        401,
        403,
        (404, "`Dataset not found` or `Version not found`"),
        422,
        security=BEARER,
    )
    @blp.arguments(schemas.LineageArgsSchema, location="query")
    @blp.response(200, schemas.LineageSchema)
    def get(self, args, dataset_id):
        """Get a version's lineage

        A graph around one version of the dataset (``version``, else the current one):
        upstream, the run that made it and the versions that run read, and so on;
        downstream, the runs that read it and the versions they made. ``depth`` runs
        away at most (1 to 10). A dataset without a file has no lineage (no nodes).
        Versions of datasets the caller may not read are ``hidden`` nodes (their
        dataset, version and runs untold)."""
        dataset = readable(datasets.get_dataset(dataset_id))
        number = args.get("version") or dataset.current_version
        if number is None:
            return {"nodes": [], "edges": []}
        versions.get_version(dataset.id, number)  # 404 Version not found
        return services.lineage(
            dataset.id, number, args["direction"], args["depth"], viewer=current_user
        )
