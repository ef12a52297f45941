"""Turning any exception, from any layer, into the contract's ``{"detail": ...}``:
``handle_exception`` is the one place that does it (the table itself is datahub.web.errors)."""
import logging
import math
import time

import sqlalchemy as sa
from flask import request
from flask_jwt_extended.exceptions import CSRFError
from flask_limiter.errors import RateLimitExceeded
from werkzeug import exceptions as wz

from datahub.web.bodies import too_large_error
from datahub.web.errors import (
    APIError,
    Forbidden,
    IncompleteBody,
    InternalServerError,
    MalformedBody,
    MalformedChunkedBody,
    RequestValidationError,
    ServiceUnavailable,
    TooManyRequests,
    error_response,
)
from datahub.app.extensions import db, limiter
from datahub.web.request_ids import current_request_id
from datahub.platform.serving.gunicorn_worker import (
    BROKEN_BODY_ERRORS,
    MALFORMED_BODY_ERRORS,
    close_connection,
)
from datahub.web.validation import pydantic_errors

log = logging.getLogger("datahub.errors")


def to_api_error(exc):
    """Map an exception from any layer onto our table."""
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
        if exc.code in (429, 503) and "Retry-After" not in headers:  # the contract's promise
            headers["Retry-After"] = "1"
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


