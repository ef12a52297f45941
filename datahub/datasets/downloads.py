"""A stored file (a dataset's current file or a version's) as a response: preconditions, one range, or a redirect to a presigned
URL (S3), with the Content-Type, name and ETag it was uploaded with."""

import io
import unicodedata
from dataclasses import dataclass
from urllib.parse import quote

from flask import current_app, redirect, request, send_file
from werkzeug.exceptions import RequestedRangeNotSatisfiable
from werkzeug.http import dump_options_header
from werkzeug.wsgi import FileWrapper

from datahub.datasets import conditional
from datahub.datasets.errors import FileNotFound, PreconditionFailed
from datahub.datasets.uploads import DEFAULT_CONTENT_TYPE, clean_filename
from datahub.platform.storage import get_storage
from datahub.web.validation import media_type_error

# Blocks of a download the service sends itself (not with sendfile).
CHUNK_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Download:
    """A stored file as a download: the dataset's current file or one of its versions."""

    key: str | None
    size: int | None
    sha256: str | None
    content_type: str | None
    filename: str | None
    modified: object
    fallback_name: str

    @classmethod
    def of_dataset(cls, dataset):
        return cls(
            dataset.file_key,
            dataset.file_size,
            dataset.file_sha256,
            dataset.file_content_type,
            dataset.file_name,
            dataset.file_uploaded_at,
            f"dataset-{dataset.id}",
        )

    @classmethod
    def of_version(cls, version):
        return cls(
            version.file_key,
            version.size_bytes,
            version.sha256,
            version.content_type,
            version.filename,
            version.created_at,
            f"dataset-{version.dataset_id}-v{version.version}",
        )


def file_response(download):
    """The response to a download of ``download``: 404 ``File not found`` without a
    file, 412 or 304 by the preconditions, else 302 to a presigned URL
    (``STORAGE_PRESIGNED_DOWNLOADS``), 206 for one range, or 200 with the whole file."""
    if download.key is None:
        raise FileNotFound()
    # A row stored before content types and names were checked must not become a
    # response header that fails (or splits) the response.
    mimetype = download.content_type
    if media_type_error(mimetype or "") is not None:
        mimetype = DEFAULT_CONTENT_TYPE
    download_name = clean_filename(download.filename, download.fallback_name)
    etag, modified = download.sha256, download.modified
    # Preconditions first (RFC 9110 13.2.2). A 412 or 304 needs neither the storage nor
    # a redirect: the row has the ETag and date (and a 304 still works while S3 is down).
    status = conditional.precondition_status(request, etag, modified)
    if status == 412:
        raise PreconditionFailed()
    unchanged = status == 304
    if not unchanged:
        response = _presigned_redirect(download, mimetype, download_name)
        if response is not None:
            return response
    try:
        handle = io.BytesIO() if unchanged else get_storage().open(download.key)
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
    response.content_length = download.size
    return _ranged(response, handle, download, unchanged)


def _presigned_redirect(download, mimetype, download_name):
    """A 302 to a presigned URL of the file (``STORAGE_PRESIGNED_DOWNLOADS``), or None
    where there is none (the setting off, or a storage without them)."""
    config = current_app.config
    if not config["STORAGE_PRESIGNED_DOWNLOADS"]:
        return None
    url = get_storage().presigned_url(
        download.key,
        config["STORAGE_PRESIGNED_EXPIRES"],
        content_type=mimetype,
        content_disposition=attachment_disposition(download_name),
    )
    if url is None:
        return None
    response = redirect(url, 302)
    response.headers["Cache-Control"] = "no-store"  # the URL expires
    return response


def _ranged(response, handle, download, unchanged):
    """``response`` (the file in ``handle``) as the request's preconditions and ``Range``
    make it: 304, 206 for one range, or 200."""
    etag, modified = download.sha256, download.modified
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
            environ, accept_ranges=True, complete_length=download.size
        )
    except RequestedRangeNotSatisfiable:
        handle.close()
        raise
    if response.status_code == 206 and hasattr(handle, "limit"):
        handle.limit(response.content_range.stop)  # S3: GET only the range's bytes
    if response.status_code in (200, 206) and request.method != "HEAD" and hasattr(handle, "start"):
        try:
            if response.status_code == 206:
                handle.seek(response.content_range.start)  # the range's first byte
            handle.start()  # S3: the GET begins while a failure can still be a 503
        except BaseException:
            handle.close()
            raise
    return response


def attachment_disposition(name):
    """``Content-Disposition: attachment`` for ``name`` exactly as send_file writes it
    (RFC 6266: an ASCII ``filename`` and, if needed, a UTF-8 ``filename*``)."""
    try:
        name.encode("ascii")
    except UnicodeEncodeError:
        simple = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
        names = {"filename": simple, "filename*": "UTF-8''" + quote(name, safe="!#$&+-.^_`|~")}
    else:
        names = {"filename": name}
    return dump_options_header("attachment", names)


def _is_os_file(handle):
    try:
        handle.fileno()
    except (AttributeError, OSError):
        return False
    return True
