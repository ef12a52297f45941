"""Slash forms of the URLs: an empty path segment is a JSON 404 (never Werkzeug's HTML
redirect to another path), ``/api/v1/docs/`` is the docs page, and every redirect answers
the contract's JSON."""

from urllib.parse import urljoin

import pytest

from tests.conftest import bearer, login

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


def list_paths(client, headers, user_id):
    """Every list of the API, with what it needs made first."""
    made = {}
    for kind in ("datasets", "collections", "pipelines"):
        body = {"name": f"slash {kind}"}
        if kind == "pipelines":
            body.update(source_dataset_id=made["datasets"], steps=[], output_dataset_name="out")
        response = client.post(f"/api/v1/{kind}/", json=body, headers=headers)
        assert response.status_code == 201, response.get_json()
        made[kind] = response.get_json()["id"]
    hook = {"url": "https://93.184.215.14/hooks"}
    webhook = client.post("/api/v1/webhooks/", json=hook, headers=headers).get_json()["id"]
    dataset, pipeline = made["datasets"], made["pipelines"]
    return [
        *(f"/api/v1/{kind}" for kind in ("datasets", "collections", "pipelines", "groups")),
        *(f"/api/v1/{kind}" for kind in ("users", "events", "webhooks")),
        *(f"/api/v1/{kind}/{made[kind]}/grants" for kind in made),
        f"/api/v1/datasets/{dataset}/versions",
        f"/api/v1/pipelines/{pipeline}/runs",
        f"/api/v1/webhooks/{webhook}/deliveries",
        "/api/v1/auth/sessions",
        "/api/v1/auth/tokens",
        f"/api/v1/users/{user_id}/tokens",
    ]


def test_every_list_answers_with_and_without_its_trailing_slash(client, make_user):
    make_user(email="lists@example.com", roles=("admin",))
    login_response = login(client, "lists@example.com")
    headers = bearer(login_response.get_json()["access_token"])
    user_id = client.get("/api/v1/auth/me", headers=headers).get_json()["id"]
    wrong = {}
    for path in list_paths(client, headers, user_id):
        bare = client.get(path, headers=headers)
        slashed = client.get(path + "/", headers=headers)
        assert bare.status_code == 200, (path, bare.get_json())
        if (slashed.status_code, slashed.get_json()) != (200, bare.get_json()):
            wrong[path + "/"] = slashed.status_code
    assert wrong == {}
