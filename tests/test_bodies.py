"""Request bodies (datahub.web.bodies): bounded before they are read, JSON parsed once, values
no JSON parser or database should see refused with a 400, and permission decided before
a body is parsed."""

import io
import json

import pytest

from datahub.web import bodies
from tests.conftest import PASSWORD, bearer, login
from tests.resources import actors  # noqa: F401  (fixture)

LOGIN = "/api/v1/auth/login"
OUT_OF_RANGE = {"detail": "Request body contains a number out of range"}
NOT_JSON = {"detail": "Request body is not valid JSON"}


def post_json(client, url, text, headers=None):
    return client.post(url, data=text, content_type="application/json", headers=headers or {})


@pytest.mark.parametrize(
    "text, detail",
    [
        ('{"email": "a@b.c", "password": ' + "9" * 4301 + "}", OUT_OF_RANGE),
        ('{"email": "a@b.c", "password": -' + "9" * 10000 + "}", OUT_OF_RANGE),
        ('{"email": "a@b.c", "password": 1e400}', OUT_OF_RANGE),
        ('{"email": "a@b.c", "password": -1e400}', OUT_OF_RANGE),
        ('{"email": "a@b.c", "password": NaN}', NOT_JSON),
        ('{"email": "a@b.c", "password": Infinity}', NOT_JSON),
        ('{"email": "a@b.c", "password": -Infinity}', NOT_JSON),
    ],
    ids=["4301-digits", "10000-digits-negative", "1e400", "-1e400", "nan", "inf", "-inf"],
)
def test_numbers_no_parser_should_hold_are_400_on_login(client, text, detail):
    response = post_json(client, LOGIN, text)
    assert (response.status_code, response.get_json()) == (400, detail)


def test_a_4300_digit_integer_is_read_and_refused_by_the_schema(client):
    response = post_json(client, LOGIN, '{"email": "a@b.c", "password": ' + "9" * 4300 + "}")
    assert response.status_code == 422
    assert response.get_json()["detail"] == [
        {"loc": ["body", "password"], "msg": "str type expected", "type": "type_error.str"}
    ]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999", "9" * 5000])
def test_nan_and_huge_numbers_never_reach_a_stored_pipeline(client, actors, value):
    """A filter value of NaN was stored and made every later list invalid JSON (SQLite)
    or a 500 (PostgreSQL)."""
    editor = actors["editor"]
    dataset = client.post(
        "/api/v1/datasets/", json={"name": "source"}, headers=editor.headers
    ).get_json()
    text = (
        '{"name": "p", "source_dataset_id": %d, "output_dataset_name": "out", "steps": '
        '[{"op": "filter", "column": "a", "operator": "eq", "value": %s}]}' % (dataset["id"], value)
    )
    response = post_json(client, "/api/v1/pipelines/", text, editor.headers)
    assert response.status_code == 400
    assert response.get_json() in (OUT_OF_RANGE, NOT_JSON)
    listing = client.get("/api/v1/pipelines/", headers=editor.headers)
    assert listing.status_code == 200 and listing.get_json()["total"] == 0


@pytest.mark.parametrize(
    "depth, status", [(bodies.MAX_JSON_DEPTH, 422), (bodies.MAX_JSON_DEPTH + 1, 400)]
)
def test_nesting_is_bounded(client, depth, status):
    nested = "[" * (depth - 1) + "]" * (depth - 1)
    response = post_json(client, LOGIN, '{"email": "a@b.c", "password": %s}' % nested)
    assert response.status_code == status
    if status == 400:
        assert response.get_json() == {"detail": "Request body is nested too deeply"}


def test_a_login_body_is_parsed_once(client, make_user, monkeypatch):
    """The per-email rate limit reads the email from the body the view parses: one parse."""
    make_user()
    calls = []
    parse = bodies._parse
    monkeypatch.setattr(bodies, "_parse", lambda data: calls.append(len(data)) or parse(data))
    assert login(client).status_code == 200
    assert len(calls) == 1


@pytest.mark.parametrize("config_overrides", [{"MAX_JSON_BODY_BYTES": 100}])
@pytest.mark.parametrize(
    "url", [LOGIN, "/api/v1/datasets/", "/api/v1/collections/", "/api/v1/pipelines/"]
)
def test_a_declared_length_over_the_json_limit_is_413_before_anything_else(client, url):
    response = post_json(client, url, json.dumps({"name": "x" * 200}))
    assert (response.status_code, response.get_json()) == (
        413,
        {"detail": "Request body too large"},
    )


@pytest.mark.parametrize("config_overrides", [{"MAX_JSON_BODY_BYTES": 100}])
def test_a_chunked_json_body_is_cut_off_at_the_limit(client):
    body = io.BytesIO(b'{"email": "' + b"a" * 200 + b'"}')
    environ = {
        "wsgi.input": body,
        "wsgi.input_terminated": True,
        "CONTENT_TYPE": "application/json",
    }
    response = client.post(
        LOGIN, headers={"Transfer-Encoding": "chunked"}, environ_overrides=environ
    )
    assert (response.status_code, response.get_json()) == (
        413,
        {"detail": "Request body too large"},
    )
    assert body.tell() <= 101  # read no further than one byte past the limit


@pytest.mark.parametrize(
    "config_overrides", [{"MAX_JSON_BODY_BYTES": 100, "MAX_CONTENT_LENGTH": 10000}]
)
def test_a_file_body_has_the_file_limit_not_the_json_limit(client, actors):
    editor = actors["editor"]
    dataset = client.post("/api/v1/datasets/", json={"name": "d"}, headers=editor.headers)
    url = f"/api/v1/datasets/{dataset.get_json()['id']}/file"
    response = client.put(url, data=b"x" * 5000, headers=editor.headers, content_type="text/csv")
    assert response.status_code == 200 and response.get_json()["file"]["size_bytes"] == 5000
    response = client.put(
        url,
        data=b"x" * (10000 + bodies.MULTIPART_OVERHEAD + 1),
        headers=editor.headers,
        content_type="text/csv",
    )
    assert (response.status_code, response.get_json()) == (400, {"detail": "File too large"})


# -- permission before the body ----------------------------------------------------------

MALFORMED = '{"name": '


@pytest.mark.parametrize("url", ["/api/v1/datasets/", "/api/v1/collections/", "/api/v1/pipelines/"])
def test_a_viewer_creating_is_403_before_the_body_is_parsed(client, actors, url):
    viewer = actors["viewer"]
    response = post_json(client, url, MALFORMED, viewer.headers)
    assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})


@pytest.mark.parametrize("kind", ["datasets", "collections", "pipelines"])
def test_changing_what_another_editor_owns_is_403_before_the_body_is_parsed(client, actors, kind):
    owner, other = actors["editor"], actors["other_editor"]
    source = client.post("/api/v1/datasets/", json={"name": "src"}, headers=owner.headers)
    payload = {"name": "mine"}
    if kind == "pipelines":
        payload.update(
            source_dataset_id=source.get_json()["id"],
            output_dataset_name="out",
            steps=[{"op": "limit", "count": 1}],
        )
    created = client.post(f"/api/v1/{kind}/", json=payload, headers=owner.headers)
    assert created.status_code == 201, created.get_json()
    url = f"/api/v1/{kind}/{created.get_json()['id']}"
    response = client.patch(
        url, data=MALFORMED, content_type="application/json", headers=other.headers
    )
    assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})
    missing = client.patch(
        f"/api/v1/{kind}/999999",
        data=MALFORMED,
        content_type="application/json",
        headers=other.headers,
    )
    assert missing.status_code == 404
    own = client.patch(url, data=MALFORMED, content_type="application/json", headers=owner.headers)
    assert (own.status_code, own.get_json()) == (400, NOT_JSON)


def test_no_token_is_401_before_the_body_is_parsed(client):
    response = post_json(client, "/api/v1/datasets/", MALFORMED)
    assert response.status_code == 401


def test_a_password_change_checks_the_token_before_the_body(client, make_user):
    make_user()
    token = login(client).get_json()["access_token"]
    response = client.put(
        "/api/v1/auth/me/password", data=MALFORMED, content_type="application/json"
    )
    assert response.status_code == 401
    response = client.put(
        "/api/v1/auth/me/password",
        data=MALFORMED,
        content_type="application/json",
        headers=bearer(token),
    )
    assert (response.status_code, response.get_json()) == (400, NOT_JSON)
    assert PASSWORD  # the user's password is unchanged: log in with it again
    assert login(client).status_code == 200


# -- a body left (partly) unread by an error answer ------------------------------------------


class FailableInput(io.BytesIO):
    """A wsgi.input with gunicorn's ``failed`` flag (set: close after the response)."""

    failed = False


def settle(app, body, *, read, status):
    """``(whole body read, connection to close)`` after ``settle_unread_body``."""
    from flask import Response, request

    stream = FailableInput(body)
    with app.test_request_context(
        "/api/v1/datasets/",
        method="POST",
        input_stream=stream,
        content_length=len(body),
        content_type="application/json",
    ):
        assert request.environ["wsgi.input"] is stream
        if read:
            bodies.open_body().read()
        response = bodies.settle_unread_body(Response(status=status))
        response.close()  # the answer is out: what is left of the body is drained now
        return stream.tell() == len(body), stream.failed


def test_an_unread_small_body_is_drained_and_the_connection_kept(app):
    assert settle(app, b"{}" * 100, read=False, status=401) == (True, False)
    assert settle(app, b"{}" * 100, read=True, status=422) == (True, False)


def test_an_unread_large_body_closes_the_connection(app):
    assert settle(app, b" " * (bodies.DRAIN_UNREAD_BYTES + 1), read=False, status=401) == (
        False,
        True,
    )


def test_a_large_body_read_before_an_error_keeps_the_connection(app):
    assert settle(app, b" " * (bodies.DRAIN_UNREAD_BYTES + 1), read=True, status=422) == (
        True,
        False,
    )
