"""/api/v1/datasets/{dataset_id}/columns: the current version's columns and what each
means."""

from flask import current_app
from flask.views import MethodView

from datahub.datasets import services
from datahub.datasets.blueprint import blp
from datahub.datasets.columns import schemas
from datahub.datasets.columns import services as columns
from datahub.datasets.openapi import PREVIEW_UNPROCESSABLE, STORAGE_UNAVAILABLE
from datahub.resources.rights import changes_row, readable
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, described, operation

NOT_FOUND = (404, "`Dataset not found`")


class DatasetColumns(MethodView):
    @operation(
        blp,
        "get_dataset_columns",
        401,
        403,
        NOT_FOUND,
        PREVIEW_UNPROCESSABLE,
        STORAGE_UNAVAILABLE,
        security=BEARER,
    )
    @blp.response(200, schemas.ColumnsSchema)
    @described(
        "A dataset's columns",
        "The current version's columns in file order, their types and descriptions "
        '(`""` when not described). Descriptions are kept by column name across '
        "versions. Without a file: no columns; a file that is not a table: 422 `Dataset "
        "file is not tabular`. Any role.",
    )
    def get(self, dataset_id):
        dataset = readable(services.get_dataset(dataset_id))
        return columns.columns_of(dataset, current_app.config)

    @operation(
        blp,
        "update_dataset_columns",
        *JSON_BODY_ERRORS,
        401,
        403,
        NOT_FOUND,
        STORAGE_UNAVAILABLE,
        security=BEARER,
    )
    @changes_row(services.get_dataset)
    @blp.arguments(schemas.ColumnsUpdateSchema)
    @blp.response(200, schemas.ColumnsSchema)
    @described(
        "Describe a dataset's columns",
        'Set what columns of the current version mean (`""` removes a description); '
        "the others keep theirs. 422 `Unknown column: <name>` at a name the current "
        "version lacks, `Dataset has no columns yet` without a file. Who may change the "
        "dataset.",
    )
    def patch(self, dataset, values):
        return columns.describe_columns(dataset.id, values["columns"], current_app.config)
