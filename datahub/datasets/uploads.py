"""Reading an upload from the request body in chunks, without buffering it.

A ``multipart/form-data`` body is decoded by werkzeug's sans-IO ``MultipartDecoder`` as
it arrives and only the data of the part named ``file`` is passed on; any other body is
the file itself, except a form-encoded one (415, refused before it is read). Nothing is
read through ``request.form``/``request.files`` (those would spool the whole upload
first). A file of no bytes is refused (400 ``File is empty``) once the body has ended:
the storage then removes its temporary file, and the previous file stays.
"""

import posixpath
import unicodedata

from flask import current_app, request
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.http import parse_options_header
from werkzeug.sansio.multipart import (
    Data,
    Epilogue,
    Field,
    File,
    MultipartDecoder,
    NeedData,
)

from datahub.datasets.errors import EmptyFile, FormEncodedUpload
from datahub.platform.errors import FileTooLarge, IncompleteBody
from datahub.platform.serving.gunicorn_worker import CHUNK_SIZE, close_connection, socket_body
from datahub.web.bodies import MULTIPART_OVERHEAD, open_body
from datahub.web.errors import BadRequest, RequestValidationError
from datahub.web.validation import media_type_error

MAX_PART_HEADERS = 16 * 1024
DEFAULT_CONTENT_TYPE = "application/octet-stream"
FORM_ENCODED = "application/x-www-form-urlencoded"


class MalformedMultipart(BadRequest):
    detail = "Malformed multipart body"


def clean_filename(name, fallback):
    """The client's file name, kept only as metadata: no folders, no control characters."""
    name = (name or "").replace("\\", "/")
    name = posixpath.basename(name)
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C").strip()
    if name in ("", ".", ".."):
        name = fallback
    return name[:255]


def _read_chunks(stream):
    """The body in chunks. A body shorter than its Content-Length is an aborted upload
    (werkzeug does not check this when the server terminates the input, as gunicorn does).

    Under gunicorn the body is read from the client socket itself (see ``socket_body``;
    ``SOCKET_UPLOADS`` false turns it off): the chunks are then views of one reused
    buffer, valid until the next is asked for."""
    direct = None
    if current_app.config["SOCKET_UPLOADS"]:
        direct = socket_body(request.environ, request.content_length)
    if direct is not None:
        yield from direct.chunks()
        return
    expected = request.content_length
    received = 0
    while True:
        chunk = stream.read(CHUNK_SIZE)
        if not chunk:
            break
        received += len(chunk)
        yield chunk
    if expected is not None and received < expected:
        raise IncompleteBody()


class Upload:
    """The file of the current request: ``chunks()`` yields its bytes (and raises
    :class:`EmptyFile` at the end if there were none); ``filename`` and ``content_type``
    are known once the first chunk is out (or the generator is done)."""

    def __init__(self, file_limit, default_name):
        self.filename = None
        self.content_type = None
        self._default_name = default_name
        mimetype, options = parse_options_header(request.headers.get("Content-Type", ""))
        mimetype = mimetype.lower()  # media types are case-insensitive (RFC 9110, 8.3.1)
        if mimetype == FORM_ENCODED:
            # ``curl -d @file``: the bytes are not the file's (curl drops its line breaks).
            raise FormEncodedUpload()
        self.multipart = mimetype == "multipart/form-data"
        self._boundary = options.get("boundary", "").encode("latin-1", "replace")
        if self.multipart and not self._boundary:
            raise MalformedMultipart("Malformed multipart body: no boundary")
        # The whole body may exceed the file limit only by the multipart framing. One byte
        # more than the limit may be read: werkzeug's stream fails a read *at* its limit
        # (it cannot tell the end of a chunked body from more to come), and the file's own
        # limit is checked exactly by the storage while it writes.
        if file_limit is not None:
            extra = MULTIPART_OVERHEAD if self.multipart else 0
            request.max_content_length = file_limit + extra + 1
        if not self.multipart:
            self.content_type = request.headers.get("Content-Type") or DEFAULT_CONTENT_TYPE
            _check_media_type(self.content_type, ["header", "Content-Type"])
            self.filename = clean_filename(request.args.get("filename"), default_name)

    def chunks(self):
        """The file's bytes; :class:`FileTooLarge` when the body passes the limit (a
        declared length over it is left unread: the connection closes after the answer)."""
        try:
            stream = open_body()  # werkzeug's checks (Content-Length over the limit)
            if self.multipart:
                source = self._multipart_chunks(stream)
            else:
                source = _read_chunks(stream)
            empty = True
            for chunk in source:
                if len(chunk):
                    empty = False
                yield chunk
        except RequestEntityTooLarge:
            close_connection(request.environ)
            raise FileTooLarge() from None
        if empty:  # checked after the whole body, before the storage keeps anything
            raise EmptyFile()

    def _multipart_chunks(self, stream):
        decoder = MultipartDecoder(
            self._boundary, max_form_memory_size=MAX_PART_HEADERS + CHUNK_SIZE
        )
        found = in_file = False
        try:
            for data in _chunks_then_end(stream):
                try:
                    decoder.receive_data(data)
                except RequestEntityTooLarge:  # its buffer: part headers without an end
                    raise MalformedMultipart(
                        "Malformed multipart body: part headers too large"
                    ) from None
                event = decoder.next_event()
                while not isinstance(event, (Epilogue, NeedData)):
                    if isinstance(event, (Field, File)):
                        # The first part named "file" is the upload; others are skipped.
                        in_file = not found and event.name == "file"
                        if in_file:
                            found = True
                            self.filename = clean_filename(
                                getattr(event, "filename", None), self._default_name
                            )
                            content_type = event.headers.get("Content-Type")
                            self.content_type = content_type or DEFAULT_CONTENT_TYPE
                            _check_media_type(self.content_type, ["body", "file", "Content-Type"])
                    elif isinstance(event, Data) and in_file and event.data:
                        yield event.data
                    event = decoder.next_event()
        except ValueError as exc:  # the decoder's word for a malformed or truncated body
            raise MalformedMultipart() from exc
        if not found:
            raise RequestValidationError.single(
                ["body", "file"], "field required", "value_error.missing"
            )


def _check_media_type(value, loc):
    """The file's Content-Type is stored and sent back with every download: it must be a
    media type (RFC 9110), checked before a byte of the file is stored."""
    error = media_type_error(value)
    if error is not None:
        raise RequestValidationError.single(loc, *error)


def _chunks_then_end(stream):
    """The body in chunks, then ``None`` (the decoder's end-of-input)."""
    yield from _read_chunks(stream)
    yield None
