"""Reading an upload from the request body in chunks, without buffering it.

A ``multipart/form-data`` body is decoded by werkzeug's sans-IO ``MultipartDecoder`` as
it arrives and only the data of the part named ``file`` is passed on; any other body is
the file itself. Nothing is read through ``request.form``/``request.files`` (those would
spool the whole upload first).
"""
import posixpath
import unicodedata

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.http import parse_options_header
from werkzeug.sansio.multipart import Data, Epilogue, Field, File, MultipartDecoder, NeedData

from datahub.errors import BadRequest, RequestValidationError

CHUNK_SIZE = 1024 * 1024  # large reads: per-chunk Python overhead dominated at 64 KiB
# Room for the multipart framing (boundaries, part headers, small extra fields) on top
# of the file itself, which has the MAX_CONTENT_LENGTH limit of its own.
MULTIPART_OVERHEAD = 64 * 1024
MAX_PART_HEADERS = 16 * 1024
DEFAULT_CONTENT_TYPE = "application/octet-stream"


class MalformedMultipart(BadRequest):
    detail = "Malformed multipart body"


class IncompleteBody(BadRequest):
    detail = "Request body ended before its Content-Length"


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

    Under gunicorn the body is read from the client socket itself (see ``socket_body``):
    the chunks are then views of one reused buffer, valid until the next is asked for."""
    direct = socket_body(request.environ)
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
    """The file of the current request: ``chunks()`` yields its bytes; ``filename`` and
    ``content_type`` are known once the first chunk is out (or the generator is done)."""

    def __init__(self, file_limit, default_name):
        self.filename = None
        self.content_type = None
        self._default_name = default_name
        mimetype, options = parse_options_header(request.headers.get("Content-Type", ""))
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
            self.content_type = self.content_type[:255]
            self.filename = clean_filename(request.args.get("filename"), default_name)

    def chunks(self):
        stream = request.stream  # werkzeug's checks (Content-Length over the limit: 413)
        if not self.multipart:
            yield from _read_chunks(stream)
            return
        yield from self._multipart_chunks(stream)

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
                            self.content_type = (content_type or DEFAULT_CONTENT_TYPE)[:255]
                    elif isinstance(event, Data) and in_file and event.data:
                        yield event.data
                    event = decoder.next_event()
        except ValueError as exc:  # the decoder's word for a malformed or truncated body
            raise MalformedMultipart() from exc
        if not found:
            raise RequestValidationError.single(
                ["body", "file"], "field required", "value_error.missing"
            )


def _chunks_then_end(stream):
    """The body in chunks, then ``None`` (the decoder's end-of-input)."""
    yield from _read_chunks(stream)
    yield None


class SocketBody:
    """A Content-Length body read from gunicorn's client socket with ``recv_into`` into one
    buffer, instead of through ``wsgi.input``.

    gunicorn's reader copies every chunk three or four times through its buffers, and
    werkzeug's stream once more: about 40 % of an upload's time (bench/README.rst). Here
    the bytes go from the socket into the buffer and from there to the hash and the file.
    gunicorn's own reader is kept informed: what it had read ahead is taken from it first,
    a surplus (a pipelined request) is handed back, and its remaining length always says
    how much of the body is still unread, so that it drains or closes as it would."""

    def __init__(self, sock, body, reader):
        self.sock, self.body, self.reader = sock, body, reader

    def chunks(self):
        reader = self.reader
        buffer = memoryview(bytearray(CHUNK_SIZE))
        pending = reader.unreader.take_buffered()
        if len(pending) > reader.length:
            reader.unreader.unread(pending[reader.length:])
            pending = pending[:reader.length]
        try:
            while reader.length:
                filled = len(pending)
                buffer[:filled] = pending
                pending = b""
                wanted = min(CHUNK_SIZE, reader.length)
                while filled < wanted:
                    try:
                        received = self.sock.recv_into(buffer[filled:wanted])
                    except OSError as exc:  # reset, timed out: the client is gone, as
                        raise IncompleteBody() from exc  # werkzeug's stream would say
                    if not received:
                        raise IncompleteBody()
                    filled += received
                reader.length -= filled
                yield buffer[:filled]
        except IncompleteBody:
            self.body.failed = True  # where the next request starts is unknown: close
            raise


def socket_body(environ):
    """A :class:`SocketBody` for this request when it is served by gunicorn, has a
    Content-Length and nothing of its body was read yet; otherwise None."""
    sock = environ.get("gunicorn.socket")
    if sock is None:
        return None
    try:
        from gunicorn.http.body import Body, LengthReader
    except ImportError:
        return None
    body = environ.get("wsgi.input")
    if not (isinstance(body, Body) and isinstance(body.reader, LengthReader)
            and body.buf.tell() == 0 and hasattr(body.reader.unreader, "take_buffered")
            and body.reader.length == request.content_length):
        return None
    return SocketBody(sock, body, body.reader)

