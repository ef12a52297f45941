"""Every library internal turned off at once (docs/contributing/internals.rst), through a real
gunicorn: gunicorn's own ``gthread`` worker, and only the public API of Flask,
Flask-Limiter, SQLAlchemy and Werkzeug, and the OpenAPI document made at start as
flask-smorest makes it. The service answers as with them."""

import http.client
import json
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.e2e

PUBLIC_API_ONLY = {
    "DATAHUB_WORKER_CLASS": "gthread",
    "DATAHUB_SOCKET_UPLOADS": "false",
    "DATAHUB_RATELIMIT_FAST_PATH": "false",
    "DATAHUB_AUTH_LOOKUP_DIRECT_CONNECTIONS": "false",
    "DATAHUB_OPENAPI_DEFERRED": "false",
    "DATAHUB_ROUTING_BUILDER_CACHE": "false",
    "DATAHUB_RATE_LIMIT_LOGIN_PER_EMAIL": "3/minute",
}


@pytest.fixture
def gunicorn_env():
    return PUBLIC_API_ONLY


class Client:
    def __init__(self, url):
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)

    def __call__(self, method, path, body=None, headers=None):
        if isinstance(body, dict):
            body = json.dumps(body).encode()
            headers = {"Content-Type": "application/json", **(headers or {})}
        self.conn.request(method, "/api/v1" + path, body=body, headers=headers or {})
        response = self.conn.getresponse()
        return response.status, response.read()


def test_the_service_on_public_apis_only(gunicorn_server):
    assert "Using worker: gthread" in gunicorn_server.log()
    call = Client(gunicorn_server.url)  # one keep-alive connection throughout
    credentials = {"email": "admin@example.com", "password": gunicorn_server.admin_password()}
    status, body = call("POST", "/auth/login", credentials)
    assert status == 200, body
    auth = {"Authorization": f"Bearer {json.loads(body)['access_token']}"}
    status, body = call("GET", "/auth/me", headers=auth)
    assert (status, json.loads(body)["email"]) == (200, "admin@example.com")

    status, body = call("POST", "/datasets/", {"name": "public"}, auth)
    assert status == 201, body
    file_path = f"/datasets/{json.loads(body)['id']}/file"
    content = bytes(range(256)) * 4096
    status, body = call(
        "PUT",
        file_path + "?filename=a.bin",
        content,
        {**auth, "Content-Type": "application/octet-stream"},
    )
    assert status == 200, body
    assert call("GET", file_path, headers=auth) == (200, content)
    # Answered before the body is read: the body is drained, the connection kept.
    assert call("PUT", file_path, content[:100000], {"Content-Type": "text/csv"})[0] == 401

    guess = {"email": "nobody@example.com", "password": "wrong"}
    for _ in range(3):
        assert call("POST", "/auth/login", guess)[0] == 401
    status, body = call("POST", "/auth/login", guess)
    assert (status, json.loads(body)) == (429, {"detail": "Too many requests"})

    assert call("POST", "/auth/logout", headers=auth)[0] == 200
    status, body = call("GET", "/auth/me", headers=auth)
    assert (status, json.loads(body)) == (401, {"detail": "Token has been revoked"})
    assert "Traceback" not in gunicorn_server.log()
