"""The SPA's static files as the app serves them in development (/app/)."""

import re

from datahub.spa import STATIC


def test_index_and_assets_are_served_with_a_strict_policy(client):
    response = client.get("/app/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.get_data() == (STATIC / "index.html").read_bytes()
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "'unsafe-inline'" not in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assets = [
        ("app.js", "text/javascript"),
        ("datahub-client.js", "text/javascript"),
        ("diff.js", "text/javascript"),
        ("lineage.js", "text/javascript"),
        ("live.js", "text/javascript"),
        ("preview.js", "text/javascript"),
        ("sharing.js", "text/javascript"),
        ("tokens.js", "text/javascript"),
        ("ui.js", "text/javascript"),
        ("versions.js", "text/javascript"),
        ("style.css", "text/css"),
    ]
    assert {name for name, _ in assets} | {"index.html"} == {p.name for p in STATIC.iterdir()}
    for name, mimetype in assets:
        response = client.get(f"/app/{name}")
        assert (response.status_code, response.mimetype) == (200, mimetype), name
        assert response.get_data() == (STATIC / name).read_bytes()


def test_every_module_the_app_imports_is_one_of_its_files():
    imported = {
        match.group(1)
        for path in STATIC.glob("*.js")
        for match in re.finditer(r'^import .* from "\./([^"]+)";$', path.read_text(), re.M)
    }
    assert "versions.js" in imported
    assert imported <= {path.name for path in STATIC.glob("*.js")} - {"app.js"}


def test_app_without_slash_redirects(client):
    response = client.get("/app")
    assert response.status_code == 308 and response.headers["Location"] == "/app/"


def test_unknown_and_escaping_paths_are_json_404(client):
    for path in (
        "/app/nothing.js",
        "/app/../__init__.py",
        "/app/%2e%2e/__init__.py",
        "/app/..%2f__init__.py",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.get_json() == {"detail": "Not Found"}, path
