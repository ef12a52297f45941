"""/api/v1/datasets: CRUD, the dataset's file and its preview."""
import contextlib
import io
import os
import unicodedata
from urllib.parse import quote

from flask import current_app, redirect, request, send_file
from flask.views import MethodView
from werkzeug.exceptions import RequestedRangeNotSatisfiable, RequestEntityTooLarge
from werkzeug.http import dump_options_header
from werkzeug.wsgi import FileWrapper

from datahub import quotas
from datahub.web.api import Blueprint
from datahub.web.bodies import takes_file
from datahub.datasets import conditional, previews, schemas, services
from datahub.datasets.errors import (
    DatasetHasNoFile,
    DatasetNotTabular,
    FileNotFound,
    PreconditionFailed,
)
from datahub.platform.storage import get_storage
from datahub.datasets.uploads import DEFAULT_CONTENT_TYPE, Upload, clean_filename
from datahub.web.errors import FileTooLarge
from datahub.app.extensions import db
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.web.openapi import BEARER, operation
from datahub.resources.views import changeable, owned_named_views
from datahub.platform.serving.gunicorn_worker import close_connection
from datahub.web.validation import media_type_error

blp = Blueprint(
    "datasets", __name__, url_prefix="/api/v1/datasets", guard=authenticate,
    description="Datasets: described data with an optional file",
)

_BINARY_SCHEMA = {"type": "string", "format": "binary"}
_STORED_TYPE = ("The body is the file; its `Content-Type` is stored as the file's "
                "`content_type` and sent back with every download")
_EXAMPLE_FILE = "date,temp\n2024-01-01,-3\n2024-01-02,-5\n"
UPLOAD_BODY = {
    "description": "The file: the raw body, of any media type (its Content-Type is kept), "
                   "or the part `file` of a multipart/form-data body (the part's Content-Type "
                   "and filename are kept). An empty file is refused (400 `File is empty`), "
                   "and so is a form-encoded body (415).",
    # An empty body, or an empty ``file`` part, is refused: 400 ``File is empty``.
    "required": True,
    "content": {
        "application/octet-stream": {
            "schema": {**_BINARY_SCHEMA, "minLength": 1, "description": _STORED_TYPE},
            "example": _EXAMPLE_FILE,
        },
        "*/*": {
            "schema": {**_BINARY_SCHEMA, "minLength": 1, "description": _STORED_TYPE},
            "example": _EXAMPLE_FILE,
        },
        "multipart/form-data": {
            "example": {"file": _EXAMPLE_FILE},
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {"file": {**_BINARY_SCHEMA, "minLength": 1, "description":
                                        "The file; the part's Content-Type (default "
                                        "application/octet-stream) and filename are kept"}},
            }
        },
    },
}

_FILE_HEADERS = {
    "Content-Length": {"description": "The file's size (of the part, for a 206)",
                       "schema": {"type": "integer", "minimum": 0}},
    "ETag": {"description": "The sha256 of the file, quoted", "schema": {"type": "string"}},
    "Last-Modified": {"description": "When the file was uploaded",
                      "schema": {"type": "string"}},
    "Content-Disposition": {
        "description": "`attachment; filename=\"ascii\"; filename*=UTF-8''...`",
        "schema": {"type": "string"},
    },
    "Accept-Ranges": {"description": "Ranges of bytes can be asked for",
                      "schema": {"type": "string", "enum": ["bytes"]}},
}
_DOWNLOADED = "The file's bytes, with the Content-Type it was uploaded with"
_DOWNLOAD = {
    "application/octet-stream": {"schema": {**_BINARY_SCHEMA, "description": _DOWNLOADED}},
    "*/*": {"schema": {**_BINARY_SCHEMA, "description": _DOWNLOADED}},
}
DOWNLOAD_PARAMETERS = [
    {"in": "header", "name": "Range", "schema": {"type": "string"}, "required": False,
     "description": "One range of bytes, as `bytes=0-1023` (206), or `bytes=-500` for the "
                    "last 500; beyond the file: 416. Several ranges: 200 with the whole file"},
    {"in": "header", "name": "If-Range", "schema": {"type": "string"}, "required": False,
     "description": "A strong ETag or the exact Last-Modified date: the Range applies only "
                    "while the file is unchanged (else 200 with the whole file)"},
    {"in": "header", "name": "If-Match", "schema": {"type": "string"}, "required": False,
     "description": "ETags (strong comparison) or `*`: 412 unless the file has one of them"},
    {"in": "header", "name": "If-Unmodified-Since", "schema": {"type": "string"},
     "required": False, "description": "An HTTP date: 412 if the file is newer"},
    {"in": "header", "name": "If-None-Match", "schema": {"type": "string"}, "required": False,
     "description": "An ETag from an earlier download: 304 while the file is unchanged"},
    {"in": "header", "name": "If-Modified-Since", "schema": {"type": "string"},
     "required": False, "description": "An HTTP date: 304 unless the file is newer"},
]
DOWNLOAD_RESPONSES = {
    200: {"description": "The file", "content": _DOWNLOAD, "headers": _FILE_HEADERS},
    206: {"description": "Part of the file, for a `Range` request", "content": _DOWNLOAD,
          "headers": {**_FILE_HEADERS, "Content-Range": {
              "description": "Which bytes: `bytes 0-1023/5000`",
              "schema": {"type": "string"}}}},
    302: {"description": "Only when `STORAGE_PRESIGNED_DOWNLOADS` is on (S3 storage): "
                         "`Location` is a presigned URL of the object, valid for "
                         "`STORAGE_PRESIGNED_EXPIRES` seconds, that answers with the same "
                         "Content-Type and Content-Disposition (Range works there too; "
                         "its ETag is the object store's, not the sha256)",
          "headers": {"Location": {"description": "The presigned URL",
                                   "schema": {"type": "string", "format": "uri"}}}},
    304: {"description": "Not modified (`If-None-Match` or `If-Modified-Since`)",
          "headers": {"ETag": _FILE_HEADERS["ETag"]}},
}
FILE_NOT_FOUND = (404, "`Dataset not found`, or `File not found` when none was uploaded")
STORAGE_UNAVAILABLE = (503, "`Service unavailable` (the database cannot be reached) or "
                            "`Storage unavailable` (the object storage failed); retry after "
                            "`Retry-After` seconds")
# Blocks of a download the service sends itself (not with sendfile).
CHUNK_BYTES = 1024 * 1024


owned_named_views(
    blp, "dataset", services, schemas, filters="name, tag or owner",
    patch_doc=("Change a dataset", "Change name, description or tags (the owner, if an "
               "editor, or an admin)."),
    delete_doc=("Delete a dataset", "Delete a dataset and its file (the owner, if an "
                "editor, or an admin); it leaves its collections."),
    deleted="Deleted; its file is removed and it leaves its collections",
    create_errors=(401, (403, "Forbidden: the role does not allow this, or `Dataset quota "
                              "exceeded` (the caller owns `QUOTA_DATASETS` datasets)"), 409),
)


@blp.route("/<id:dataset_id>/file")
class DatasetFile(MethodView):
    @takes_file
    @operation(
        blp, "upload_dataset_file",
        (400, "`File too large` (over `MAX_CONTENT_LENGTH`), `File is empty`, `Malformed "
              "multipart body`, or `Request body ended before its Content-Length`; the "
              "previous file stays"),
        401, 403, (404, "`Dataset not found`"),
        (415, "A form-encoded body (`curl -d @file`): send the file raw or as "
              "multipart/form-data"),
        (422, "Validation error: a Content-Type that is not a media type, a multipart body "
              "without its `file` part, or a bad `filename`"),
        STORAGE_UNAVAILABLE,
        (507, "`Storage quota exceeded` (the owner's files would pass `QUOTA_STORAGE_BYTES`; "
              "the file replaced counts as freed), or `Insufficient storage` (the storage "
              "is full); the previous file stays"),
        security=BEARER, requestBody=UPLOAD_BODY)
    @blp.arguments(schemas.UploadArgsSchema, location="query")
    @blp.response(200, schemas.DatasetSchema, description="The dataset with its new file")
    def put(self, args, dataset_id):
        """Upload a dataset's file

        Upload (or replace) the file: the raw body, or the multipart part ``file``. The
        stored ``content_type`` is the one the client sent (the request's Content-Type, or
        the part's; application/octet-stream when there is none), and downloads answer
        with it.

        The file is streamed to storage and replaces the previous one only when it has
        arrived completely, is not empty and is within ``MAX_CONTENT_LENGTH`` bytes (else
        400 ``File is empty`` or ``File too large``, the previous file untouched). A
        form-encoded body (``curl -d @file``, which drops the file's line breaks) is
        refused with 415 before it is read. The owner, if an editor, or an admin.

        A file that would bring the dataset owner's stored bytes over
        ``QUOTA_STORAGE_BYTES`` (the file it replaces counting as freed) is refused with
        507 ``Storage quota exceeded``, cut off as soon as it passes the room left.
        """
        dataset = changeable(services.get_dataset(dataset_id))
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        room = quotas.storage_room(dataset.owner_id, services.replaced_bytes(dataset))
        quota_binds = room is not None and (limit is None or room < limit)
        if quota_binds:
            limit = max(room, 0)
        upload = Upload(limit, default_name=f"dataset-{dataset.id}")
        # End the transaction before streaming: no lock is held while the body arrives.
        db.session.commit()
        try:
            stored = get_storage().save(upload.chunks(), max_size=limit)
        except (FileTooLarge, RequestEntityTooLarge) as exc:
            if not quota_binds:
                raise
            if isinstance(exc, RequestEntityTooLarge):  # its declared length: left unread
                close_connection(request.environ)
            raise quotas.StorageQuotaExceeded() from None
        try:
            return services.attach_file(dataset_id, stored, upload.filename, upload.content_type)
        finally:
            stored.release()  # until here a storage sweep leaves the new file alone

    @operation(blp, "download_dataset_file", 401, 403, FILE_NOT_FOUND,
               (412, "`Precondition Failed`: `If-Match` or `If-Unmodified-Since` does not hold"),
               416, 422,
               STORAGE_UNAVAILABLE, security=BEARER, parameters=DOWNLOAD_PARAMETERS,
               responses=DOWNLOAD_RESPONSES)
    def get(self, dataset_id):
        """Download a dataset's file

        The file's bytes, with the Content-Type, name (``Content-Disposition``) and
        ETag it was uploaded with. Preconditions come first (RFC 9110): ``If-Match`` and
        ``If-Unmodified-Since`` (412), ``If-None-Match`` and ``If-Modified-Since`` (304);
        then ``Range`` (one range: 206; several: the whole file) under ``If-Range`` (a
        strong match, else the whole file). With
        ``STORAGE_PRESIGNED_DOWNLOADS`` (S3 storage), 302 to a presigned URL of the
        object instead. Any role."""
        permissions.require_read(current_user)
        dataset = services.get_dataset(dataset_id)
        if dataset.file_key is None:
            raise FileNotFound()
        # A row stored before content types and names were checked must not become a
        # response header that fails (or splits) the response.
        mimetype = dataset.file_content_type
        if media_type_error(mimetype or "") is not None:
            mimetype = DEFAULT_CONTENT_TYPE
        download_name = clean_filename(dataset.file_name, f"dataset-{dataset.id}")
        storage = get_storage()
        config = current_app.config
        etag, modified = dataset.file_sha256, dataset.file_uploaded_at
        # Preconditions first (RFC 9110 13.2.2). A 412 or 304 needs neither the storage nor
        # a redirect: the row has the ETag and date (and a 304 still works while S3 is down).
        status = conditional.precondition_status(request, etag, modified)
        if status == 412:
            raise PreconditionFailed()
        unchanged = status == 304
        if config["STORAGE_PRESIGNED_DOWNLOADS"] and not unchanged:
            url = storage.presigned_url(
                dataset.file_key, config["STORAGE_PRESIGNED_EXPIRES"],
                content_type=mimetype,
                content_disposition=attachment_disposition(download_name))
            if url is not None:
                response = redirect(url, 302)
                response.headers["Cache-Control"] = "no-store"  # the URL expires
                return response
        try:
            handle = io.BytesIO() if unchanged else storage.open(dataset.file_key)
        except FileNotFoundError:
            raise FileNotFound() from None
        response = send_file(
            handle,
            mimetype=mimetype,
            as_attachment=True,
            download_name=download_name,
            conditional=False,
            etag=etag,
            last_modified=modified,
        )
        # The stored type unchanged: send_file would add "; charset=utf-8" to a text/* one.
        response.content_type = mimetype
        response.content_length = dataset.file_size
        environ = conditional.range_environ(request, etag, modified)
        if unchanged:
            environ.pop("HTTP_RANGE", None)
            response.status_code = 304
        elif "HTTP_RANGE" in environ or not _is_os_file(handle):
            # gunicorn's wsgi.file_wrapper (which send_file used) cannot seek, so a Range
            # would read every byte before it (from S3: download them); werkzeug's wrapper
            # seeks. A full download of a local file keeps gunicorn's (sendfile).
            response.response = FileWrapper(handle, CHUNK_BYTES)
        try:
            response = response.make_conditional(
                environ, accept_ranges=True, complete_length=dataset.file_size
            )
        except RequestedRangeNotSatisfiable:
            handle.close()
            raise
        if response.status_code == 206 and hasattr(handle, "limit"):
            handle.limit(response.content_range.stop)  # S3: GET only the range's bytes
        return response


@blp.route("/<id:dataset_id>/preview")
class DatasetPreview(MethodView):
    @operation(blp, "preview_dataset", 401, 403,
               (404, "`Dataset not found`, or `Dataset has no file`"),
               (422, "Validation error, `Dataset file is not tabular`, `Preview is too "
                     "large` or `Preview timed out`"),
               STORAGE_UNAVAILABLE, security=BEARER)
    @blp.arguments(schemas.PreviewArgsSchema, location="query")
    @blp.response(200, schemas.PreviewSchema)
    def get(self, args, dataset_id):
        """Preview a dataset's file as a table

        The first ``limit`` rows of the file (CSV, Parquet or JSON lines, recognised from
        its bytes) as a table. Column types are inferred by DuckDB. 404 ``Dataset has no
        file`` when none has been uploaded; 422 ``Dataset file is not tabular`` when the
        file cannot be read as a table (binary, empty, ragged rows, duplicate column
        names...). Text longer than 1,000 characters (and lists longer than 100 items)
        is cut and ends with ``…`` (``truncated`` is then true); a preview whose JSON is
        still over PREVIEW_MAX_BYTES is 422 ``Preview is too large``, as is one that
        needs more memory than the previews' limit; one that takes longer than
        PREVIEW_TIMEOUT_SECONDS is 422 ``Preview timed out``. Any role.
        """
        permissions.require_read(current_user)
        dataset = services.get_dataset(dataset_id)
        key, name = dataset.file_key, dataset.name
        if key is None:
            raise DatasetHasNoFile()
        # End the transaction before reading the file: nothing is held while DuckDB works.
        db.session.commit()
        config = current_app.config
        with contextlib.ExitStack() as stack:
            try:
                # The stored file itself, or (S3) a temporary copy in PIPELINE_TEMP_DIR.
                path = stack.enter_context(
                    get_storage().local_copy(key, config.get("PIPELINE_TEMP_DIR")))
            except FileNotFoundError:
                raise DatasetHasNoFile() from None
            try:
                return previews.preview_file(path, args["limit"], name, config)
            except DatasetNotTabular:
                # Replaced or deleted by another request since it was looked up (DuckDB
                # then says the path cannot be accessed).
                if not os.path.isfile(path):
                    raise DatasetHasNoFile() from None
                raise


def attachment_disposition(name):
    """``Content-Disposition: attachment`` for ``name`` exactly as send_file writes it
    (RFC 6266: an ASCII ``filename`` and, if needed, a UTF-8 ``filename*``)."""
    try:
        name.encode("ascii")
    except UnicodeEncodeError:
        simple = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
        names = {"filename": simple,
                 "filename*": "UTF-8''" + quote(name, safe="!#$&+-.^_`|~")}
    else:
        names = {"filename": name}
    return dump_options_header("attachment", names)


def _is_os_file(handle):
    try:
        handle.fileno()
    except (AttributeError, OSError):
        return False
    return True
