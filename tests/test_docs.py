"""Where things are: ``GET /`` and ``GET /api/v1/`` link to the docs, the OpenAPI document
and the SPA; the docs page loads Swagger UI from the service itself (datahub.docs)."""

import re

import pytest
from swagger_ui_bundle import swagger_ui_path

LINKS = {
    "api": "/api/v1/",
    "docs": "/api/v1/docs",
    "openapi": "/api/v1/openapi.json",
    "app": "/app/",
    "health": "/healthz",
}


@pytest.mark.parametrize("path", ["/", "/api/v1/", "/api/v1"])
def test_the_roots_link_to_docs_document_and_app(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.content_type == "application/json"
    assert response.json["name"] == "datahub"
    assert response.json["links"] == LINKS


def test_every_link_answers(client):
    for path in LINKS.values():
        assert client.get(path).status_code == 200, path


def test_links_follow_the_mount_point(client):
    response = client.get("/", environ_overrides={"SCRIPT_NAME": "/hub"})
    assert response.json["links"]["docs"] == "/hub/api/v1/docs"
    assert response.json["links"]["app"] == "/hub/app/"


def test_the_docs_page_loads_nothing_from_elsewhere(client):
    page = client.get("/api/v1/docs").get_data(as_text=True)
    sources = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert sorted(sources) == [
        "docs/assets/swagger-ui-bundle.js",
        "docs/assets/swagger-ui-standalone-preset.js",
        "docs/assets/swagger-ui.css",
    ]
    assert "validatorUrl" in page and '"validatorUrl": null' in page
    assert "http://" not in page and "https://" not in page


@pytest.mark.parametrize(
    "name", ["swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css"]
)
def test_swagger_ui_files_come_from_the_installed_package(client, name):
    response = client.get(f"/api/v1/docs/assets/{name}")
    assert response.status_code == 200
    with open(f"{swagger_ui_path}/{name}", "rb") as installed:
        assert response.data == installed.read()
    assert response.cache_control.max_age == 86400


@pytest.mark.parametrize("name", ["missing.js", "../__init__.py", "%2e%2e/__init__.py"])
def test_nothing_else_is_served_from_there(client, name):
    response = client.get(f"/api/v1/docs/assets/{name}")
    assert response.status_code == 404
    assert response.json == {"detail": "Not Found"}
