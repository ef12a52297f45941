"""/api/v1/datasets/{dataset_id}/file and .../preview: upload and download a dataset's file,
and preview it as a table (the documents of their bodies: ``datasets.openapi``)."""

from flask import current_app
from flask.views import MethodView

from datahub.datasets import downloads, previews, schemas, services
from datahub.datasets.blueprint import blp
from datahub.datasets.openapi import (
    DOWNLOAD_PARAMETERS,
    DOWNLOAD_RESPONSES,
    FILE_NOT_FOUND,
    PRECONDITION_FAILED,
    PREVIEW_UNPROCESSABLE,
    STORAGE_UNAVAILABLE,
    UPLOAD_BODY,
)
from datahub.datasets.uploads import Upload
from datahub.identity.guard import current_user
from datahub.resources.rights import changeable, readable
from datahub.web.bodies import takes_file
from datahub.web.openapi import BEARER, operation


class DatasetFile(MethodView):
    @takes_file
    @operation(
        blp,
        "upload_dataset_file",
        (
            400,
            "`File too large` (over `MAX_CONTENT_LENGTH`), `File is empty`, `Malformed "
            "multipart body`, or `Request body ended before its Content-Length`; the "
            "previous file stays",
        ),
        401,
        403,
        (404, "`Dataset not found`"),
        (415, "A form-encoded body (`curl -d @file`): send the file raw or as multipart/form-data"),
        (
            422,
            "Validation error: a Content-Type that is not a media type, a multipart body "
            "without its `file` part, or a bad `filename`",
        ),
        STORAGE_UNAVAILABLE,
        (
            507,
            "`Storage quota exceeded` (the owner's stored versions would pass "
            "`QUOTA_STORAGE_BYTES`), or `Insufficient storage` (the storage is full); "
            "nothing is stored",
        ),
        security=BEARER,
        requestBody=UPLOAD_BODY,
    )
    @blp.arguments(schemas.UploadArgsSchema, location="query")
    @blp.response(200, schemas.DatasetSchema, description="The dataset with its new version")
    def put(self, args, dataset_id):
        """Upload a dataset's file

        Upload a new version of the file: the raw body, or the multipart part ``file``.
        It becomes the current version (``current_version``, ``file``); earlier versions
        stay (``/versions``), and bytes equal to an earlier version's are not stored
        again. ``message`` is kept with the version. The
        stored ``content_type`` is the one the client sent (the request's Content-Type, or
        the part's; application/octet-stream when there is none), and downloads answer
        with it.

        The file is streamed to storage and becomes a version only when it has arrived
        completely, is not empty and is within ``MAX_CONTENT_LENGTH`` bytes (else 400
        ``File is empty`` or ``File too large``, nothing stored). A
        form-encoded body (``curl -d @file``, which drops the file's line breaks) is
        refused with 415 before it is read. The owner, if an editor, or an admin.

        A file that would bring the dataset owner's stored bytes (every kept version,
        each stored object once) over ``QUOTA_STORAGE_BYTES`` is refused with 507
        ``Storage quota exceeded``, cut off as soon as it passes the room left.
        """
        dataset = changeable(services.get_dataset(dataset_id))
        limit = services.upload_limit(dataset, current_app.config.get("MAX_CONTENT_LENGTH"))
        upload = Upload(limit.size, default_name=f"dataset-{dataset.id}")
        return services.store_file(dataset_id, upload, limit, current_user.id, args.get("message"))

    @operation(
        blp,
        "download_dataset_file",
        401,
        403,
        FILE_NOT_FOUND,
        PRECONDITION_FAILED,
        416,
        422,
        STORAGE_UNAVAILABLE,
        security=BEARER,
        parameters=DOWNLOAD_PARAMETERS,
        responses=DOWNLOAD_RESPONSES,
    )
    def get(self, dataset_id):
        """Download a dataset's file

        The file's bytes, with the Content-Type, name (``Content-Disposition``) and
        ETag it was uploaded with. Preconditions come first (RFC 9110): ``If-Match`` and
        ``If-Unmodified-Since`` (412), ``If-None-Match`` and ``If-Modified-Since`` (304);
        then ``Range`` (one range: 206; several: the whole file) under ``If-Range`` (a
        strong match, else the whole file). With
        ``STORAGE_PRESIGNED_DOWNLOADS`` (S3 storage), 302 to a presigned URL of the
        object instead. Any role. Counts as a download in the dataset's ``stats`` (a 200,
        a 302, or a 206 from the first byte)."""
        return downloads.file_response(
            downloads.Download.of_dataset(readable(services.get_dataset(dataset_id)))
        )


class DatasetPreview(MethodView):
    @operation(
        blp,
        "preview_dataset",
        401,
        403,
        (404, "`Dataset not found`, or `Dataset has no file`"),
        PREVIEW_UNPROCESSABLE,
        STORAGE_UNAVAILABLE,
        security=BEARER,
    )
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
        dataset = readable(services.get_dataset(dataset_id))
        return previews.preview_dataset(dataset, args["limit"], current_app.config)
