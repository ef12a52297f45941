"""The Flask application class, and every use of Flask's (and Werkzeug's) undocumented
behaviour, so that an upgrade shows here. ``tests/test_library_shapes.py`` fails when an
upgrade changes what this relies on; each use has a setting that turns it off:

* ``Flask.ensure_sync`` is overridden (a documented hook) to keep, per function, whether it
  is a coroutine function. It pays only because Flask calls ``ensure_sync`` for every hook
  and view of every request, which is not documented. Off: ``FLASK_COROUTINE_CACHE``.
* :func:`request_context` returns the current ``RequestContext`` through
  ``flask.globals.request_ctx``, for Flask-Limiter's per-request state
  (datahub.web.ratelimit). Off with the limiter's fast path: ``RATELIMIT_FAST_PATH``.
* :func:`body_stream_opened` tells whether a request's body stream was opened by looking
  for Werkzeug's ``Request.stream``, a ``cached_property``, in the request's ``__dict__``.
  Off: ``WERKZEUG_STREAM_CHECK`` (every body counts as possibly unread).

:class:`NoSessions` uses only the documented ``SessionInterface``.
"""
from inspect import iscoroutinefunction
from types import FunctionType, MethodType

import flask.globals
from flask import Flask, current_app
from flask.sessions import SessionInterface
from werkzeug.routing import RequestRedirect


class DataHub(Flask):
    """Flask, asking once per function whether it is a coroutine function.

    Flask asks it (``inspect.iscoroutinefunction``, about 1 µs) for every hook, view and
    decorator layer of every request, a dozen times on the hottest path (bench/README.rst).
    The answer for a function never changes, so it is kept; a bound method is answered by
    its function (as inspect does), so per-request view instances are not kept. Until
    :meth:`configure` turns it on (``FLASK_COROUTINE_CACHE``), Flask's own answer is used."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.coroutine_functions = None
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

    def configure(self):
        """Apply the settings of this module, once the configuration is loaded."""
        self.coroutine_functions = {} if self.config["FLASK_COROUTINE_CACHE"] else None

    def ensure_sync(self, func):
        cache = self.coroutine_functions
        target = func.__func__ if type(func) is MethodType else func
        if cache is None or type(target) is not FunctionType:
            return super().ensure_sync(func)
        try:
            is_coroutine = cache[target]
        except KeyError:
            is_coroutine = cache[target] = iscoroutinefunction(target)
        return self.async_to_sync(func) if is_coroutine else func


class NoSessions(SessionInterface):
    """The API keeps no Flask session: skip building a cookie signer on every request."""

    def open_session(self, app, request):
        return None  # Flask substitutes its NullSession

    def save_session(self, app, session, response):
        return None


# request_context(): the current request's RequestContext itself, not a proxy to it
# (LocalProxy's own function, called directly: this runs twice on every request). On a
# Flask without request_ctx this module still imports, so that the setting can turn off
# its one user.
try:
    request_context = flask.globals.request_ctx._get_current_object
except AttributeError:
    request_context = None


def body_stream_opened(request):
    """Whether anything opened ``request.stream`` (to read the body, or to fail at it).

    Werkzeug creates the stream on first access and keeps it in the request's ``__dict__``
    (a ``cached_property``). With ``WERKZEUG_STREAM_CHECK`` off the answer is always False:
    every body counts as possibly unread."""
    return current_app.config["WERKZEUG_STREAM_CHECK"] and "stream" in request.__dict__
