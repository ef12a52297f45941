"""datahub/app/flask_app.py with its settings off (FLASK_COROUTINE_CACHE,
WERKZEUG_STREAM_CHECK): Flask's own coroutine check, and every body counted as possibly
unread."""
import io

import pytest
from flask import Response, request

from datahub.web.bodies import DRAIN_UNREAD_BYTES, settle_unread_body
from tests.conftest import bearer, login

BOTH = pytest.mark.parametrize("config_overrides", [
    {}, {"FLASK_COROUTINE_CACHE": False, "WERKZEUG_STREAM_CHECK": False},
], ids=["internals", "public-api"])


@BOTH
def test_ensure_sync_answers_as_flask_does(app, monkeypatch):
    def view():
        pass

    async def coroutine():
        pass

    class View:
        def get(self):
            pass

        async def post(self):
            pass

    monkeypatch.setattr(app, "async_to_sync", lambda func: ("wrapped", func))
    instance = View()
    for _ in range(2):  # the second time from the cache, when there is one
        assert app.ensure_sync(view) is view
        assert app.ensure_sync(instance.get) == instance.get
        assert app.ensure_sync(coroutine) == ("wrapped", coroutine)
        assert app.ensure_sync(instance.post) == ("wrapped", instance.post)
    cached = app.coroutine_functions
    if app.config["FLASK_COROUTINE_CACHE"]:
        expected = {view: False, View.get: False, coroutine: True, View.post: True}
        assert {function: cached[function] for function in expected} == expected
    else:
        assert cached is None


@BOTH
def test_the_service_answers_the_same(client, make_user):
    make_user(roles=["editor"])
    headers = bearer(login(client).get_json()["access_token"])
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 200
    assert client.post("/api/v1/datasets/", headers=headers, json={}).status_code == 422


class FailableInput(io.BytesIO):
    """A wsgi.input with gunicorn's ``failed`` flag (set: close after the response)."""

    failed = False


def settle(app, body, *, read, status):
    """``(whole body read, connection to close)`` after ``settle_unread_body``."""
    stream = FailableInput(body)
    with app.test_request_context("/api/v1/datasets/", method="POST", input_stream=stream,
                                  content_length=len(body), content_type="application/json"):
        assert request.environ["wsgi.input"] is stream
        if read:
            request.get_data()
        response = settle_unread_body(Response(status=status))
        response.close()  # the answer is out: what is left of the body is drained now
        return stream.tell() == len(body), stream.failed


@BOTH
def test_an_unread_small_body_is_drained_and_the_connection_kept(app):
    assert settle(app, b"{}" * 100, read=False, status=401) == (True, False)
    assert settle(app, b"{}" * 100, read=True, status=422) == (True, False)


@BOTH
def test_an_unread_large_body_closes_the_connection(app):
    assert settle(app, b" " * (DRAIN_UNREAD_BYTES + 1), read=False, status=401) == (False, True)


@BOTH
def test_a_large_body_read_before_an_error(app):
    """The check's one difference: without it a body already read whole, over the drain
    limit, also closes the connection (the client reconnects)."""
    closed = not app.config["WERKZEUG_STREAM_CHECK"]
    assert settle(app, b" " * (DRAIN_UNREAD_BYTES + 1), read=True, status=422) == (True, closed)
