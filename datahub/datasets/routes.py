"""/api/v1/datasets: CRUD, the dataset's file and its preview."""
import os

import duckdb
from flask import current_app, request, send_file
from flask.views import MethodView
from werkzeug.exceptions import RequestedRangeNotSatisfiable

from datahub.api import BEARER, Blueprint, error_responses
from datahub.bodies import takes_file
from datahub.datasets import schemas, services, tabular
from datahub.datasets.errors import DatasetHasNoFile, DatasetNotTabular, FileNotFound
from datahub.datasets.storage import get_storage
from datahub.datasets.uploads import DEFAULT_CONTENT_TYPE, Upload, clean_filename
from datahub.extensions import db
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.resource_views import changeable, owned_named_views
from datahub.validation import media_type_error

blp = Blueprint(
    "datasets", __name__, url_prefix="/api/v1/datasets", guard=authenticate,
    description="Datasets: described data with an optional file",
)

UPLOAD_BODY = {
    # Not required: an empty raw body is an empty file, which is a legitimate upload.
    "required": False,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {"file": {"type": "string", "format": "binary"}},
            }
        },
        "application/octet-stream": {
            "schema": {"type": "string", "format": "binary"},
            "example": "any other Content-Type: the body is the file, its type kept",
        },
    },
}


_BINARY = {"*/*": {"schema": {"type": "string", "format": "binary"}}}
_FILE_HEADERS = {
    "ETag": {"description": "The sha256 of the file, quoted", "schema": {"type": "string"}},
    "Content-Disposition": {
        "description": "attachment; filename=\"ascii\"; filename*=UTF-8''...",
        "schema": {"type": "string"},
    },
    "Accept-Ranges": {"schema": {"type": "string", "enum": ["bytes"]}},
}
DOWNLOAD_RESPONSES = {
    "200": {"description": "The file, with the Content-Type it was uploaded with",
            "content": _BINARY, "headers": _FILE_HEADERS},
    "206": {"description": "Part of the file, for a `Range` request",
            "content": _BINARY, "headers": {
                **_FILE_HEADERS,
                "Content-Range": {"schema": {"type": "string"}}}},
    "304": {"description": "Not modified (`If-None-Match` matched the ETag)"},
}


owned_named_views(
    blp, "dataset", services, schemas, filters="name, tag or owner",
    patch_doc="Change name, description or tags (the owner, if an editor, or an admin).",
    delete_doc="Delete a dataset and its file (the owner, if an editor, or an admin).",
    deleted="Deleted; its file is removed and it leaves its collections",
    create_errors=(400, 401, 403, 409, 422),
)


@blp.route("/<id:dataset_id>/file")
class DatasetFile(MethodView):
    @takes_file
    @blp.doc(security=BEARER, requestBody=UPLOAD_BODY)
    @blp.arguments(schemas.UploadArgsSchema, location="query")
    @blp.response(200, schemas.DatasetSchema, description="The dataset with its new file")
    @error_responses(blp, 400, 401, 403, 404, 422)
    def put(self, args, dataset_id):
        """Upload (or replace) the file: multipart field ``file``, or the raw body.

        The file is streamed to storage and replaces the previous one only when it has
        arrived completely and within ``MAX_CONTENT_LENGTH`` bytes (else 400 ``File too
        large``, the previous file untouched).
        """
        dataset = changeable(services.get_dataset(dataset_id))
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        upload = Upload(limit, default_name=f"dataset-{dataset.id}")
        # End the transaction before streaming: no lock is held while the body arrives.
        db.session.commit()
        stored = get_storage().save(upload.chunks(), max_size=limit)
        try:
            return services.attach_file(dataset_id, stored, upload.filename, upload.content_type)
        finally:
            stored.release()  # until here a storage sweep leaves the new file alone

    @blp.doc(security=BEARER, responses=DOWNLOAD_RESPONSES)
    @error_responses(blp, 401, 403, 404, 416, 422)
    def get(self, dataset_id):
        """Download the file. Supports `Range`, `If-None-Match` and `If-Modified-Since`."""
        permissions.require_read(current_user)
        dataset = services.get_dataset(dataset_id)
        if dataset.file_key is None:
            raise FileNotFound()
        try:
            handle = get_storage().open(dataset.file_key)
        except FileNotFoundError:
            raise FileNotFound() from None
        # A row stored before content types and names were checked must not become a
        # response header that fails (or splits) the response.
        mimetype = dataset.file_content_type
        if media_type_error(mimetype or "") is not None:
            mimetype = DEFAULT_CONTENT_TYPE
        response = send_file(
            handle,
            mimetype=mimetype,
            as_attachment=True,
            download_name=clean_filename(dataset.file_name, f"dataset-{dataset.id}"),
            conditional=False,
            etag=dataset.file_sha256,
            last_modified=dataset.file_uploaded_at,
        )
        response.content_length = dataset.file_size
        try:
            return response.make_conditional(
                request.environ, accept_ranges=True, complete_length=dataset.file_size
            )
        except RequestedRangeNotSatisfiable:
            handle.close()
            raise


@blp.route("/<id:dataset_id>/preview")
class DatasetPreview(MethodView):
    @blp.doc(security=BEARER)
    @blp.arguments(schemas.PreviewArgsSchema, location="query")
    @blp.response(200, schemas.PreviewSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def get(self, args, dataset_id):
        """The first ``limit`` rows of the file (CSV, Parquet or JSON lines) as a table.

        Column types are inferred by DuckDB. 404 ``Dataset has no file`` when none has been
        uploaded; 422 ``Dataset file is not tabular`` when the file cannot be read as a
        table (binary, empty, ragged rows, duplicate column names...).
        """
        permissions.require_read(current_user)
        dataset = services.get_dataset(dataset_id)
        key, name = dataset.file_key, dataset.name
        if key is None:
            raise DatasetHasNoFile()
        # End the transaction before reading the file: nothing is held while DuckDB works.
        db.session.commit()
        try:
            path = get_storage().path(key)
        except FileNotFoundError:
            raise DatasetHasNoFile() from None
        config = current_app.config
        try:
            return tabular.preview(
                path, args["limit"], memory_limit=config["PIPELINE_MEMORY_LIMIT"],
                threads=config.get("PIPELINE_THREADS"), temp_dir=config.get("PIPELINE_TEMP_DIR"),
                max_line_size=int(config["PIPELINE_MAX_LINE_SIZE"]), name=name)
        except (tabular.NotTabular, FileNotFoundError, duckdb.Error) as exc:
            # Replaced or deleted by another request since it was looked up (DuckDB then
            # says the path cannot be accessed, which NotTabular would otherwise carry).
            if not os.path.isfile(path):
                raise DatasetHasNoFile() from None
            if isinstance(exc, tabular.NotTabular):
                raise DatasetNotTabular() from None
            raise
