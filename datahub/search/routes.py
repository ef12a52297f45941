"""/api/v1/search: find datasets, collections and pipelines; suggestions as one types."""

from flask.views import MethodView

from datahub.identity import permissions
from datahub.identity.guard import authenticate, current_user
from datahub.search import schemas, services
from datahub.web.api import Blueprint
from datahub.web.openapi import BEARER, described, operation

blp = Blueprint(
    "search",
    __name__,
    url_prefix="/api/v1/search",
    guard=authenticate,
    description="Search: datasets, collections and pipelines by their names, documentation, "
    "columns and values",
)


@blp.route("/", strict_slashes=False, endpoint="Search")
class Search(MethodView):
    @operation(blp, "search", 401, 403, 422, security=BEARER)
    @blp.arguments(schemas.SearchArgsSchema, location="query")
    @blp.response(200, schemas.SearchPageSchema)
    @described(
        "Search",
        "Datasets, collections and pipelines the caller may read that match `q`, best "
        "first: by name, then tags and column names, then description, README and column "
        "descriptions, then the values in the current version's columns. Each result says "
        "what matched (`highlights`, `matched_columns`); `facets` count the matches by "
        "type, tag, owner, format and visibility. Without `q`: everything the caller may "
        "read, newest first.",
    )
    def get(self, args):
        permissions.require_read(current_user)
        return services.search(args, current_user)


@blp.route("/suggest", endpoint="SearchSuggest")
class SearchSuggest(MethodView):
    @operation(blp, "search_suggest", 401, 403, 422, security=BEARER)
    @blp.arguments(schemas.SuggestArgsSchema, location="query")
    @blp.response(200, schemas.SuggestionsSchema)
    @described(
        "Suggest as one types",
        "Up to ten names of datasets, collections and pipelines, tags and column names "
        "that contain `q` (those that start with it first), of what the caller may read.",
    )
    def get(self, args):
        permissions.require_read(current_user)
        return {"items": services.suggest(args["q"], current_user)}
