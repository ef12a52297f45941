"""Request bodies: bounded before they are read, and JSON parsed once.

Every request that has a body gets a limit before a byte of it is read: ``MAX_CONTENT_LENGTH``
(plus the multipart framing) for the views that take a file (marked :func:`takes_file`),
``MAX_JSON_BODY_BYTES`` for every other view. A declared ``Content-Length`` over the limit
is refused at once (413 ``Request body too large``; 400 ``File too large`` for a file) and
the connection closes with the body unread; a chunked body is cut off as soon as it passes
the limit. A JSON body is then parsed once, by :func:`json_body`, whoever asks first (the
login rate limit's key, the view's schema).
"""

import functools
import json
import math

from flask import current_app, g, request
from webargs.flaskparser import is_json_request
from werkzeug.exceptions import RequestEntityTooLarge

from datahub.app.registry import per_app
from datahub.platform.errors import FileTooLarge
from datahub.web.errors import MalformedBody, NumberOutOfRange, RequestBodyTooLarge

# Room for the multipart framing (boundaries, part headers, small extra fields) on top
# of the file itself, which has the MAX_CONTENT_LENGTH limit of its own.
MULTIPART_OVERHEAD = 64 * 1024
# Objects and arrays nested deeper than this are refused (400) before any schema sees them.
MAX_JSON_DEPTH = 64
# A body left unread by an answer given before it (401, 403, 404...) is read and dropped
# up to this size, so that a client still sending it gets the answer rather than a reset.
DRAIN_UNREAD_BYTES = 1024 * 1024
# ...for at most this many seconds after the answer: a client trickling it (unauthenticated
# as likely as not) holds a thread no longer than that.
DRAIN_UNREAD_SECONDS = 2
NO_BODY = object()
_UNSET = object()


def takes_file(view):
    """Mark a view whose body is a file (bounded by ``MAX_CONTENT_LENGTH``)."""
    view.takes_file = True
    return view


def _view_takes_file():
    key = (request.endpoint, request.method)
    cache = per_app(current_app, "datahub.file_views", dict)
    try:
        return cache[key]
    except KeyError:
        pass
    view = current_app.view_functions.get(request.endpoint)
    view_class = getattr(view, "view_class", None)
    handler = view
    if view_class is not None:
        method = "get" if request.method == "HEAD" else request.method.lower()
        handler = getattr(view_class, method, None)
    cache[key] = found = bool(getattr(handler, "takes_file", False))
    return found


def bound_request_body():
    """``before_request``: set this request's body limit; refuse a declared length over it."""
    environ = request.environ
    if not environ.get("CONTENT_LENGTH") and "HTTP_TRANSFER_ENCODING" not in environ:
        return
    if request.routing_exception is not None:
        return  # 404/405: the body is never read
    config = current_app.config
    if _view_takes_file():
        limit = config["MAX_CONTENT_LENGTH"]
        limit = None if limit is None else limit + MULTIPART_OVERHEAD
    else:
        limit = config["MAX_JSON_BODY_BYTES"]
    if limit is None:
        return
    # One byte more may be read: werkzeug's stream returns a chunked body cut at its
    # limit without a word; the byte past it is what tells an over-long body.
    request.max_content_length = limit + 1
    length = request.content_length
    if length is not None and length > limit:
        raise RequestEntityTooLarge()  # answered by too_large_error, connection closed


def settle_unread_body(response):
    """``after_request``: an error answered before the body was read (no :func:`open_body`).
    A client that sends the whole body before reading the answer (most do) would see the
    connection reset if the server closed it with the body unread. A small body is read and
    dropped once the answer is out, for at most ``DRAIN_UNREAD_SECONDS``, so the answer
    arrives and the connection stays usable; a larger one, or one still coming after that,
    closes it rather than being drained for nothing (or by a client trickling it to hold a
    thread)."""
    if response.status_code < 400 or g.get("_body_opened"):
        return response  # success, or the body was (being) read: left as its reader left it
    environ = request.environ
    if not environ.get("CONTENT_LENGTH") and "HTTP_TRANSFER_ENCODING" not in environ:
        return response
    from datahub.platform.serving.gunicorn_worker import close_connection

    length = request.content_length
    if length is None or length > DRAIN_UNREAD_BYTES:
        close_connection(environ)
        return response
    try:
        stream = request.stream
    except Exception:  # a body over its limit (413): it is never read
        close_connection(environ)
        return response
    response.call_on_close(functools.partial(_drain, stream, environ))
    return response


def _drain(stream, environ):
    """Read and drop the rest of the body, after the answer was sent; close the
    connection when it is not all in within ``DRAIN_UNREAD_SECONDS``."""
    from datahub.platform.serving.gunicorn_worker import close_connection, read_deadline

    try:
        with read_deadline(environ, DRAIN_UNREAD_SECONDS):
            while stream.read(64 * 1024):
                pass
    except Exception:  # the deadline, or the client went away: nothing left to keep
        close_connection(environ)


def close_after_response():
    """Close this request's connection after the response instead of reading on for the
    next request: the rest of the body is unread (refused) or unreadable (broken)."""
    from datahub.platform.serving.gunicorn_worker import close_connection

    close_connection(request.environ)


def too_large_error():
    """The error of a body over its limit: ``File too large`` for a view that takes a
    file, else 413 ``Request body too large``."""
    return FileTooLarge() if _view_takes_file() else RequestBodyTooLarge()


def json_body():
    """The request's JSON body, parsed once; :data:`NO_BODY` when there is none.

    Reading or parsing fails once: a later call raises the same exception again. Raises
    :class:`MalformedBody` (400) for a body that is not JSON, not UTF-8, not of a
    JSON content type, nested deeper than ``MAX_JSON_DEPTH`` or holding ``NaN``/
    ``Infinity``; :class:`NumberOutOfRange` (400) for a number no int or float holds."""
    cached = g.get("_json_body", _UNSET)
    if cached is _UNSET:
        try:
            cached = _parse(_read_json_body())
        except Exception as exc:  # also a body too large, cut off or idle: read once
            cached = _BodyFailed(exc)
        g._json_body = cached
    if isinstance(cached, _BodyFailed):
        raise cached.error
    return cached


def open_body():
    """The request's body stream, for the one reader of the body (a view's JSON, or an
    upload); an error answer after it leaves the body as that reader left it."""
    g._body_opened = True
    return request.stream


def _read_json_body():
    open_body()
    data = request.get_data(cache=True)
    limit = current_app.config["MAX_JSON_BODY_BYTES"]
    if limit is not None and len(data) > limit:  # a chunked body past the limit
        close_after_response()
        raise RequestBodyTooLarge()
    return data


class _BodyFailed:
    def __init__(self, error):
        self.error = error


class _OutOfRange(Exception):
    pass


class _NotJSON(Exception):
    pass


def _int(text):
    try:
        return int(text)
    except ValueError:  # over Python's 4300-digit limit for int(str)
        raise _OutOfRange() from None


def _float(text):
    value = float(text)
    if math.isinf(value):  # 1e400
        raise _OutOfRange()
    return value


def _constant(name):  # NaN, Infinity, -Infinity: Python's extension, not JSON
    raise _NotJSON()


def _parse(data):
    if not data:
        return NO_BODY
    if not is_json_request(request):
        raise MalformedBody("Request body must be JSON (Content-Type: application/json)")
    try:
        value = json.loads(
            data.decode("utf-8"), parse_int=_int, parse_float=_float, parse_constant=_constant
        )
    except _OutOfRange:
        raise NumberOutOfRange() from None
    except (ValueError, _NotJSON, RecursionError):  # JSONDecodeError, UnicodeDecodeError
        raise MalformedBody() from None
    if not _nesting_within(value, MAX_JSON_DEPTH):
        raise MalformedBody("Request body is nested too deeply")
    return value


def _nesting_within(value, limit):
    """Whether no object or array in ``value`` is nested more than ``limit`` deep."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in node if isinstance(child, (dict, list)))
    return True
