"""Turning any exception, from any layer, into the contract's ``{"detail": ...}``:
``handle_exception`` is the one place that does it. The service's own HTTP errors carry
their status (datahub.web.errors); the domain errors, which know no HTTP
(datahub.platform.errors, and the features' subclasses), get theirs from
:data:`DOMAIN_STATUSES`."""

import logging
import math
import time

import sqlalchemy as sa
from flask import request
from flask_jwt_extended.exceptions import CSRFError
from flask_limiter.errors import RateLimitExceeded
from werkzeug import exceptions as wz

from datahub.app.extensions import db, limiter
from datahub.platform import errors
from datahub.web.bodies import close_after_response, too_large_error
from datahub.web.errors import (
    APIError,
    Forbidden,
    InternalServerError,
    MalformedBody,
    RequestValidationError,
    ServiceUnavailable,
    TooManyRequests,
    json_error_response,
)
from datahub.web.request_ids import current_request_id
from datahub.web.validation import pydantic_errors

log = logging.getLogger("datahub.errors")

# The status of each kind of domain error. The ``detail`` is the error's message (for
# InvalidValues, the list of its problems under ``body``); a 429 or 503 tells in
# Retry-After when to try again (the error's ``retry_after``, else 1 second).
DOMAIN_STATUSES = {
    errors.NotFound: 404,
    errors.Conflict: 409,
    errors.Refused: 403,
    errors.Throttled: 429,
    errors.Unavailable: 503,
    errors.NoRoom: 507,
    errors.Unprocessable: 422,
    errors.InvalidValues: 422,
    errors.FileTooLarge: 400,
    errors.IncompleteBody: 400,
    errors.MalformedChunkedBody: 400,
}
RETRY_STATUSES = (429, 503)


def to_api_error(exc):
    """Map an exception from any layer onto our table."""
    if isinstance(exc, APIError):
        return exc
    if isinstance(exc, errors.DomainError):
        return from_domain_error(exc)
    if isinstance(exc, RateLimitExceeded):
        return TooManyRequests(headers={"Retry-After": str(_retry_after())})
    if isinstance(exc, CSRFError):  # double-submit CSRF (JWT_COOKIE_CSRF_PROTECT) failed
        return Forbidden()
    body_error = _body_error(exc)
    if body_error is not None:
        return body_error
    if isinstance(exc, wz.HTTPException):
        data = getattr(exc, "data", None) or {}
        headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
        headers.update(data.get("headers") or {})
        if exc.code in RETRY_STATUSES and "Retry-After" not in headers:  # the contract's
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


def from_domain_error(error):
    """The answer to a domain error, by :data:`DOMAIN_STATUSES` (None for a kind that has
    no status there: a bug, answered 500)."""
    status = next(
        (DOMAIN_STATUSES[kind] for kind in type(error).__mro__ if kind in DOMAIN_STATUSES), None
    )
    if status is None:
        return None
    if isinstance(error, errors.InvalidValues):
        return RequestValidationError(pydantic_errors(error.messages))
    headers = {}
    if status in RETRY_STATUSES:
        headers["Retry-After"] = str(getattr(error, "retry_after", 1))
    answer = APIError(detail=error.message, headers=headers)
    answer.code = status
    return answer


def _body_error(exc):
    """A request body that was too large, or cut off or malformed while being read (by
    werkzeug's stream, or by the server's readers, whose exceptions the server registers
    as domain errors). Whatever is left of the body is not read: the connection closes
    after the answer."""
    if isinstance(exc, wz.RequestEntityTooLarge):
        error = too_large_error()
    elif isinstance(exc, (wz.ClientDisconnected, ConnectionResetError)):
        error = errors.IncompleteBody()
    else:
        error = errors.domain_error(exc)
        if error is None:
            return None
    close_after_response()
    return to_api_error(error)


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
        log.error(
            "database unavailable on %s %s (request id %s): %s",
            request.method,
            request.path,
            current_request_id() or "-",
            exc,
        )
        _rollback()
        error = ServiceUnavailable()
    if error is None:
        log.exception(
            "unhandled error on %s %s (request id %s)",
            request.method,
            request.path,
            current_request_id() or "-",
        )
        _rollback()
        error = InternalServerError()
    return json_error_response(error)


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
