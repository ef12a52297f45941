"""Slash forms of the URLs: an empty path segment is a JSON 404 (never Werkzeug's HTML
redirect to another path), ``/api/v1/docs/`` is the docs page, and every redirect answers
the contract's JSON."""

from urllib.parse import urljoin

import pytest

NOT_FOUND = {"detail": "Not Found"}


@pytest.fixture
def admin(auth_headers):
    return auth_headers("admin@example.com", roles=("admin",))


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/datasets//file",
        "/api/v1/pipelines//runs",
        "/api/v1//datasets/",
        "/api/v1/auth//me",
        "//api/v1/datasets/",
    ],
)
def test_an_empty_path_segment_is_a_json_404(client, admin, path):
    response = client.get(path, headers=admin)
    assert (response.status_code, response.get_json()) == (404, NOT_FOUND)
    assert response.content_type == "application/json"
    assert "Location" not in response.headers


def test_the_docs_page_answers_with_a_slash_too(client):
    page = client.get("/api/v1/docs")
    slashed = client.get("/api/v1/docs/")
    assert (page.status_code, slashed.status_code) == (200, 200)
    assert slashed.content_type.startswith("text/html")
    assert slashed.get_data() == page.get_data()
    # Its relative asset URLs resolve from either address.
    asset = "docs/assets/swagger-ui-bundle.js"
    assert f'src="{asset}"' in page.get_data(as_text=True)
    for base in ("/api/v1/docs", "/api/v1/docs/"):
        response = client.get(urljoin(base, asset))
        assert response.status_code == 200, base
        assert "javascript" in response.content_type
        response.close()


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/app", "/app/"),
        ("/app/index.html", "/app/"),
    ],
)
def test_a_redirect_answers_json(client, path, location):
    response = client.get(path)
    assert (response.status_code, response.get_json()) == (308, {"detail": "Permanent Redirect"})
    assert response.content_type == "application/json"
    assert response.headers["Location"].endswith(location)


def slash_forms(rule):
    """A rule's path without and with its trailing slash, and with an empty segment."""
    bare = rule.rstrip("/") or "/"
    return {bare, bare.rstrip("/") + "/", bare.replace("/", "//", 2)}


METRICS_ENDPOINT = "ops.metrics"
STREAM_ENDPOINT = "events.EventStream"


def test_no_path_of_the_service_answers_html_but_its_pages(app, client, admin):
    """Every GET route without parameters, in every slash form: what is not a page (the
    docs, the SPA's files), Prometheus's text (``/metrics``, off the API) or the event
    stream's Server-Sent Events is JSON, redirects and errors included."""
    pages = {"api-docs.openapi_swagger_ui", "spa.app_file", METRICS_ENDPOINT, STREAM_ENDPOINT}
    paths = {
        path
        for rule in app.url_map.iter_rules()
        if "GET" in rule.methods and not rule.arguments
        for path in slash_forms(rule.rule)
    }
    assert "/api/v1/docs/" in paths and "/app" in paths
    adapter = app.url_map.bind("localhost")
    for path in sorted(paths):
        response = client.get(path, headers=admin)
        try:
            endpoint = adapter.match(path)[0] if response.status_code == 200 else None
        except Exception:
            endpoint = None
        if endpoint not in pages:
            assert response.content_type == "application/json", (path, response.status_code)
        response.close()
