"""The production nginx config (deploy/nginx/datahub.conf) in front of a real gunicorn,
with a throw-away TLS certificate, driven by the real curl."""

import json
import re
import subprocess

import pytest

from datahub.app.extensions import db
from datahub.identity.models import RefreshToken
from datahub.spa import CONTENT_SECURITY_POLICY
from datahub.spa import DIST as SPA_DIST
from tests.e2e.nginx_site import run_for_test

pytestmark = pytest.mark.e2e
MAX_BODY = 1024 * 1024


@pytest.fixture
def gunicorn_env():
    return {
        "DATAHUB_PROXY_FIX_X_FOR": "1",
        "DATAHUB_PROXY_FIX_X_PROTO": "1",
        "DATAHUB_MAX_CONTENT_LENGTH": str(MAX_BODY),
    }


@pytest.fixture
def nginx(gunicorn_server, tmp_path):
    server = run_for_test(tmp_path, gunicorn_server, MAX_BODY)
    yield server.url
    server.stop()


def curl(*args):
    result = subprocess.run(
        ["curl", "-sk", "-D", "-", "--max-time", "20", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    head, _, body = result.stdout.partition("\n\n")
    return int(head.split()[1]), head.lower(), body


def test_the_auth_flow_through_nginx(nginx, gunicorn_server, tmp_path):
    jar = str(tmp_path / "jar")
    credentials = json.dumps(
        {"email": "admin@example.com", "password": gunicorn_server.admin_password()}
    )
    status, head, body = curl(
        "-c",
        jar,
        "-H",
        "Content-Type: application/json",
        "-d",
        credentials,
        f"{nginx}/api/v1/auth/login",
    )
    assert status == 200, body
    assert "strict-transport-security" in head and "secure; httponly" in head
    token = json.loads(body)["access_token"]
    status, _, body = curl("-H", f"Authorization: Bearer {token}", f"{nginx}/api/v1/auth/me")
    assert status == 200 and json.loads(body)["email"] == "admin@example.com"
    status, _, body = curl("-X", "POST", "-b", jar, "-c", jar, f"{nginx}/api/v1/auth/refresh")
    assert status == 200, body
    status, _, body = curl("-X", "POST", "-b", jar, "-c", jar, f"{nginx}/api/v1/auth/logout")
    assert (status, json.loads(body)) == (200, {"message": "Successfully logged out"})
    status, _, body = curl("-X", "POST", "-b", jar, f"{nginx}/api/v1/auth/refresh")
    assert (status, json.loads(body)) == (401, {"detail": "Not authenticated"})


def test_the_app_sees_the_real_client_address_not_a_spoofed_one(nginx, gunicorn_server, app):
    credentials = json.dumps(
        {"email": "admin@example.com", "password": gunicorn_server.admin_password()}
    )
    status, _, body = curl(
        "--interface",
        "127.0.0.2",
        "-H",
        "X-Forwarded-For: 203.0.113.9",
        "-H",
        "Content-Type: application/json",
        "-d",
        credentials,
        f"{nginx}/api/v1/auth/login",
    )
    assert status == 200, body
    with app.app_context():
        addresses = db.session.scalars(db.select(RefreshToken.client_address)).all()
    assert addresses == ["127.0.0.2"]


@pytest.mark.parametrize(
    "path, status, detail",
    [
        ("/api/v1/auth/login", 413, "Request body too large"),  # JSON: MAX_JSON_BODY_BYTES (1m)
        ("/api/v1/datasets/1/file", 400, "File too large"),  # a file: __MAX_BODY__
    ],
)
def test_a_body_over_the_limit_is_refused_by_nginx_in_json(nginx, tmp_path, path, status, detail):
    big = tmp_path / "big.json"
    big.write_bytes(b'{"email": "' + b"a" * (MAX_BODY + 10) + b'"}')
    method = "PUT" if path.endswith("/file") else "POST"
    answer, head, body = curl(
        "-X",
        method,
        "-H",
        "Content-Type: application/json",
        "--data-binary",
        f"@{big}",
        f"{nginx}{path}",
    )
    assert (answer, json.loads(body)) == (status, {"detail": detail})
    assert "content-type: application/json" in head


def test_gunicorn_down_is_a_json_502(nginx, gunicorn_server):
    gunicorn_server.process.terminate()
    gunicorn_server.process.wait(timeout=20)
    status, head, body = curl(f"{nginx}/api/v1/auth/me")
    assert (status, json.loads(body)) == (502, {"detail": "Bad gateway"})
    assert "content-type: application/json" in head


def test_an_error_from_the_app_passes_through_unchanged(nginx):
    status, head, body = curl(f"{nginx}/api/v1/nothing")
    assert (status, json.loads(body)) == (404, {"detail": "Not Found"})


@pytest.mark.parametrize("path", ["/metrics", "/metrics?x=1", "//metrics", "/%6Detrics"])
def test_metrics_are_not_served_through_nginx(nginx, gunicorn_server, path):
    status, head, body = curl(f"{nginx}{path}")  # from loopback, which the app would allow
    assert (status, json.loads(body)) == (404, {"detail": "Not Found"})
    assert "content-type: application/json" in head
    status, _, body = curl(f"{gunicorn_server.url}/metrics")  # gunicorn's bind: served
    assert status == 200 and "datahub_http_requests_total" in body


def test_nginx_serves_the_web_app_itself(nginx, gunicorn_server):
    """The build, as the app serves it (tests/spa/test_spa_files.py): the page for every
    app path, assets immutable, a missing file the contract's 404; gunicorn not involved."""
    gunicorn_server.process.terminate()
    gunicorn_server.process.wait(timeout=20)
    index = (SPA_DIST / "index.html").read_text()
    for path in ("/app/", "/app/datasets", "/app/datasets/7/versions", "/app/index.html"):
        status, head, body = curl(f"{nginx}{path}")
        assert (status, body) == (200, index), path
        assert "content-type: text/html" in head and "cache-control: no-cache" in head, path
        assert f"content-security-policy: {CONTENT_SECURITY_POLICY.lower()}" in head.lower()
        assert "strict-transport-security" in head and "x-content-type-options: nosniff" in head
        assert "referrer-policy: no-referrer" in head
    entry = re.search(r'<script type="module"[^>]* src="(/app/assets/[^"]+\.js)"', index).group(1)
    status, head, body = curl(f"{nginx}{entry}")
    assert status == 200 and "content-type: text/javascript" in head  # a module needs it
    assert body == (SPA_DIST / entry.removeprefix("/app/")).read_text()
    assert "cache-control: public, max-age=31536000, immutable" in head
    assert "x-content-type-options: nosniff" in head
    for path in ("/app/assets/index-gone.js", "/app/assets/", "/app/favicon.ico", "/app/a/b.css"):
        status, head, body = curl(f"{nginx}{path}")
        assert (status, json.loads(body)) == (404, {"detail": "Not Found"}), path
        assert "content-type: application/json" in head, path
    status, head, _ = curl(f"{nginx}/app")
    assert status == 308 and "location: https://localhost" in head and "/app/" in head
    status, head, _ = curl(f"{nginx}/app?q=rain&offset=20")
    assert status == 308 and "/app/?q=rain&offset=20\n" in head
