"""/api/v1/datasets/{dataset_id}/checks, and a version's checks and publishing
(docs/guides/understand.rst, "Checks")."""

from flask.views import MethodView

from datahub.datasets import schemas as dataset_schemas
from datahub.datasets import services as datasets
from datahub.datasets.blueprint import blp
from datahub.datasets.checks import schemas, services
from datahub.datasets.version_routes import NOT_FOUND, changeable_version, readable_version
from datahub.datasets.versions import make_current
from datahub.identity.guard import current_user
from datahub.platform.audit import audit
from datahub.resources.rights import changes_row, manageable, readable
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, described, operation

DATASET_NOT_FOUND = (404, "`Dataset not found`")


class DatasetChecks(MethodView):
    @operation(blp, "get_dataset_checks", 401, 403, DATASET_NOT_FOUND, security=BEARER)
    @blp.response(200, schemas.ChecksSchema)
    @described(
        "A dataset's checks",
        "What every new version must pass to be published (any role that may read it).",
    )
    def get(self, dataset_id):
        dataset = readable(datasets.get_dataset(dataset_id))
        return {"checks": services.checks_of(dataset.id)}

    @operation(
        blp, "set_dataset_checks", *JSON_BODY_ERRORS, 401, 403, DATASET_NOT_FOUND, security=BEARER
    )
    @changes_row(datasets.get_dataset)
    @blp.arguments(schemas.ChecksSchema)
    @blp.response(200, schemas.ChecksSchema)
    @described(
        "Set a dataset's checks",
        "Replace them all (an empty list removes them). From then on each new version "
        "(upload, run output, restore) is `pending` until they have run, then `published` "
        "or, when an `error` check fails, `quarantined`. 422 at the check's field for an "
        "invalid one. Who may change the dataset.",
    )
    def put(self, dataset, values):
        return services.set_checks(dataset, values["checks"])


class DatasetVersionChecks(MethodView):
    @operation(blp, "get_dataset_version_checks", 401, 403, NOT_FOUND, security=BEARER)
    @blp.response(200, schemas.VersionChecksSchema)
    @described(
        "A version's checks",
        "Its state and each check's result, with up to 10 failing rows (any role).",
    )
    def get(self, dataset_id, version):
        _dataset, row = readable_version(dataset_id, version)
        return services.results_of(row)


class DatasetVersionPublish(MethodView):
    @operation(
        blp,
        "publish_dataset_version",
        401,
        403,
        NOT_FOUND,
        (409, "`Version is not quarantined`"),
        security=BEARER,
    )
    @blp.response(200, dataset_schemas.VersionSchema)
    @described(
        "Publish a quarantined version",
        "Publish it although its checks failed: current if it is the newest published "
        "version, a `datahub.dataset.version.created` event, triggers. Audited. The "
        "owner, if an editor, or an admin.",
    )
    def post(self, dataset_id, version):
        dataset, row = changeable_version(dataset_id, version, for_update=True, check=manageable)
        published = services.publish_anyway(dataset, row, current_user.id, make_current)
        audit(
            "version_published_anyway",
            user_id=current_user.id,
            dataset_id=dataset.id,
            version=row.version,
        )
        return published
