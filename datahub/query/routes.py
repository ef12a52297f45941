"""/api/v1/query: the SQL console."""

from flask import current_app, request, send_file
from flask.views import MethodView

from datahub.datasets.openapi import STORAGE_UNAVAILABLE
from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.platform.serving.streams import client_gone
from datahub.query import schemas, services
from datahub.web.api import Blueprint
from datahub.web.openapi import BEARER, JSON_BODY_ERRORS, described, operation

blp = Blueprint(
    "query",
    __name__,
    url_prefix="/api/v1/query",
    guard=authenticate,
    description="The SQL console: one read-only SELECT over the datasets the caller may read",
)

_FILE = {"schema": {"type": "string", "format": "binary"}}
RESULT_FILES = {
    200: {
        "content": {
            "text/csv": _FILE,
            "application/vnd.apache.parquet": _FILE,
            "application/x-ndjson": _FILE,
        },
        "headers": {
            "Content-Disposition": {
                "description": '`attachment; filename="query.csv"` (`.parquet`, `.jsonl`)',
                "schema": {"type": "string"},
            }
        },
    }
}


@blp.route("/", strict_slashes=False, endpoint="Query")
class Query(MethodView):
    @operation(
        blp,
        "query",
        *JSON_BODY_ERRORS,
        401,
        403,
        (
            422,
            "Validation error (`sql` is not one SELECT, `limit`, `pins`); `Dataset not "
            "found: <name>` (no dataset of that name the caller may read), `Version not "
            "found: <name>@<n>`, `Dataset has no file: <name>`, `Query failed: <DuckDB's "
            "words>`, `Query timed out`, `Query ran out of memory` or `Query result is too "
            "large`",
        ),
        (429, "`Too many queries at once`: the caller's QUERY_USER_CONCURRENCY are running"),
        STORAGE_UNAVAILABLE,
        security=BEARER,
        responses=RESULT_FILES,
    )
    @blp.arguments(schemas.QueryArgsSchema, location="query")
    @blp.arguments(schemas.QuerySchema)
    @blp.response(200, schemas.QueryResultSchema)
    @described(
        "Run a query",
        "One read-only SELECT over the datasets the caller may read, each by name at its "
        'current version or pinned (`"Sales@3"`, or `pins`), in a process of its own '
        "within QUERY_TIMEOUT_SECONDS and the pipelines' memory limit. Answers the first "
        "`limit` rows with the versions read (`inputs`), or with `format` the whole result "
        "as a file. Files, settings, the environment, extensions and other databases "
        "cannot be read. A personal access token with the `read` scope alone may call it: "
        "it changes nothing. Closing the connection stops the query.",
    )
    def post(self, args, values):
        permissions.require_read(current_user)
        environ = request.environ
        answer = services.run_query(
            values,
            current_user,
            current_app.config,
            fmt=args.get("format"),
            cancelled=lambda: client_gone(environ),
        )
        if args.get("format") is None:
            return answer
        response = send_file(
            answer.path,
            mimetype=answer.content_type,
            as_attachment=True,
            download_name=answer.download_name,
            conditional=False,
            etag=False,
            max_age=0,
        )
        response.call_on_close(answer.remove)
        return response
