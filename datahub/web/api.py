"""flask-smorest glue: a request parser that raises our errors, the path converters, the
Blueprint and the Api (the document's parts are in datahub.web.openapi). Public API of
flask-smorest and webargs, and one reliance on how smorest uses it: the deferred document
(:class:`DeferredSpec`, ``OPENAPI_DEFERRED``; ``tests/test_library_shapes.py``)."""

import re
import threading

import flask_smorest
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import current_app, request
from webargs.flaskparser import FlaskParser
from werkzeug.routing import BaseConverter

from datahub.web.bodies import NO_BODY, json_body
from datahub.web.errors import RequestValidationError
from datahub.web.openapi import (
    HEADERS,
    SPEC_KWARGS,
    ErrorSchema,
    ValidationItemSchema,
    named_schema_reference,
    nullable_reference,
)
from datahub.web.validation import (
    CONTROL_MESSAGE,
    NO_CONTROL_PATTERN,
    has_control_character,
    pydantic_errors,
)


class Parser(FlaskParser):
    """webargs' Flask parser, but a non-JSON body is a 400 and a bad value a 422 in the
    pydantic-v1 shape, raised as our exceptions."""

    def load_json(self, req, schema):
        """The body as :func:`datahub.web.bodies.json_body` parsed it (bounded, parsed once).
        No body at all where a JSON body is required: one 422 for the body itself, as
        FastAPI says it, rather than one per field."""
        parsed = json_body()
        if parsed is NO_BODY:
            raise RequestValidationError.single(["body"], "field required", "value_error.missing")
        errors = list(_unstorable_strings(parsed, ["body"]))
        if errors:
            raise RequestValidationError(errors)
        return parsed

    def handle_error(self, error, req, schema, *, error_status_code, error_headers):
        raise RequestValidationError(pydantic_errors(error.messages, location=None))


def _unstorable_strings(value, loc):
    """Valid JSON that no database, filesystem or bcrypt accepts: NUL characters and
    lone surrogates ("\\ud800") inside strings, keys included."""
    if isinstance(value, str):
        if "\x00" in value:
            yield {
                "loc": loc,
                "msg": "string contains a NUL character",
                "type": "value_error.str.nul",
            }
        else:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                yield {
                    "loc": loc,
                    "msg": "string contains a lone surrogate",
                    "type": "value_error.str.surrogate",
                }
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _unstorable_strings(key, loc + [key])
            yield from _unstorable_strings(item, loc + [key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unstorable_strings(item, loc + [index])


# Any integer is an integer (a huge one names nothing: 404); the bound only keeps int()
# under Python's 4300-digit conversion limit.
_INTEGER = re.compile(r"[+-]?[0-9]{1,4000}")


class InvalidId(str):
    """A path segment that the ``id`` converter could not read as an integer."""


class IdConverter(BaseConverter):
    """``<id:dataset_id>``: matches any segment and hands the view an ``int``.

    werkzeug's ``int`` converter would not match ``abc`` and the request would be a 404;
    the design wants a 422 naming the parameter. The converter cannot know the name, so
    it passes an :class:`InvalidId` through and :func:`reject_invalid_ids` turns it into
    the 422 once the view arguments are known.

    ``<id(besides="preview"):pipeline_id>`` does not match the segment ``preview``, which
    a sibling rule has for some methods: ``GET .../preview`` is then that rule's 405 with
    its ``Allow``, not this rule's 422 (Werkzeug tries every rule that matches the path
    when the method does not).
    """

    regex = "[^/]+"
    part_isolating = True

    def __init__(self, url_map, besides=None):
        super().__init__(url_map)
        if besides is not None:
            self.regex = f"(?!{re.escape(besides)}\\Z)[^/]+"

    def to_python(self, value):
        if _INTEGER.fullmatch(value):
            return int(value)
        return InvalidId(value)

    def to_url(self, value):
        return str(int(value))


def idconverter2paramschema(_converter):
    return {"type": "integer"}


class InvalidText(str):
    """A path segment with a control character, seen by the ``text`` converter."""


class TextConverter(BaseConverter):
    """``<text:user_id>``: any segment; one with a control character (category Cc) becomes
    an :class:`InvalidText`, a 422 in :func:`reject_invalid_ids` (not a value that reaches
    the database: PostgreSQL cannot even compare a string holding NUL)."""

    regex = "[^/]+"
    part_isolating = True

    def to_python(self, value):
        return InvalidText(value) if has_control_character(value) else value


def textconverter2paramschema(_converter):
    return {"type": "string", "pattern": NO_CONTROL_PATTERN}


def reject_invalid_ids():
    """422 ``["path", name]`` for every ``<id:...>`` segment that is not an integer and
    every ``<text:...>`` segment with a control character. A view that checks the bearer
    itself (``bearer_guard``, see datahub.identity.guard) still answers 401 first."""
    errors = []
    for name, value in (request.view_args or {}).items():
        if isinstance(value, InvalidId):
            errors.append(
                {
                    "loc": ["path", name],
                    "msg": "value is not a valid integer",
                    "type": "type_error.integer",
                }
            )
        elif isinstance(value, InvalidText):
            errors.append(
                {"loc": ["path", name], "msg": CONTROL_MESSAGE, "type": "value_error.str.control"}
            )
    if errors:
        guard = _view_guard()
        if guard is not None:
            guard()
        raise RequestValidationError(errors)


def _view_guard():
    """The check a view's decorator put on it (``view.bearer_guard``), if any."""
    view = current_app.view_functions.get(request.endpoint)
    view = getattr(getattr(view, "view_class", None), request.method.lower(), view)
    return getattr(view, "bearer_guard", None)


class DeferredSpec:
    """An app's OpenAPI document (apispec's ``APISpec``), whose paths are added when the
    document is first read rather than when the app is made.

    Documenting a blueprint's views resolves every schema of every operation: two thirds of
    ``create_app``'s time (0.08 of 0.12 CPU-s), paid by every gunicorn worker and every test
    for a document that only ``/api/v1/openapi.json``, ``flask openapi`` and the docs read
    (docs/contributing/internals.rst). The views are queued in the order they were
    registered and documented by the first ``to_dict`` or ``to_yaml``: the document is the
    same, key order included. Everything else goes to the ``APISpec`` at once. Relies on
    smorest documenting a blueprint through ``Blueprint.register_views_in_doc`` and
    serving ``Api.spec``'s ``to_dict()``; ``OPENAPI_DEFERRED=false`` documents at start."""

    def __init__(self, spec):
        self._spec = spec
        self._queued = []
        self._lock = threading.Lock()

    def later(self, document):
        """Call ``document(spec)`` before the document is next read."""
        self._queued.append(document)

    def complete(self):
        """The ``APISpec``, with everything queued done (once, whoever asks first). One
        that fails stays queued: the document is never served with its paths missing."""
        with self._lock:
            while self._queued:
                self._queued[0](self._spec)
                self._queued.pop(0)
        return self._spec

    def to_dict(self):
        return self.complete().to_dict()

    def to_yaml(self, *args, **kwargs):
        return self.complete().to_yaml(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._spec, name)


_CHECKED_PARAMETER = re.compile(r"<(?:id|text)[:(]")  # a rule's <id:...>, <id(...):...>, <text:...>


class Blueprint(flask_smorest.Blueprint):
    """smorest's Blueprint with our parser. ``guard``, a function that raises for a request
    it refuses, runs before anything else (so a 401 comes before a 404 or a 422); a
    blueprint with ``<id:...>`` path parameters checks them (one without pays nothing)."""

    ARGUMENTS_PARSER = Parser()

    def __init__(self, *args, guard=None, **kwargs):
        super().__init__(*args, **kwargs)
        if guard is not None:
            self.before_request(guard)

    def add_url_rule(self, rule, *args, **kwargs):
        checks = self.before_request_funcs.get(None, [])
        if _CHECKED_PARAMETER.search(rule) and reject_invalid_ids not in checks:
            self.before_request(reject_invalid_ids)
        super().add_url_rule(rule, *args, **kwargs)

    def register_views_in_doc(self, api, app, spec, *, name, parameters):
        """Queued on the app's :class:`DeferredSpec` (done when the document is read), or
        done now with ``OPENAPI_DEFERRED`` off."""
        document = super().register_views_in_doc
        spec.later(lambda real: document(api, app, real, name=name, parameters=parameters))
        if not app.config["OPENAPI_DEFERRED"]:
            spec.complete()


class Api(flask_smorest.Api):
    """smorest's Api with our error schema, path converters, top-level document, response
    headers and security schemes. Errors are answered by our handlers
    (datahub.web.error_handlers), registered after smorest's."""

    ERROR_SCHEMA = ErrorSchema
    DEFAULT_ERROR_RESPONSE_NAME = "UnexpectedError"

    def __init__(self, *args, spec_kwargs=None, **kwargs):
        self._spec = None
        super().__init__(*args, spec_kwargs={**SPEC_KWARGS, **(spec_kwargs or {})}, **kwargs)
        # Before any init_app: each app's spec is then built with them.
        self.register_converter(IdConverter, idconverter2paramschema)
        self.register_converter(TextConverter, textconverter2paramschema)

    # smorest sets ``spec`` when it makes an app's document and reads it to serve it.
    @property
    def spec(self):
        return self._spec

    @spec.setter
    def spec(self, spec):
        self._spec = None if spec is None else DeferredSpec(spec)

    def init_app(self, app, *args, spec_kwargs=None, **kwargs):
        app.url_map.converters["id"] = IdConverter
        app.url_map.converters["text"] = TextConverter
        # A marshmallow plugin of our own for each app's spec, with two more ways of
        # documenting a field (apispec's documented add_attribute_function).
        marshmallow_plugin = MarshmallowPlugin()
        super().init_app(
            app,
            *args,
            spec_kwargs={"marshmallow_plugin": marshmallow_plugin, **(spec_kwargs or {})},
            **kwargs,
        )
        marshmallow_plugin.converter.add_attribute_function(nullable_reference)
        marshmallow_plugin.converter.add_attribute_function(named_schema_reference)
        spec = self.spec
        spec.components.schema("ValidationItem", schema=ValidationItemSchema)
        spec.components.response(
            self.DEFAULT_ERROR_RESPONSE_NAME,
            {
                "description": "Any other error (500 `Internal server error`, 405 with `Allow`...), "
                "in the same JSON shape",
                "content": {"application/json": {"schema": ErrorSchema}},
                "headers": {"X-Request-ID": "X-Request-ID"},
            },
        )
        for name, header in HEADERS.items():
            spec.components.header(name, header, lazy=True)
        # smorest documents a pagination header of its own, which no view here sends.
        spec.components.schemas.pop("PaginationMetadata", None)
        spec.components.security_scheme(
            "bearerAuth",
            {
                "type": "http",
                "scheme": "bearer",
                "bearerFormat": "JWT",
                "description": "The access token of login or refresh",
            },
        )
        spec.components.security_scheme(
            "refreshCookie",
            {
                "type": "apiKey",
                "in": "cookie",
                "name": app.config["JWT_REFRESH_COOKIE_NAME"],
                "description": "HttpOnly refresh token cookie set by login, "
                "Path=/api/v1/auth, SameSite=Strict",
            },
        )
