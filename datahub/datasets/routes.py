"""/api/v1/datasets: list, create, get, change and delete; the file's routes follow (they
are documented after these: ``file_routes``)."""

from flask import url_for
from flask.views import MethodView

from datahub.datasets import file_routes, schemas, services, usage, version_routes
from datahub.datasets.blueprint import blp
from datahub.datasets.checks import routes as check_routes
from datahub.datasets.columns import routes as column_routes
from datahub.datasets.models import Dataset
from datahub.datasets.profiles import routes as profile_routes
from datahub.datasets.profiles import services as profiles
from datahub.identity import permissions
from datahub.identity.guard import current_user
from datahub.resources.grants.routes import grant_views
from datahub.resources.rights import apply_change, changes_row, manageable, readable, readable_page
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, described, operation

NOT_FOUND = (404, "`Dataset not found`")
QUOTA_OR_FORBIDDEN = (
    403,
    "Forbidden: the role does not allow this, or `Dataset quota "
    "exceeded` (the caller owns `QUOTA_DATASETS` datasets)",
)


@blp.route("/", strict_slashes=False, endpoint="Datasets")
class Datasets(MethodView):
    @operation(blp, "list_datasets", 401, 403, 422, security=BEARER)
    @blp.arguments(schemas.DatasetListArgsSchema, location="query")
    @blp.response(200, schemas.DatasetPageSchema)
    @described(
        "List datasets",
        "One page of the datasets the caller may read, oldest first or in `sort`'s order, "
        "each with the caller's `capabilities` and its usage `stats`, filtered by name, "
        "tag or owner (any role).",
    )
    def get(self, args):
        permissions.require_read(current_user)
        page = readable_page(
            services.datasets_query(args, current_user), Dataset, args, current_user
        )
        usage.know_page(page["items"])  # the page's stats in one query
        profiles.know_schemas(page["items"])  # and its schemas in another
        return page

    @operation(
        blp, "create_dataset", *JSON_BODY_ERRORS, 401, QUOTA_OR_FORBIDDEN, 409, security=BEARER
    )
    @permissions.before_body(lambda: permissions.require_create(current_user))
    @blp.arguments(schemas.DatasetCreateSchema)
    @blp.response(201, schemas.DatasetSchema, headers={"Location": "Location"})
    @described(
        "Create a dataset",
        "Editors and admins; the caller owns the new dataset, "
        "whose URL is in `Location`. 409 `Name already exists` when another has the "
        "name. Without `visibility`, `DEFAULT_VISIBILITY`.",
    )
    def post(self, values):
        dataset = services.create_dataset(current_user, values)
        return dataset, 201, {"Location": url_for("datasets.DatasetById", dataset_id=dataset.id)}


@blp.route("/<id:dataset_id>", endpoint="DatasetById")
class DatasetById(MethodView):
    @operation(blp, "get_dataset", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.response(200, schemas.DatasetSchema)
    @described(
        "Get a dataset",
        "One dataset the caller may read; each such GET counts as a view in its `stats`.",
    )
    def get(self, dataset_id):
        return readable(services.get_dataset(dataset_id))

    @operation(blp, "update_dataset", *JSON_BODY_ERRORS, 401, 403, NOT_FOUND, 409, security=BEARER)
    @changes_row(services.get_dataset)
    @blp.arguments(schemas.DatasetUpdateSchema)
    @blp.response(200, schemas.DatasetSchema)
    @described(
        "Change a dataset",
        "Change name, description or tags (the owner, if an editor, a `write` grantee, "
        "or an admin); `visibility` only the owner or an admin.",
    )
    def patch(self, dataset, values):
        return apply_change(dataset, values, services.update_dataset)

    @operation(blp, "delete_dataset", 401, 403, NOT_FOUND, 422, security=BEARER)
    @blp.response(204, description="Deleted; its file is removed and it leaves its collections")
    @described(
        "Delete a dataset",
        "Delete a dataset and its file (the owner, if an editor, "
        "or an admin); it leaves its collections.",
    )
    def delete(self, dataset_id):
        # Locked, so an upload finishing meanwhile cannot attach a file to a deleted row.
        services.delete_dataset(manageable(services.get_dataset(dataset_id, for_update=True)))


DatasetGrants, DatasetGrant = grant_views(blp, services.get_dataset, "dataset_id", "dataset")
blp.add_url_rule("/<id:dataset_id>/grants", "DatasetGrants", DatasetGrants, strict_slashes=False)
blp.add_url_rule("/<id:dataset_id>/grants/<id:grant_id>", "DatasetGrant", DatasetGrant)

# The views of the modules beside this one, on the same blueprint, each under its class's
# name (documented after the above, in this order).
VIEWS = (
    ("/<id:dataset_id>/file", file_routes.DatasetFile, {}),
    ("/<id:dataset_id>/preview", file_routes.DatasetPreview, {}),
    ("/<id:dataset_id>/versions", version_routes.DatasetVersions, {"strict_slashes": False}),
    ("/<id:dataset_id>/versions/<id:version>", version_routes.DatasetVersionById, {}),
    ("/<id:dataset_id>/versions/<id:version>/file", version_routes.DatasetVersionFile, {}),
    ("/<id:dataset_id>/versions/<id:version>/preview", version_routes.DatasetVersionPreview, {}),
    ("/<id:dataset_id>/versions/<id:version>/restore", version_routes.DatasetVersionRestore, {}),
    ("/<id:dataset_id>/diff", version_routes.DatasetDiff, {}),
    ("/<id:dataset_id>/checks", check_routes.DatasetChecks, {}),
    ("/<id:dataset_id>/versions/<id:version>/checks", check_routes.DatasetVersionChecks, {}),
    ("/<id:dataset_id>/versions/<id:version>/publish", check_routes.DatasetVersionPublish, {}),
    ("/<id:dataset_id>/columns", column_routes.DatasetColumns, {}),
    ("/<id:dataset_id>/versions/<id:version>/schema", profile_routes.DatasetVersionSchema, {}),
    ("/<id:dataset_id>/versions/<id:version>/profile", profile_routes.DatasetVersionProfile, {}),
    (
        "/<id:dataset_id>/versions/<id:version>/datapackage.json",
        profile_routes.DatasetVersionDataPackage,
        {},
    ),
)
for rule, view, options in VIEWS:
    blp.add_url_rule(rule, view.__name__, view, **options)
