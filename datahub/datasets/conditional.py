"""Conditional and range requests on a download, in RFC 9110's order (section 13.2.2):
If-Match / If-Unmodified-Since (412), then If-None-Match / If-Modified-Since (304), then
Range with If-Range (206, or the whole file). werkzeug parses the headers; its
``make_conditional`` is left only the Range of a request that has passed them all."""

from datetime import timezone

from werkzeug.http import unquote_etag

CONDITIONAL_HEADERS = (
    "HTTP_IF_MATCH",
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_UNMODIFIED_SINCE",
    "HTTP_IF_RANGE",
)


def _http_time(value):
    """``value`` as an HTTP date compares: whole seconds, UTC (naive is UTC)."""
    value = value.replace(microsecond=0)
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def precondition_status(request, etag, last_modified):
    """412 or 304 when a precondition decides the answer, else None (a GET or HEAD)."""
    last_modified = _http_time(last_modified)
    if "If-Match" in request.headers:
        if not request.if_match.contains(etag):  # strong comparison; ``*`` matches
            return 412
    elif request.if_unmodified_since and last_modified > request.if_unmodified_since:
        return 412
    if "If-None-Match" in request.headers:
        if request.if_none_match.contains_weak(etag):  # weak comparison; ``*`` matches
            return 304
    elif request.if_modified_since and last_modified <= request.if_modified_since:
        return 304
    return None


def range_environ(request, etag, last_modified):
    """The request's environ for ``make_conditional``: without the conditional headers
    (decided already), and without a Range that does not apply: one whose If-Range does
    not match strongly (a weak ETag never does), or of several ranges (the whole file is
    sent rather than a multipart/byteranges answer)."""
    environ = {
        key: value for key, value in request.environ.items() if key not in CONDITIONAL_HEADERS
    }
    if "HTTP_RANGE" in environ and not _range_applies(request, etag, last_modified):
        del environ["HTTP_RANGE"]
    return environ


def _range_applies(request, etag, last_modified):
    ranges = request.headers["Range"].partition("=")[2].split(",")
    if sum(1 for part in ranges if part.strip()) > 1:
        return False
    if_range = request.headers.get("If-Range")
    if if_range is None:
        return True
    date = request.if_range.date
    if date is not None:  # an exact match (RFC 9110 13.1.5)
        return date == _http_time(last_modified)
    tag, weak = unquote_etag(if_range.strip())
    return not weak and tag == etag
