"""The HTTP contract's own errors: each carries its status and ``detail`` (the errors of
storage and services know no HTTP: datahub.platform.errors); datahub.web.error_handlers
turns any exception, from any layer, into ``{"detail": ...}``."""

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


class MalformedBody(BadRequest):
    detail = "Request body is not valid JSON"


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


class InternalServerError(APIError):
    code = 500
    detail = "Internal server error"


def json_error_response(error):
    """The response to one APIError: the contract's JSON body, status and headers."""
    response = jsonify(detail=error.detail)
    response.status_code = error.code
    response.headers.update(error.extra_headers)
    if error.code == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response
