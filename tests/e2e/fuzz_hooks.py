"""schemathesis hooks (loaded through SCHEMATHESIS_HOOKS).

* A fresh login for every generated request (bearer token and refresh cookie), so a
  fuzzed logout cannot end the session the next request needs. The cookie is set on the
  case itself: Python's cookie jar would not send a Secure cookie over plain http.
* The fuzzer may change the fuzzing admin's own password, roles or active flag (it is an
  admin: PATCH /users/{id} and PUT /auth/me/password are its to call). When the login
  fails, the admin is restored directly in the database before logging in again.
* Two rules JSON Schema cannot state are taught to the run: passwords are 8 to 72 *bytes*
  (the document's ``minLength`` is 2 characters, two emoji),
  and the current password must be the right one.
* A preview answers 422 ``Dataset file is not tabular`` for what the dataset's file holds,
  whatever the request: the fuzzer uploads any bytes. A download answers those bytes with
  the media type they came with, which need not decode as that type.
"""

import json
import os
import urllib.error
import urllib.request

import schemathesis


def _content_types(case):
    """The media types a case was sent as, lower-cased (its body's and its header's)."""
    sent = [case.media_type or ""] + [
        value for name, value in (case.headers or {}).items() if name.lower() == "content-type"
    ]
    return {value.split(";")[0].strip().lower() for value in sent}


PASSWORD_FIELDS = ("password", "new_password")
PREVIEWS = (
    "/api/v1/datasets/{dataset_id}/preview",
    "/api/v1/datasets/{dataset_id}/versions/{version}/preview",
    "/api/v1/datasets/{dataset_id}/columns",  # read as a preview reads them
)
FILE = "/api/v1/datasets/{dataset_id}/file"
FILES = (FILE, "/api/v1/datasets/{dataset_id}/versions/{version}/file")
DIFF = "/api/v1/datasets/{dataset_id}/diff"
# A pipeline's preview answers 422 with a sentence (not a list of validation errors) for
# what the source's data makes of the steps: a column that is not there, a value a cast
# cannot take, a file that is not a table, a preview too large or too slow.
PIPELINE_PREVIEW = "/api/v1/pipelines/preview"
# A console query answers 422 with a sentence for what its text names or does (``Dataset
# not found: <name>``, ``Query failed: ...``): a schema-valid query of datasets that are not
# there, or not the caller's to read.
QUERY = "/api/v1/query/"
# A diff's answers to schema-valid data about what the versions hold (no schema knows
# their columns or contents).
DIFF_ANSWERS = ("Dataset file is not tabular", "Key column", "Key values repeat", "Key columns")


def _login():
    body = json.dumps(
        {"email": os.environ["FUZZ_EMAIL"], "password": os.environ["FUZZ_PASSWORD"]}
    ).encode()
    request = urllib.request.Request(
        os.environ["FUZZ_BASE_URL"] + "/api/v1/auth/login",
        data=body,
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        name, _, rest = response.headers["Set-Cookie"].partition("=")
        return json.load(response)["access_token"], name, rest.split(";", 1)[0]


def _restore_admin():
    from datahub import create_app
    from datahub.identity.users import services

    app = create_app()  # same DATAHUB_* environment as the server
    with app.app_context():
        user = services.get_by_email(os.environ["FUZZ_EMAIL"])
        services.set_active(user, True)
        services.set_roles(user, ["admin"])
        services.set_password(user, os.environ["FUZZ_PASSWORD"])


@schemathesis.auth(refresh_interval=None)
class FreshLogin:
    def get(self, case, context):
        try:
            return _login()
        except urllib.error.HTTPError as error:
            if error.code != 401:
                raise
        _restore_admin()
        return _login()

    def set(self, case, data, context):
        token, cookie_name, cookie_value = data
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {token}"
        case.cookies = case.cookies or {}
        case.cookies[cookie_name] = cookie_value


def _nul_in_a_key(value):
    """Whether an object of ``value``, at any depth, has a key with a NUL character."""
    if isinstance(value, dict):
        return any("\x00" in key or _nul_in_a_key(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_nul_in_a_key(item) for item in value)
    return False


@schemathesis.hook
def filter_body(context, body):
    """Passwords are 8 to 72 bytes (bcrypt). JSON Schema can only say 72 characters, so a
    72-character password of multi-byte characters is "valid" to the generator and
    rightly refused by the service: such bodies are not generated.

    No JSON string may hold NUL, keys included (a rename step's ``mapping``): OpenAPI 3.0
    has no ``propertyNames`` to say so of keys, so a body with NUL in a key is "valid" to
    the generator and rightly refused with 422 ``value_error.str.nul``: not generated."""
    if _nul_in_a_key(body):
        return False
    if not isinstance(body, dict):
        return True
    return not any(
        isinstance(body.get(field), str) and len(body[field].encode("utf-8")) > 72
        for field in PASSWORD_FIELDS
    )


def _content_types(case):
    """The media types a case was sent as, lower-cased (its body's and its header's)."""
    sent = [case.media_type or ""] + [
        value for name, value in (case.headers or {}).items() if name.lower() == "content-type"
    ]
    return {value.split(";")[0].strip().lower() for value in sent}


PASSWORD_FIELDS = ("password", "new_password")


def _password_under_eight_bytes(body):
    """A password's bounds are bytes (``x-minBytes`` 8, ``x-maxBytes`` 72). ``minLength``
    is 2, the fewest characters that can make 8 bytes (two emoji), so that no validating
    client refuses what the service accepts; schemathesis reads only the character
    count and calls, say, "abc" valid, which the service rightly refuses with 422."""
    if not isinstance(body, dict):
        return False
    return any(
        isinstance(body.get(name), str) and len(body[name].encode("utf-8", "surrogatepass")) < 8
        for name in PASSWORD_FIELDS
    )


# A 422 whose every error is of these types, on operations under these paths: what the
# request names does not parse, exist or resolve (see filter_failure).
CONTRACT_422_TYPES = {
    "/api/v1/pipelines": {
        "value_error.sql",
        "value_error.dataset_not_found",
        "value_error.version_not_found",
        "value_error.trigger",
    },
    "/api/v1/webhooks": {"value_error.url.refused"},
    # A console query whose text is not one SELECT (no schema knows SQL).
    "/api/v1/query": {"value_error.sql"},
    "/api/v1/datasets/{dataset_id}/grants": {"value_error.principal_not_found"},
    "/api/v1/collections/{collection_id}/grants": {"value_error.principal_not_found"},
    "/api/v1/pipelines/{pipeline_id}/grants": {"value_error.principal_not_found"},
    # A check's query, pattern or duration that does not parse, bounds it lacks (one of
    # two), or a name given twice.
    "/api/v1/datasets/{dataset_id}/checks": {
        "value_error.sql",
        "value_error.regex",
        "value_error.duration",
        "value_error.bounds",
        "value_error.unique",
    },
    # Columns the current version has (no schema knows a file's columns), of a file.
    "/api/v1/datasets/{dataset_id}/columns": {
        "value_error.unknown_column",
        "value_error.no_columns",
    },
}


def _error_types(response):
    """The ``type`` of each error of a 422's ``detail``, or None when it has none."""
    try:
        return {item["type"] for item in json.loads(response.content)["detail"]}
    except (ValueError, KeyError, TypeError):
        return None


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """A schema-valid password change with the wrong current password is refused with 422
    at ["body", "current_password"], and the preview of a file that is not a table with 422
    ``Dataset file is not tabular`` (of a dataset or of a version), a grant to a user or
    group that does not exist, a webhook URL that is not https or does not resolve to a
    public address (``value_error.url.refused``), a diff's 422 about
    what the versions hold (not tables, or a key that is not a unique column of both),
    and a pipeline preview's 422 sentence about what the source's data makes of the steps:
    that is the contract, not a failure. So is a 422 whose
    every error is a sql step's query refused by DuckDB's parser (``value_error.sql``), a
    trigger's cron expression or time zone that croniter or the time zone database does
    not know (``value_error.trigger``), a join naming a dataset that does not exist, or a
    pinned version that its dataset does not have: no JSON Schema says what parses or what
    exists.

    A password within ``minLength`` in characters but under 8 bytes is schema-valid and
    rightly refused (``_password_under_eight_bytes``).

    An upload sent form-encoded is refused with 415 before it is read (its bytes are not
    the file's: ``curl -d`` drops line breaks), as the operation documents; the body's
    ``*/*`` cannot exclude that one media type.

    A downloaded file (200 or 206) is whatever bytes were uploaded, sent with the media
    type they were uploaded with: schemathesis would decode a text, JSON, YAML or XML type
    and report bytes that are not (ST110). Its schema is any bytes (``format: binary``).

    A request line over gunicorn's 4094 bytes (a query of many generated values) is
    refused with 414 ``Request line too long`` before the app reads it, for every
    operation (docs/reference/http.rst): a rejection, though not one ST201 expects; so is
    a body over the JSON limit, 413 ``Request body too large``, before it is parsed."""
    if (
        type(failure).__name__ == "AcceptedNegativeData"
        and response.status_code == 414
        and response.content.strip() == b'{"detail": "Request line too long"}'
    ):
        return False
    if (
        type(failure).__name__ == "AcceptedNegativeData"
        and response.status_code == 413
        and json.loads(response.content) == {"detail": "Request body too large"}
    ):
        return False  # past MAX_JSON_BODY_BYTES (1,000 long descriptions): refused unread
    if (
        case.operation.path in FILES
        and case.method.upper() == "GET"
        and response.status_code in (200, 206)
        and type(failure).__name__ == "ContentDeserializationError"
    ):
        return False
    if (
        type(failure).__name__ == "RejectedPositiveData"
        and response.status_code == 422
        and _password_under_eight_bytes(case.body)
    ):
        return False
    if (
        case.operation.path == FILE
        and case.method.upper() == "PUT"
        and response.status_code == 415
        and "application/x-www-form-urlencoded" in _content_types(case)
    ):
        return False
    if response.status_code == 422:
        kinds = _error_types(response)
        for prefix, answers in CONTRACT_422_TYPES.items():
            if case.operation.path.startswith(prefix) and kinds and kinds <= answers:
                return False
    if case.operation.path in (PIPELINE_PREVIEW, QUERY) and response.status_code == 422:
        try:
            return not isinstance(json.loads(response.content)["detail"], str)
        except (ValueError, KeyError, TypeError):
            return True
    if case.operation.path in PREVIEWS and response.status_code == 422:
        try:
            return json.loads(response.content)["detail"] != "Dataset file is not tabular"
        except (ValueError, KeyError, TypeError):
            return True
    if case.operation.path == DIFF and response.status_code == 422:
        try:
            return not json.loads(response.content)["detail"].startswith(DIFF_ANSWERS)
        except (ValueError, KeyError, TypeError, AttributeError):
            return True
    if case.operation.path != "/api/v1/auth/me/password" or response.status_code != 422:
        return True
    try:
        locs = [item["loc"] for item in json.loads(response.content)["detail"]]
    except (ValueError, KeyError, TypeError):
        return True
    return locs != [["body", "current_password"]]
