"""The Flask application class, and the one use of Flask's undocumented behaviour, so
that an upgrade shows here (``tests/test_library_shapes.py`` fails when it changes):
:func:`request_context` returns the current ``RequestContext`` through
``flask.globals.request_ctx``, for Flask-Limiter's per-request state
(datahub.web.ratelimit). Off with the limiter's fast path: ``RATELIMIT_FAST_PATH``.
On a Flask that has no ``request_ctx``, or deprecates it (Flask 3.2 merges the request
context into the app context), :data:`request_context` is None and the limiter keeps to
its public API, whatever the setting says.

:class:`NoSessions` uses only the documented ``SessionInterface``.
"""

import warnings

import flask.globals
from flask import Flask
from flask.sessions import SessionInterface
from werkzeug.routing import RequestRedirect


class DataHub(Flask):
    """Flask, with routing redirects and empty path segments answered as the API does."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Werkzeug would answer a path with an empty segment (``/datasets//file``) with a
        # redirect to the path without it, another resource: it is a 404 instead.
        self.url_map.merge_slashes = False

    def raise_routing_exception(self, request):
        """A routing redirect (``/app`` to ``/app/``) goes through the error handlers like
        any other answer, instead of Flask returning it as Werkzeug's HTML page: a
        ``{"detail": ...}`` body with its ``Location``."""
        exc = request.routing_exception
        if isinstance(exc, RequestRedirect):  # always a 308
            from datahub.web.errors import PermanentRedirect

            raise PermanentRedirect(exc.new_url) from None
        super().raise_routing_exception(request)


class NoSessions(SessionInterface):
    """The API keeps no Flask session: skip building a cookie signer on every request."""

    def open_session(self, app, request):
        return None  # Flask substitutes its NullSession

    def save_session(self, app, session, response):
        return None


def _request_context():
    """The current request's RequestContext itself, not a proxy to it (LocalProxy's own
    function, called directly: this runs twice on every request); None where Flask has no
    ``request_ctx`` or warns that it is deprecated."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            return flask.globals.request_ctx._get_current_object
        except (AttributeError, DeprecationWarning):
            return None


request_context = _request_context()
