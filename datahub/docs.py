"""Where things are: ``GET /`` and ``GET /api/v1/`` answer JSON links to the API docs, the
OpenAPI document and the SPA; the docs page's Swagger UI files come from the installed,
pinned ``swagger-ui-bundle`` package (no CDN: the page works offline)."""

import functools
from importlib.metadata import PackageNotFoundError, version

from flask import Blueprint, send_from_directory, url_for
from swagger_ui_bundle import swagger_ui_path

blp = Blueprint("docs", __name__)

# flask-smorest's docs page loads ``<OPENAPI_SWAGGER_UI_URL>swagger-ui-bundle.js``; this
# relative URL resolves against the page (``/api/v1/docs``) to the route below, under
# whatever prefix the service is mounted at. The page is also served at ``/api/v1/docs/``
# (see ``serve_docs_with_slash``), where the same URL resolves one level deeper.
SWAGGER_UI_URL = "docs/assets/"


@functools.cache  # the installed version does not change while the process runs
def _version():
    try:
        return version("datahub")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return None


def links():
    return {
        "name": "datahub",
        "version": _version(),
        "links": {
            "api": url_for("docs.api_root"),
            "docs": url_for("api-docs.openapi_swagger_ui"),
            "openapi": url_for("api-docs.openapi_json"),
            "app": url_for("spa.app_file"),
            "health": url_for("ops.healthz"),
        },
    }


def serve_docs_with_slash(app):
    """``/api/v1/docs/`` answers flask-smorest's docs page, as ``/api/v1/docs`` does (as
    lists take both forms); ``url_for`` keeps giving the form without the slash."""
    endpoint = "api-docs.openapi_swagger_ui"
    rule = next(app.url_map.iter_rules(endpoint)).rule
    app.add_url_rule(rule + "/", endpoint=endpoint)


@blp.get("/")
def root():
    return links()


@blp.get("/api/v1/", strict_slashes=False)
def api_root():
    return links()


@blp.get("/api/v1/docs/assets/<path:name>")
@blp.get("/api/v1/docs/docs/assets/<path:name>")  # the same, from the page at /api/v1/docs/
def swagger_ui_asset(name):
    # The files change only with the pinned package; a day of caching is safe.
    return send_from_directory(swagger_ui_path, name, max_age=86400)
