"""A client built with a personal access token: the token is the bearer of every request,
and a 401 is final (no refresh is tried, not even for ``Token has expired``)."""

import json
import threading
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest

from datahub_client import AuthenticationError, Client


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def service():
    """Answers /auth/me to ``dhp_good`` only (401 ``Token has expired`` otherwise) and
    records every request as (method, path, Authorization)."""
    seen = []

    def app(environ, start_response):
        bearer = environ.get("HTTP_AUTHORIZATION")
        seen.append((environ["REQUEST_METHOD"], environ["PATH_INFO"], bearer))
        if bearer == "Bearer dhp_good":
            start_response("200 OK", [("Content-Type", "application/json")])
            return [json.dumps({"email": "ann@example.com"}).encode()]
        start_response("401 Unauthorized", [("Content-Type", "application/json")])
        return [b'{"detail": "Token has expired"}']

    server = make_server("127.0.0.1", 0, app, handler_class=Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", seen
    server.shutdown()
    server.server_close()


def test_the_token_is_the_bearer_and_a_401_is_final(service):
    url, seen = service
    assert Client(url, token="dhp_good").me() == {"email": "ann@example.com"}
    assert seen == [("GET", "/api/v1/auth/me", "Bearer dhp_good")]
    seen.clear()
    client = Client(url, token="dhp_revoked", refresh_token="ignored")
    with pytest.raises(AuthenticationError):
        client.me()
    assert seen == [("GET", "/api/v1/auth/me", "Bearer dhp_revoked")]  # no refresh
    assert client.logout() == {"message": "Forgot the personal access token (it stays valid)"}
    assert client.token is None and client.access_token is None
    assert len(seen) == 1  # nothing to end on the service
