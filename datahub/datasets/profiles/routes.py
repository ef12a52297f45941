"""/api/v1/datasets/{dataset_id}/versions/{version}/schema, /profile and /datapackage.json:
what the worker read of a version's file (docs/guides/understand.rst)."""

from flask import jsonify, url_for
from flask.views import MethodView

from datahub.datasets.blueprint import blp
from datahub.datasets.profiles import packages, schemas, services
from datahub.datasets.version_routes import NOT_FOUND, readable_version
from datahub.web.openapi import BEARER, described, operation

NO_SCHEMA = (404, "`Dataset not found`, `Version not found` or `Version has no schema`")
PENDING = {
    202: {
        "description": "Not read yet: ask again (`Retry-After`, in seconds)",
        "content": {"application/json": {"schema": schemas.PendingSchema}},
    }
}


def pending():
    """202 ``{"status": "pending"}``: a worker has not read the version yet."""
    response = jsonify(services.PENDING)
    response.status_code = 202
    response.headers["Retry-After"] = "1"
    return response


class DatasetVersionSchema(MethodView):
    @operation(
        blp, "get_dataset_version_schema", 401, 403, NO_SCHEMA, security=BEARER, responses=PENDING
    )
    @blp.response(200, schemas.VersionSchemaSchema)
    @described(
        "Get a version's schema",
        "Its columns (name, DuckDB type, whether it holds a null) and rows, as a worker "
        'read them once the version was made: 202 `{"status": "pending"}` until then. '
        "404 `Version has no schema` for a file that is not a table, or that could not be "
        "read as one (its profile says why). Any role.",
    )
    def get(self, dataset_id, version):
        _dataset, row = readable_version(dataset_id, version)
        schema = services.schema_of(row)
        return pending() if schema is services.PENDING else schema


class DatasetVersionProfile(MethodView):
    @operation(
        blp, "get_dataset_version_profile", 401, 403, NOT_FOUND, security=BEARER, responses=PENDING
    )
    @blp.response(200, schemas.ProfileSchema)
    @described(
        "Get a version's profile",
        "Statistics of each column, computed by a worker once per content (versions with "
        'the same bytes share them): 202 `{"status": "pending"}` until then; '
        '`"status": "failed"` with the `error` for a file that cannot be profiled. Any role.',
    )
    def get(self, dataset_id, version):
        _dataset, row = readable_version(dataset_id, version)
        profile = services.profile_of(row)
        return pending() if profile is services.PENDING else profile


class DatasetVersionDataPackage(MethodView):
    @operation(
        blp,
        "get_dataset_version_data_package",
        401,
        403,
        NO_SCHEMA,
        security=BEARER,
        responses={
            200: {
                "description": "A Frictionless Data Package (tabular-data-package)",
                "content": {"application/json": {"schema": {"type": "object"}}},
            },
            **PENDING,
        },
    )
    @described(
        "Get a version as a Data Package",
        "A Frictionless Data Package describing the version: one tabular resource, its "
        "file (`path`: the version's download URL), with a Table Schema of its columns. "
        "202 and 404 as the schema's. Any role.",
    )
    def get(self, dataset_id, version):
        dataset, row = readable_version(dataset_id, version)
        schema = services.schema_of(row)
        if schema is services.PENDING:
            return pending()
        file_url = url_for(
            "datasets.DatasetVersionFile",
            dataset_id=dataset.id,
            version=row.version,
            _external=True,
        )
        return jsonify(packages.data_package(dataset, row, schema, file_url))
