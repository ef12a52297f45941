"""The error table. Each exception carries its status and ``detail``; ``handle_exception``
is the one place that turns any exception, from any layer, into ``{"detail": ...}``."""
import logging
import math
import time

import sqlalchemy as sa
from flask import jsonify, request
from flask_jwt_extended.exceptions import CSRFError
from flask_limiter.errors import RateLimitExceeded
from werkzeug import exceptions as wz

from datahub.request_ids import current_request_id

log = logging.getLogger("datahub.errors")


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


class FileTooLarge(BadRequest):
    detail = "File too large"


class IncompleteBody(BadRequest):
    """The client stopped sending (closed, reset, or idle too long) before the body's end."""

    detail = "Request body ended before its Content-Length"


class MalformedChunkedBody(BadRequest):
    detail = "Malformed chunked body"


class NumberOutOfRange(MalformedBody):
    """Valid JSON, but a number no integer or float here can hold (over 4300 digits,
    or a float that overflows to infinity)."""

    detail = "Request body contains a number out of range"


class RequestBodyTooLarge(APIError):
    """A body over ``MAX_JSON_BODY_BYTES`` where a JSON body is expected."""

    code = 413
    detail = "Request body too large"


class NotAuthenticated(APIError):
    code = 401
    detail = "Not authenticated"


class InvalidToken(NotAuthenticated):
    detail = "Invalid token"


class TokenExpired(NotAuthenticated):
    detail = "Token has expired"


class TokenRevoked(NotAuthenticated):
    detail = "Token has been revoked"


class InvalidCredentials(NotAuthenticated):
    detail = "Invalid email or password"


class Forbidden(APIError):
    code = 403
    detail = "Forbidden"


class NotFound(APIError):
    code = 404
    detail = "Not Found"


class UserNotFound(NotFound):
    detail = "User not found"


class SessionNotFound(NotFound):
    detail = "Session not found"


class DatasetNotFound(NotFound):
    detail = "Dataset not found"


class CollectionNotFound(NotFound):
    detail = "Collection not found"


class FileNotFound(NotFound):
    """The dataset exists but no file has been uploaded to it."""

    detail = "File not found"


class Conflict(APIError):
    code = 409
    detail = "Conflict"


class NameAlreadyExists(Conflict):
    detail = "Name already exists"


class RequestValidationError(APIError):
    """422 with the pydantic-v1 list: ``[{"loc": [...], "msg": ..., "type": ...}]``."""

    code = 422

    def __init__(self, errors, headers=None):
        super().__init__(detail=list(errors), headers=headers)

    @classmethod
    def single(cls, loc, msg, type_):
        return cls([{"loc": list(loc), "msg": msg, "type": type_}])


class TooManyRequests(APIError):
    code = 429
    detail = "Too many requests"


class ServiceUnavailable(APIError):
    code = 503
    detail = "Service unavailable"

    def __init__(self, detail=None, headers=None):
        super().__init__(detail, {"Retry-After": "1", **(headers or {})})


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


def to_api_error(exc):
    """Map an exception from any layer onto our table."""
    from datahub.validation import pydantic_errors

    if isinstance(exc, APIError):
        return exc
    if isinstance(exc, RateLimitExceeded):
        return TooManyRequests(headers={"Retry-After": str(_retry_after())})
    if isinstance(exc, CSRFError):  # double-submit CSRF (JWT_COOKIE_CSRF_PROTECT) failed
        return Forbidden()
    body_error = _body_error(exc)
    if body_error is not None:
        return body_error
    if isinstance(exc, wz.HTTPException):
        data = getattr(exc, "data", None) or {}
        headers = {
            k: v for k, v in exc.get_headers() if k.lower() != "content-type"
        }
        headers.update(data.get("headers") or {})
        messages = data.get("messages")
        if exc.code == 422 and messages:
            return RequestValidationError(pydantic_errors(messages, location=None), headers)
        if exc.code == 400 and messages:  # webargs: the body could not be decoded
            return MalformedBody(headers=headers)
        error = APIError(detail=exc.name, headers=headers)
        error.code = exc.code
        return error
    return None


def _body_error(exc):
    """A request body that was too large, malformed or cut off while being read, from
    werkzeug's stream or gunicorn's readers. Whatever is left of the body is not read:
    the connection closes after the answer."""
    from datahub.bodies import too_large_error
    from datahub.serving.gunicorn_worker import (
        BROKEN_BODY_ERRORS,
        MALFORMED_BODY_ERRORS,
        close_connection,
    )

    if isinstance(exc, wz.RequestEntityTooLarge):
        error = too_large_error()
    elif isinstance(exc, MALFORMED_BODY_ERRORS):
        error = MalformedChunkedBody()
    elif isinstance(exc, (wz.ClientDisconnected, ConnectionResetError) + BROKEN_BODY_ERRORS):
        error = IncompleteBody()
    else:
        return None
    close_connection(request.environ)
    return error


def _retry_after():
    """Whole seconds until the breached limit lets a request through again (at least 1)."""
    from datahub.extensions import limiter

    breached = limiter.current_limit
    if breached is None:
        return 1
    try:
        return max(1, math.ceil(breached.window[0] - time.time()))
    except Exception:  # storage gone between the hit and now: a conservative guess
        log.warning("could not read the rate limit window", exc_info=True)
        return int(breached.limit.get_expiry())


def handle_exception(exc):
    error = to_api_error(exc)
    if error is None and isinstance(exc, (sa.exc.OperationalError, sa.exc.InterfaceError)):
        # The database is down or overloaded: a retryable 503, not a bug.
        log.error("database unavailable on %s %s (request id %s): %s",
                  request.method, request.path, current_request_id() or "-", exc)
        _rollback()
        error = ServiceUnavailable()
    if error is None:
        log.exception(
            "unhandled error on %s %s (request id %s)",
            request.method, request.path, current_request_id() or "-",
        )
        _rollback()
        error = InternalServerError()
    return error_response(error)


def _rollback():
    from datahub.extensions import db

    try:
        db.session.rollback()
    except sa.exc.SQLAlchemyError:
        log.warning("rollback after an error failed too", exc_info=True)


def register_error_handlers(app):
    # Registered after flask-smorest's own HTTPException handler, so this one wins.
    app.register_error_handler(wz.HTTPException, handle_exception)
    app.register_error_handler(Exception, handle_exception)
    # flask-jwt-extended registers its own CSRFError handler (a 401); ours replaces it.
    app.register_error_handler(CSRFError, handle_exception)


class PipelineNotFound(NotFound):
    detail = "Pipeline not found"


class RunNotFound(NotFound):
    detail = "Run not found"


class PipelineAlreadyRunning(Conflict):
    detail = "Pipeline is already running"
