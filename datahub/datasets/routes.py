"""/api/v1/datasets: CRUD and the dataset's file."""
from flask import current_app, request, send_file, url_for
from flask.views import MethodView
from werkzeug.exceptions import RequestedRangeNotSatisfiable

from datahub.api import BEARER, Blueprint, error_responses
from datahub.bodies import takes_file
from datahub.datasets import services
from datahub.datasets.errors import FileNotFound
from datahub.datasets.schemas import (
    DatasetCreateSchema,
    DatasetListArgsSchema,
    DatasetPageSchema,
    DatasetSchema,
    DatasetUpdateSchema,
    UploadArgsSchema,
)
from datahub.datasets.storage import get_storage
from datahub.datasets.uploads import DEFAULT_CONTENT_TYPE, Upload, clean_filename
from datahub.extensions import db
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
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


@blp.route("/", strict_slashes=False)
class Datasets(MethodView):
    @blp.doc(security=BEARER)
    @blp.arguments(DatasetListArgsSchema, location="query")
    @blp.response(200, DatasetPageSchema)
    @error_responses(blp, 401, 403, 422)
    def get(self, args):
        """List datasets, oldest first, filtered by name, tag or owner."""
        permissions.require_read(current_user)
        return services.list_datasets(args, current_user)

    @blp.doc(security=BEARER)
    @permissions.before_body(lambda: permissions.require_create(current_user))
    @blp.arguments(DatasetCreateSchema)
    @blp.response(201, DatasetSchema, headers={
        "Location": {"description": "The new dataset's URL", "schema": {"type": "string"}}
    })
    @error_responses(blp, 400, 401, 403, 409, 422)
    def post(self, values):
        """Create a dataset (editors and admins); the caller owns it."""
        dataset = services.create_dataset(current_user, values)
        location = url_for("datasets.DatasetById", dataset_id=dataset.id)
        return dataset, 201, {"Location": location}


@blp.route("/<id:dataset_id>")
class DatasetById(MethodView):
    @blp.doc(security=BEARER)
    @blp.response(200, DatasetSchema)
    @error_responses(blp, 401, 403, 404, 422)
    def get(self, dataset_id):
        """One dataset."""
        permissions.require_read(current_user)
        return services.get_dataset(dataset_id)

    @blp.doc(security=BEARER)
    @permissions.before_body(lambda dataset_id: permissions.require_change(
        current_user, services.get_dataset(dataset_id)))
    @blp.arguments(DatasetUpdateSchema)
    @blp.response(200, DatasetSchema)
    @error_responses(blp, 400, 401, 403, 404, 409, 422)
    def patch(self, values, dataset_id):
        """Change name, description or tags (the owner, if an editor, or an admin)."""
        return services.update_dataset(services.get_dataset(dataset_id), values)

    @blp.doc(security=BEARER)
    @blp.response(204, description="Deleted; its file is removed and it leaves its collections")
    @error_responses(blp, 401, 403, 404, 422)
    def delete(self, dataset_id):
        """Delete a dataset and its file (the owner, if an editor, or an admin)."""
        # Locked, so an upload finishing meanwhile cannot attach a file to a deleted row.
        dataset = services.get_dataset(dataset_id, for_update=True)
        permissions.require_change(current_user, dataset)
        services.delete_dataset(dataset)


@blp.route("/<id:dataset_id>/file")
class DatasetFile(MethodView):
    @takes_file
    @blp.doc(security=BEARER, requestBody=UPLOAD_BODY)
    @blp.arguments(UploadArgsSchema, location="query")
    @blp.response(200, DatasetSchema, description="The dataset with its new file")
    @error_responses(blp, 400, 401, 403, 404, 422)
    def put(self, args, dataset_id):
        """Upload (or replace) the file: multipart field ``file``, or the raw body.

        The file is streamed to storage and replaces the previous one only when it has
        arrived completely and within ``MAX_CONTENT_LENGTH`` bytes (else 400 ``File too
        large``, the previous file untouched).
        """
        dataset = services.get_dataset(dataset_id)
        permissions.require_change(current_user, dataset)
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
