"""flask-smorest glue: a request parser that raises our errors, the error schemas for
the OpenAPI document, and the security schemes."""
import flask_smorest
from marshmallow import Schema, fields
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from datahub.errors import MalformedBody, RequestValidationError
from datahub.validation import pydantic_errors


class Parser(FlaskParser):
    """webargs' Flask parser, but a non-JSON body is a 400 and a bad value a 422 in the
    pydantic-v1 shape, raised as our exceptions."""

    def _raw_load_json(self, req):
        data = req.get_data(cache=True)
        if not is_json_request(req):
            if data:
                raise MalformedBody("Request body must be JSON (Content-Type: application/json)")
            return core.missing
        try:
            parsed = core.parse_json(data)
        except RecursionError as exc:  # nested deeper than the interpreter's stack
            raise MalformedBody() from exc
        errors = list(_unstorable_strings(parsed, ["body"]))
        if errors:
            raise RequestValidationError(errors)
        return parsed

    def _handle_invalid_json_error(self, error, req, *args, **kwargs):
        raise MalformedBody()

    def handle_error(self, error, req, schema, *, error_status_code, error_headers):
        raise RequestValidationError(pydantic_errors(error.messages, location=None))


def _unstorable_strings(value, loc):
    """Valid JSON that no database, filesystem or bcrypt accepts: NUL characters and
    lone surrogates ("\\ud800") inside strings, keys included."""
    if isinstance(value, str):
        if "\x00" in value:
            yield {"loc": loc, "msg": "string contains a NUL character", "type": "value_error.str.nul"}
        else:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                yield {"loc": loc, "msg": "string contains a lone surrogate",
                       "type": "value_error.str.surrogate"}
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _unstorable_strings(key, loc + [key])
            yield from _unstorable_strings(item, loc + [key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unstorable_strings(item, loc + [index])


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = Parser()


class ValidationItemSchema(Schema):
    loc = fields.List(fields.Raw(), required=True,
                      metadata={"description": "Where: body/query/path, then the field"})
    msg = fields.String(required=True)
    type = fields.String(required=True)


class ErrorSchema(Schema):
    """Every error body: ``{"detail": "..."}``; 422s carry a list of ValidationItem."""

    detail = fields.Raw(
        required=True,
        metadata={
            "description": "A message, or for 422 a list of {loc, msg, type}",
            "oneOf": [
                {"type": "string"},
                {"type": "array", "items": {"$ref": "#/components/schemas/ValidationItem"}},
            ],
        },
    )


class MessageSchema(Schema):
    message = fields.String(required=True)


class Api(flask_smorest.Api):
    ERROR_SCHEMA = ErrorSchema

    def _register_error_handlers(self):
        """Our handlers (datahub.errors) answer every error; smorest's would use its shape."""

    def init_app(self, app, *args, **kwargs):
        super().init_app(app, *args, **kwargs)
        self.spec.components.schema("ValidationItem", schema=ValidationItemSchema)
        self.spec.components.security_scheme(
            "bearerAuth", {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
        )
        self.spec.components.security_scheme(
            "refreshCookie",
            {
                "type": "apiKey",
                "in": "cookie",
                "name": app.config["JWT_REFRESH_COOKIE_NAME"],
                "description": "HttpOnly refresh token cookie set by login, "
                "Path=/api/v1/auth, SameSite=Strict",
            },
        )


BEARER = [{"bearerAuth": []}]
REFRESH_COOKIE = [{"refreshCookie": []}]
