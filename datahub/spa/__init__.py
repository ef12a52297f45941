"""The web app at ``/app/``: a React app built from ``web/`` into ``dist/`` (``npm ci &&
npm run build`` in ``web/``; a wheel carries the built files), served by the app in
development and by nginx in a deployment (the same folder).

Every ``/app/...`` path that is not a file answers ``index.html`` (the app routes with real
paths); a missing file under ``/app/assets/`` is a 404, never the page."""

from pathlib import Path

from flask import Blueprint, request, send_from_directory

from datahub.web.errors import NotFound, PermanentRedirect

DIST = Path(__file__).resolve().parent / "dist"

# The app talks only to its own origin; nothing inline, no plugins, no framing.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# Built assets carry a content hash in their names: they never change.
IMMUTABLE = 365 * 24 * 3600

blp = Blueprint("spa", __name__)


class AppNotBuilt(NotFound):
    detail = "The web app is not built: run `npm ci && npm run build` in web/"


def _file(path, max_age=None):
    """``path`` under DIST: immutable for ``max_age``, else revalidated on every use."""
    response = send_from_directory(DIST, path, max_age=max_age)
    if max_age:
        response.cache_control.immutable = True
    else:
        response.cache_control.no_cache = True
        response.cache_control.max_age = None
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@blp.get("/app")
def app_root():
    # The app's catalog links to /app?q=...: a reload keeps its filters.
    query = request.query_string.decode("latin-1")
    raise PermanentRedirect("/app/" + (f"?{query}" if query else ""))


@blp.get("/app/", defaults={"path": ""})
@blp.get("/app/<path:path>")
def app_file(path):
    if not (DIST / "index.html").is_file():
        raise AppNotBuilt()
    if path == "index.html":
        raise PermanentRedirect("/app/")  # one address for the page
    if path.startswith("assets/"):
        return _file(path, IMMUTABLE)
    candidate = DIST / path
    # DIST resolved now, not at import: it may be (or be patched to) a symlinked folder.
    if path and candidate.is_file() and candidate.resolve().is_relative_to(DIST.resolve()):
        return _file(path)
    if "." in path.rsplit("/", 1)[-1]:
        raise NotFound()  # a file that is not there (the app's own paths have no dots)
    return _file("index.html")
