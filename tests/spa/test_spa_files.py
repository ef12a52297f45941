"""The built web app (datahub/spa/dist) as the service serves it at /app/.

Most tests serve a small dist of their own (DIST patched to a temporary folder), so that
they say what the serving does whatever the app's files are; one checks the real build."""

import re

import pytest

import datahub.spa
from datahub.spa import CONTENT_SECURITY_POLICY, IMMUTABLE

INDEX = b'<!doctype html><script type="module" src="/app/assets/index-abc123.js"></script>'
ENTRY = b"console.log('app');"


@pytest.fixture
def dist(tmp_path, monkeypatch):
    """A small build, reached through a symlink (as a packager may install it)."""
    build = tmp_path / "build"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_bytes(INDEX)
    (build / "assets" / "index-abc123.js").write_bytes(ENTRY)
    (build / "assets" / "index-abc123.css").write_bytes(b"body{}")
    (build / "robots.txt").write_bytes(b"User-agent: *\n")
    (tmp_path / "secret.txt").write_bytes(b"outside the app")
    (tmp_path / "dist").symlink_to(build, target_is_directory=True)
    monkeypatch.setattr(datahub.spa, "DIST", tmp_path / "dist")
    return build


def assert_page_headers(response):
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert "'unsafe-inline'" not in CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize(
    "path", ["/app/", "/app/datasets", "/app/datasets/7/versions", "/app/admin/users/3/tokens"]
)
def test_every_app_path_answers_the_page_revalidated(client, dist, path):
    response = client.get(path)
    assert (response.status_code, response.mimetype) == (200, "text/html"), path
    assert response.get_data() == INDEX
    assert response.headers["Cache-Control"] == "no-cache"
    assert_page_headers(response)


def test_assets_are_immutable_for_a_year(client, dist):
    for name, mimetype in (
        ("index-abc123.js", "text/javascript"),
        ("index-abc123.css", "text/css"),
    ):
        response = client.get(f"/app/assets/{name}")
        assert (response.status_code, response.mimetype) == (200, mimetype), name
        assert response.get_data() == (dist / "assets" / name).read_bytes()
        cache = response.cache_control
        assert cache.immutable and cache.public and cache.max_age == IMMUTABLE == 31536000
        assert_page_headers(response)


def test_other_files_of_the_build_are_served_revalidated(client, dist):
    response = client.get("/app/robots.txt")
    assert response.status_code == 200 and response.get_data() == b"User-agent: *\n"
    assert response.headers["Cache-Control"] == "no-cache"


@pytest.mark.parametrize(
    "path",
    [
        "/app/assets/index-gone.js",  # an old build's chunk: never the page in its place
        "/app/assets/",
        "/app/assets/nested/missing.css",
        "/app/favicon.ico",
        "/app/datasets/report.csv",
    ],
)
def test_a_missing_file_is_the_contract_404_not_the_page(client, dist, path):
    response = client.get(path)
    assert response.status_code == 404, path
    assert response.get_json() == {"detail": "Not Found"}, path


@pytest.mark.parametrize(
    "path",
    [
        "/app/../secret.txt",
        "/app/%2e%2e/secret.txt",
        "/app/..%2fsecret.txt",
        "/app/assets/../../secret.txt",
        "/app/assets/%2e%2e/%2e%2e/secret.txt",
        "/app/%2fetc%2fpasswd",
    ],
)
def test_paths_out_of_the_build_are_refused(client, dist, path):
    response = client.get(path)
    assert response.status_code == 404, path
    assert b"outside the app" not in response.get_data()
    assert response.is_json and "detail" in response.get_json(), path


def test_app_without_slash_redirects(client, dist):
    response = client.get("/app")
    assert response.status_code == 308 and response.headers["Location"] == "/app/"
    assert response.get_json() == {"detail": "Permanent Redirect"}
    response = client.get("/app?q=rain&tag=a%20b&offset=20")  # the catalog's own address
    assert response.headers["Location"] == "/app/?q=rain&tag=a%20b&offset=20"


@pytest.mark.parametrize("path", ["/app/", "/app/datasets/7", "/app/assets/index-abc123.js"])
def test_without_a_build_every_app_path_says_how_to_build(client, tmp_path, monkeypatch, path):
    monkeypatch.setattr(datahub.spa, "DIST", tmp_path / "empty")
    (tmp_path / "empty").mkdir()
    response = client.get(path)
    assert response.status_code == 404
    detail = response.get_json()["detail"]
    assert "npm ci" in detail and "npm run build" in detail and "web/" in detail


def test_the_real_build_is_served_with_its_entry_module(client):
    index = datahub.spa.DIST / "index.html"
    assert index.is_file(), "the web app is not built: `cd web && npm ci && npm run build`"
    page = client.get("/app/datasets")
    assert page.status_code == 200 and page.get_data() == index.read_bytes()
    entry = re.search(r'<script type="module"[^>]* src="(/app/assets/[^"]+\.js)"', page.text)
    assert entry, page.text
    script = client.get(entry.group(1))
    assert (script.status_code, script.mimetype) == (200, "text/javascript")
    assert script.cache_control.immutable
