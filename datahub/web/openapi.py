"""The OpenAPI document's own parts: the error body, the top level (description, servers),
response headers, ``operation`` (what each view declares: its id, errors and the rest), and
two ways of documenting a field that generated clients read well. Public API of apispec and
flask-smorest only."""

from apispec import BasePlugin

from datahub.web.openapi_examples import RequestExamples
from datahub.web.validation import Schema, fields


class ValidationItemSchema(Schema):
    loc = fields.List(
        fields.Raw(),
        required=True,
        metadata={"description": "Where: body/query/path, then the field"},
    )
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


API_DESCRIPTION = """\
A data hub: datasets (described data with an optional file), collections of datasets,
pipelines that turn one dataset's file into another, and the users and sessions behind
them.

**Authentication.** `POST /api/v1/auth/login` answers an access token (a JWT, 30 minutes
by default) and sets the refresh token in an HttpOnly cookie (`Path=/api/v1/auth`,
`SameSite=Strict`, 7 days by default). Send the access token as
`Authorization: Bearer <token>`; renew it with `POST /api/v1/auth/refresh`, which needs
only the cookie. Keep the access token in memory only.

**Errors.** Every error answers JSON `{"detail": "<message>"}`; a 422 answers
`{"detail": [{"loc": [...], "msg": "...", "type": "..."}]}` (one item per problem, `loc`
starting with `body`, `query`, `path` or `header`). Retry only 500, 502, 503 and 504 (at
most 3 times, after 1, 2 then 4 seconds, or after `Retry-After` when the answer has one);
a 429 tells in `Retry-After` when to try again.

**Strings.** No JSON string may hold a NUL character (every string's `pattern` says so);
names, tags and filters refuse every control character, descriptions all but TAB, LF and
CR. Lengths are in characters except where a description says bytes (passwords: 8 to 72
bytes of UTF-8).

Every response carries `X-Request-ID`: the request's own when it sent a well-formed one,
else a new one. It names the request in the server's logs.
"""


class ResponsesInOrder(BasePlugin):
    """An apispec plugin: each operation's responses by status code, ``default`` last
    (views document them with several decorators, in no particular order)."""

    def operation_helper(self, path=None, operations=None, **kwargs):
        for operation in (operations or {}).values():
            responses = operation.get("responses")
            if isinstance(responses, dict):
                ordered = sorted(
                    responses.items(), key=lambda item: (str(item[0]) == "default", str(item[0]))
                )
                operation["responses"] = dict(ordered)


# The document's top level (flask-smorest's ``spec_kwargs``). ``servers`` is relative:
# the paths are absolute (``/api/v1/...``) on whichever host serves this document.
SPEC_KWARGS = {
    "info": {"description": API_DESCRIPTION},
    "extra_plugins": [ResponsesInOrder(), RequestExamples()],
    "servers": [{"url": "/", "description": "The server that serves this document"}],
}

# Response headers, as components (``Api.init_app`` registers them lazily: only those that
# a response names appear in the document). A response names one by its key.
HEADERS = {
    "Retry-After": {
        "description": "Seconds to wait before sending the request again",
        "schema": {"type": "integer", "minimum": 1},
    },
    "WWW-Authenticate": {"description": "`Bearer`", "schema": {"type": "string"}},
    "X-Request-ID": {
        "description": "The request's id: the client's own `X-Request-ID` "
        "when well-formed, else a new one; it names the request in the logs",
        "schema": {"type": "string"},
    },
    "Location": {
        "description": "The new resource's URL (a path on this server)",
        "schema": {"type": "string", "format": "uri-reference"},
    },
    "Content-Range": {
        "description": "`bytes */<size>`: the size of the whole file",
        "schema": {"type": "string"},
    },
}

ERROR_DESCRIPTIONS = {
    400: "Bad request: the body is not valid JSON (`Request body is not valid JSON`, or "
    "nested too deeply, or a number out of range)",
    401: "Not authenticated: no bearer token, or one that is invalid, expired or revoked "
    "(`Not authenticated`, `Invalid token`, `Token has expired`, `Token has been revoked`)",
    403: "Forbidden: the role or ownership does not allow this, or a personal access "
    "token's scopes do not (a `read` token only reads)",
    404: "Not found",
    409: "Conflict (for example `Name already exists`)",
    413: "Request body too large: over `MAX_JSON_BODY_BYTES` (1 MiB by default), refused "
    "before it is read",
    415: "Unsupported media type",
    416: "Range not satisfiable: `Content-Range` tells the file's size",
    422: "Validation error: `detail` is a list of {loc, msg, type}",
    429: "Too many requests: try again after `Retry-After` seconds",
    503: "Service unavailable (`Service unavailable`: the database cannot be reached); "
    "retry after `Retry-After` seconds",
    507: "Insufficient storage: no room for the file (the previous file stays)",
}
ERROR_HEADERS = {
    401: ("WWW-Authenticate",),
    416: ("Content-Range",),
    429: ("Retry-After",),
    503: ("Retry-After",),
}
JSON_BODY_ERRORS = (400, 413, 422)  # any operation that reads a JSON body


def error_response_object(code, description=None):
    """The OpenAPI Response Object of one error: the ``{"detail": ...}`` body and its
    headers."""
    headers = {name: name for name in (*ERROR_HEADERS.get(code, ()), "X-Request-ID")}
    return {
        "description": description or ERROR_DESCRIPTIONS[code],
        "content": {"application/json": {"schema": ErrorSchema}},
        "headers": headers,
    }


def operation(blp, operation_id, *errors, database=True, **doc):
    """Document a view's operation in one ``blp.doc`` (one wrapper around the view,
    whatever it documents): its ``operationId``, its error responses, and any other field
    of the Operation Object (``security``, ``responses``, ``requestBody``...). The summary
    and description are the view's docstring: a one-line summary, a blank line, then the
    description.

    ``errors`` are status codes, or ``(code, description)`` for an operation's own words.
    An operation that uses the database (``database``) can also answer 503 when it cannot
    be reached, unless ``errors`` name their own 503."""
    responses = {}
    for error in errors:
        code, description = error if isinstance(error, tuple) else (error, None)
        responses[code] = error_response_object(code, description)
    if database and 503 not in responses:
        responses[503] = error_response_object(503)
    responses.update(doc.pop("responses", {}))
    return blp.doc(operationId=operation_id, responses=responses, **doc)


def described(summary, description):
    """A view's docstring, which flask-smorest makes the operation's ``summary`` (the first
    line) and ``description`` (the rest): for a description that is one line of text, too
    long for a docstring's line."""

    def decorator(view):
        view.__doc__ = f"{summary}\n\n{description}"
        return view

    return decorator


# A field's metadata key: the name and schema of the component its values are (see
# ``named_enum``), read by ``named_schema_reference``.
NAMED_SCHEMA = "datahub_named_schema"


def named_enum(name, values, description):
    """Field metadata: the field's values are the enumeration ``name``, one component of
    the document, so that generated clients make one type of it rather than one per field
    that takes it."""
    return {
        NAMED_SCHEMA: (name, {"type": "string", "enum": list(values), "description": description})
    }


def named_schema_reference(self, field, ret, **_kwargs):
    """A marshmallow attribute function (apispec's ``add_attribute_function``): a field
    marked by ``named_enum`` refers to its component (registered on first use) instead
    of repeating its type and values."""
    named = field.metadata.get(NAMED_SCHEMA)
    if named is None:
        return {}
    name, schema = named
    if name not in self.spec.components.schemas:
        self.spec.components.schema(name, schema)
    for key in ("type", "enum"):
        ret.pop(key, None)
    reference = {"$ref": f"#/components/schemas/{name}"}
    # Beside a $ref nothing counts in OpenAPI 3.0: a description or default needs allOf.
    return {"allOf": [reference]} if ret else reference


def nullable_reference(self, field, ret, **_kwargs):
    """A marshmallow attribute function (apispec's ``add_attribute_function``): a nullable
    nested schema as OpenAPI 3.0 says it, ``allOf: [{$ref}]`` with ``nullable: true``,
    instead of apispec's ``anyOf`` with an untyped object, which generated clients turn
    into a model of its own."""
    any_of = ret.get("anyOf")
    if not (field.allow_none and isinstance(any_of, list)):
        return {}
    references = [each for each in any_of if "$ref" in each]
    if len(references) != 1 or len(any_of) != 2:
        return {}
    del ret["anyOf"]
    return {"allOf": references, "nullable": True}


BEARER = [{"bearerAuth": []}]
REFRESH_COOKIE = [{"refreshCookie": []}]
