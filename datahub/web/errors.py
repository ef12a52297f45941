"""The error table's shared part: each exception carries its status and ``detail``.
Features add their own (``datasets/errors.py`` ...); datahub.web.error_handlers turns any
exception, from any layer, into ``{"detail": ...}``."""
from flask import jsonify
from werkzeug import exceptions as wz


class APIError(wz.HTTPException):
    """Base for the service's own errors: ``code`` and ``detail`` live on the class."""

    code = 500
    detail = "Internal server error"

    def __init__(self, detail=None, headers=None):
        super().__init__()
        if detail is not None:
            self.detail = detail
        self.extra_headers = dict(headers or {})


class BadRequest(APIError):
    code = 400
    detail = "Bad Request"


class MalformedBody(BadRequest): detail = "Request body is not valid JSON"
class FileTooLarge(BadRequest): detail = "File too large"


class IncompleteBody(BadRequest):
    """The client stopped sending (closed, reset, or idle too long) before the body's end."""

    detail = "Request body ended before its Content-Length"


class MalformedChunkedBody(BadRequest): detail = "Malformed chunked body"


class NumberOutOfRange(MalformedBody):
    """Valid JSON, but a number no integer or float here can hold (over 4300 digits,
    or a float that overflows to infinity)."""

    detail = "Request body contains a number out of range"


class RequestBodyTooLarge(APIError):
    """A body over ``MAX_JSON_BODY_BYTES`` where a JSON body is expected."""

    code = 413
    detail = "Request body too large"


class Forbidden(APIError):
    code = 403
    detail = "Forbidden"


class NotFound(APIError):
    code = 404
    detail = "Not Found"


class PermanentRedirect(APIError):
    """A 308 to ``location`` with the contract's body, not Werkzeug's HTML page."""

    code = 308
    detail = "Permanent Redirect"

    def __init__(self, location):
        super().__init__(headers={"Location": location})


class Conflict(APIError):
    code = 409
    detail = "Conflict"


class NameAlreadyExists(Conflict): detail = "Name already exists"


class UnprocessableContent(APIError):
    """422 with a message: the request is valid, but what it names cannot be processed
    (for example a dataset file that is not a table)."""

    code = 422
    detail = "Unprocessable content"


class RequestValidationError(APIError):
    """422 with the pydantic-v1 list: ``[{"loc": [...], "msg": ..., "type": ...}]``."""

    code = 422

    def __init__(self, errors, headers=None):
        super().__init__(detail=list(errors), headers=headers)

    @classmethod
    def single(cls, loc, msg, type_):
        return cls([{"loc": list(loc), "msg": msg, "type": type_}])


class TooManyRequests(APIError):
    """Always with ``Retry-After`` (1 second unless told)."""

    code = 429
    detail = "Too many requests"

    def __init__(self, detail=None, headers=None):
        super().__init__(detail, {"Retry-After": "1", **(headers or {})})


class ServiceUnavailable(APIError):
    code = 503
    detail = "Service unavailable"

    def __init__(self, detail=None, headers=None):
        super().__init__(detail, {"Retry-After": "1", **(headers or {})})


class StorageUnavailable(ServiceUnavailable):
    """The object storage (S3) did not answer, or failed; logged where it happened."""

    detail = "Storage unavailable"


class InsufficientStorage(APIError):
    """The storage has no room for the upload (ENOSPC, EDQUOT); the previous file stays."""

    code = 507
    detail = "Insufficient storage"


class InternalServerError(APIError):
    code = 500
    detail = "Internal server error"


def error_response(error):
    """Render one APIError as the contract's JSON body."""
    response = jsonify(detail=error.detail)
    response.status_code = error.code
    response.headers.update(error.extra_headers)
    if error.code == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response
