"""The single-page app at ``/app/``: static files from ``static/``, served by the app in
development (nginx serves the same folder in a deployment). No build step."""

from pathlib import Path

from flask import Blueprint, send_from_directory

from datahub.web.errors import PermanentRedirect

STATIC = Path(__file__).resolve().parent / "static"

# The SPA talks only to its own origin; nothing inline, no plugins, no framing.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)

blp = Blueprint("spa", __name__)


@blp.get("/app")
def app_root():
    raise PermanentRedirect("/app/")


@blp.get("/app/", defaults={"name": "index.html"})
@blp.get("/app/<path:name>")
def app_file(name):
    response = send_from_directory(STATIC, name, max_age=0)
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
