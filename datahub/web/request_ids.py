"""Request ids: one per request, in the logs, the audit log and the response."""

import random
import re

from flask import has_request_context, request

REQUEST_ID_KEY = "datahub.request_id"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def new_request_id():
    """32 hex digits. A request id only has to be unique, not secret: ``random`` (which
    re-seeds itself in each forked worker) spares a getrandom() call per request."""
    return f"{random.getrandbits(128):032x}"


def current_request_id():
    """This request's id (see ``RequestIds``); None outside a request."""
    return request.environ.get(REQUEST_ID_KEY) if has_request_context() else None


def audit_origin():
    """Where an audit event comes from (datahub.platform.audit): the client's address and
    this request's id; None outside a request."""
    if not has_request_context():
        return None
    return {"client_address": request.remote_addr, "request_id": current_request_id()}


class RequestIds:
    """WSGI middleware: every request gets an id, the client's ``X-Request-ID`` when it is
    well-formed (nginx passes its own) or a new one, for the logs and the audit log; every
    response carries it in ``X-Request-ID``, and ``X-Content-Type-Options: nosniff``.
    At the WSGI level this costs a fraction of a pair of Flask hooks (bench/README.rst)."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        incoming = environ.get("HTTP_X_REQUEST_ID")
        request_id = incoming if incoming and _REQUEST_ID.match(incoming) else new_request_id()
        environ[REQUEST_ID_KEY] = request_id

        def start_with_headers(status, headers, exc_info=None):
            headers.append(("X-Request-ID", request_id))
            headers.append(("X-Content-Type-Options", "nosniff"))
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start_with_headers)
