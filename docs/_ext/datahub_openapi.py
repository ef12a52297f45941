"""The API reference, rendered from the OpenAPI document the app serves.

At the start of every build the app is created in a throw-away instance folder and asked
for ``/api/v1/openapi.json`` (through Flask's test client: no server, no network); the
document is written into the build folder, and ``.. datahub-openapi::`` renders it with
sphinxcontrib-openapi. So the reference is always the document of the code being built.
"""

import copy
import json
import os
import re
import tempfile
from pathlib import Path

import sphinx_mdinclude
from sphinx.util.docutils import SphinxDirective
from sphinxcontrib.openapi.renderers import HttpdomainRenderer

DOCUMENT_PATH = "/api/v1/openapi.json"


def openapi_document():
    """The OpenAPI document of ``datahub.create_app()`` with the default settings."""
    saved = {key: value for key, value in os.environ.items() if key.startswith("DATAHUB_")}
    with tempfile.TemporaryDirectory() as instance:
        for key in saved:  # the builder's own DATAHUB_* settings must not change the document
            del os.environ[key]
        os.environ["DATAHUB_INSTANCE_PATH"] = instance
        try:
            from datahub import create_app

            app = create_app({"TESTING": True})
            response = app.test_client().get(DOCUMENT_PATH)
            with app.app_context():
                app.extensions["sqlalchemy"].engine.dispose()
        finally:
            os.environ.pop("DATAHUB_INSTANCE_PATH", None)
            os.environ.update(saved)
    if response.status_code != 200:
        raise RuntimeError(f"GET {DOCUMENT_PATH} answered {response.status_code}")
    return response.get_json()


def document_file(app):
    return Path(app.doctreedir) / "openapi.json"


def write_document(app):
    """Write the document into the build folder (only when it changed, so that an
    incremental build reads the reference again only then)."""
    path = document_file(app)
    text = json.dumps(openapi_document(), indent=1, ensure_ascii=False) + "\n"
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


class DatahubRenderer(HttpdomainRenderer):
    """sphinxcontrib-openapi's httpdomain renderer, with the two things this document
    needs that it lacks: a ``default`` response (any other status), which httpdomain's
    ``:statuscode:`` field cannot hold, and a request example after a body that has no
    JSON schema (a file upload)."""

    def render_request_body(self, request_body, endpoint, method):
        yield ""
        yield from super().render_request_body(request_body, endpoint, method)

    def render_responses(self, responses):
        responses = dict(responses)
        default = responses.pop("default", None)
        yield from once_per_header(super().render_responses(responses))
        if default is not None:
            yield ""
            description = " ".join(self._convert_markup(default["description"]).split())
            yield f"**Any other status:** {description}"


def once_per_header(lines):
    """The response fields with each ``:resheader:`` kept once: the renderer lists the
    headers of every status, and most statuses share ``X-Request-ID``."""
    seen, skipping = set(), False
    for line in lines:
        header = re.match(r":resheader ([^:]+):", line)
        if header:
            skipping = header[1] in seen
            seen.add(header[1])
        elif not line.startswith((" ", ":resheadertype ")):  # a header's lines end here
            skipping = False
        if not skipping:
            yield line


class OpenAPIDirective(SphinxDirective):
    """``.. datahub-openapi::``: the document's introduction, then every operation."""

    def run(self):
        path = document_file(self.env.app)
        self.env.note_dependency(str(path))
        spec = json.loads(path.read_text(encoding="utf-8"))
        nodes = []
        introduction = spec.get("info", {}).get("description")
        if introduction:
            nodes += self.parse_text_to_nodes(sphinx_mdinclude.convert(introduction))
        nodes += DatahubRenderer(self.state, {}).render(copy.deepcopy(spec))
        return nodes


def setup(app):
    app.setup_extension("sphinxcontrib.openapi")
    app.connect("builder-inited", write_document)
    app.add_directive("datahub-openapi", OpenAPIDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
