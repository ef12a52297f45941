"""GET /api/v1/events/stream through the Flask test client, where the request's own
thread streams (docs/guides/events.rst, "The live stream"): the framing, resuming after
``Last-Event-ID``, who sees which events, filters, and the end of a stream whose token is
revoked. tests/e2e/test_event_stream.py runs it under gunicorn, held by the stream hub."""

import pytest

from tests.access.conftest import personal_token
from tests.conftest import bearer, login
from tests.events.sse import SSEReader, read_until
from tests.resources import actors, create_dataset  # noqa: F401  (actors: a fixture)

STREAM = "/api/v1/events/stream"


@pytest.fixture(autouse=True)
def quick_polls(app):
    app.config["EVENTS_STREAM_POLL_SECONDS"] = 0.01
    app.config["EVENTS_STREAM_RECHECK_SECONDS"] = 0.05


def open_stream(client, headers, **query):
    response = client.get(
        STREAM, headers=headers, query_string=query.pop("query", {}), buffered=False, **query
    )
    assert response.status_code == 200, response.get_data()
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Accel-Buffering"] == "no"
    return response, iter(response.response)


def messages(chunks, count):
    reader = read_until(chunks, SSEReader(), lambda r: len(r.messages) >= count)
    return reader.messages


def test_the_stream_sends_new_events_as_cloud_events_with_their_ids(client, actors):
    editor = actors["editor"].headers
    response, chunks = open_stream(client, editor)
    first = read_until(chunks, SSEReader(), lambda r: r.comments)
    assert first.retry == 2000 and first.messages == []
    dataset = create_dataset(client, editor, "streamed")
    (message,) = messages(chunks, 1)
    event = message["data"]
    assert message["id"] == event["id"]
    assert event["type"] == "datahub.dataset.created"
    assert event["source"] == f"/api/v1/datasets/{dataset['id']}"
    assert event["specversion"] == "1.0" and event["data"]["name"] == "streamed"
    listed = client.get("/api/v1/events", headers=editor).get_json()["items"]
    assert event in listed  # the same event as the list's
    response.close()


def test_last_event_id_resumes_after_it_and_after_does_too(client, actors):
    editor = actors["editor"].headers
    ids = [int(create_dataset(client, editor, f"d{n}")["id"]) for n in range(3)]
    listed = client.get("/api/v1/events", headers=editor).get_json()["items"]
    first_id = int(listed[0]["id"])
    _, chunks = open_stream(client, {**editor, "Last-Event-ID": str(first_id)})
    got = messages(chunks, 2)
    assert [int(m["id"]) for m in got] == [int(e["id"]) for e in listed[1:3]]
    assert [m["data"]["data"]["id"] for m in got] == ids[1:]
    _, chunks = open_stream(client, editor, query={"after": first_id})
    assert [m["id"] for m in messages(chunks, 2)] == [m["id"] for m in got]
    # Last-Event-ID wins over after.
    _, chunks = open_stream(
        client, {**editor, "Last-Event-ID": listed[1]["id"]}, query={"after": first_id}
    )
    assert [m["id"] for m in messages(chunks, 1)] == [listed[2]["id"]]


def test_a_stream_carries_only_what_its_caller_may_read(client, actors):
    editor, viewer = actors["editor"].headers, actors["viewer"].headers
    _, chunks = open_stream(client, viewer)
    create_dataset(client, editor, "hidden", visibility="private")
    shown = create_dataset(client, editor, "shown")
    (message,) = messages(chunks, 1)
    assert message["data"]["source"] == f"/api/v1/datasets/{shown['id']}"


def test_filters_by_type_and_dataset(client, actors):
    editor = actors["editor"].headers
    one, two = create_dataset(client, editor, "one"), create_dataset(client, editor, "two")
    _, by_type = open_stream(client, editor, query={"type": "datahub.dataset.updated"})
    _, by_dataset = open_stream(client, editor, query={"dataset_id": two["id"]})
    for dataset in (one, two):
        path = f"/api/v1/datasets/{dataset['id']}"
        assert client.patch(path, json={"description": "x"}, headers=editor).status_code == 200
    assert [m["data"]["source"] for m in messages(by_type, 2)] == [
        f"/api/v1/datasets/{one['id']}",
        f"/api/v1/datasets/{two['id']}",
    ]
    (only,) = messages(by_dataset, 1)
    assert only["data"]["type"] == "datahub.dataset.updated"
    assert only["data"]["source"] == f"/api/v1/datasets/{two['id']}"


def test_a_revoked_token_ends_its_stream_with_a_comment_saying_so(client, actors):
    token = personal_token(client, actors["editor"], ["read"])
    _, chunks = open_stream(client, token.headers)
    read_until(chunks, SSEReader(), lambda r: r.comments)
    (listed,) = client.get("/api/v1/auth/tokens", headers=actors["editor"].headers).get_json()[
        "items"
    ]
    revoked = client.delete(f"/api/v1/auth/tokens/{listed['id']}", headers=actors["editor"].headers)
    assert revoked.status_code == 204
    reader = SSEReader()
    for chunk in chunks:  # the stream ends
        reader.feed(chunk)
    assert reader.comments == ["Invalid token"]


@pytest.mark.parametrize(
    ("headers", "query", "loc"),
    [
        ({"Last-Event-ID": "x1"}, {}, ["header", "Last-Event-ID"]),
        ({"Last-Event-ID": "-1"}, {}, ["header", "Last-Event-ID"]),
        ({}, {"type": "datahub.nothing"}, ["query", "type"]),
        ({}, {"after": "-1"}, ["query", "after"]),
        ({}, {"dataset_id": "0"}, ["query", "dataset_id"]),
    ],
)
def test_bad_resume_points_and_filters_are_422(client, actors, headers, query, loc):
    response = client.get(
        STREAM, headers={**actors["viewer"].headers, **headers}, query_string=query
    )
    assert response.status_code == 422
    assert [error["loc"] for error in response.get_json()["detail"]] == [loc]


def test_without_a_token_it_is_the_contract_s_401(client):
    response = client.get(STREAM)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Not authenticated"}
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_a_user_without_a_role_is_403(client, actors):
    response = client.get(STREAM, headers=actors["nobody"].headers)
    assert response.status_code == 403
    assert response.get_json() == {"detail": "Forbidden"}


def test_head_answers_the_stream_s_headers_only(client, actors):
    response = client.head(STREAM, headers=actors["viewer"].headers)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.get_data() == b""


@pytest.fixture
def slow_rechecks(app):
    """Rechecks far apart: what a test sees happened at once, not at a recheck."""
    app.config["EVENTS_STREAM_RECHECK_SECONDS"] = 600


def test_a_demotion_applies_from_the_next_event_sent(client, actors, make_user, slow_rechecks):
    editor, admin = actors["editor"].headers, actors["admin"]
    make_user(email="boss@example.com", roles=("admin",))
    boss = bearer(login(client, "boss@example.com").get_json()["access_token"])
    _, chunks = open_stream(client, admin.headers)
    create_dataset(client, editor, "seen while admin", visibility="private")
    assert messages(chunks, 1)[0]["data"]["data"]["name"] == "seen while admin"
    demoted = client.patch(f"/api/v1/users/{admin.id}", json={"roles": ["viewer"]}, headers=boss)
    assert demoted.status_code == 200, demoted.get_json()
    create_dataset(client, editor, "private after", visibility="private")
    create_dataset(client, editor, "internal after")
    reader = read_until(chunks, SSEReader(), lambda r: names(r)[-1:] == ["internal after"])
    assert names(reader) == ["internal after"]


def names(reader):
    return [message["data"]["data"]["name"] for message in reader.messages]


@pytest.mark.parametrize("token", ["login", "personal"])
def test_a_deactivation_ends_the_stream_before_anything_more_is_sent(
    client, actors, slow_rechecks, token
):
    viewer = actors["viewer"]
    headers = (
        viewer.headers if token == "login" else personal_token(client, viewer, ["read"]).headers
    )
    _, chunks = open_stream(client, headers)
    read_until(chunks, SSEReader(), lambda r: r.comments)
    path = f"/api/v1/users/{viewer.id}"
    response = client.patch(path, json={"is_active": False}, headers=actors["admin"].headers)
    assert response.status_code == 200, response.get_json()
    create_dataset(client, actors["editor"].headers, "after the deactivation")
    reader = read_until(chunks, SSEReader(), lambda r: r.messages or r.comments)
    assert (reader.messages, reader.comments) == ([], ["Invalid token"])
    assert next(chunks, None) is None  # the stream ended


def test_a_revoked_grant_hides_the_next_events(client, actors):
    editor, viewer = actors["editor"].headers, actors["viewer"]
    secret = create_dataset(client, editor, "secret", visibility="private")
    grants = f"/api/v1/datasets/{secret['id']}/grants"
    body = {"principal": f"user:{viewer.id}", "permission": "read"}
    grant = client.post(grants, json=body, headers=editor).get_json()
    _, chunks = open_stream(client, viewer.headers)
    path = f"/api/v1/datasets/{secret['id']}"
    assert client.patch(path, json={"description": "one"}, headers=editor).status_code == 200
    assert messages(chunks, 1)[0]["data"]["source"] == path
    assert client.delete(f"{grants}/{grant['id']}", headers=editor).status_code == 204
    assert client.patch(path, json={"description": "two"}, headers=editor).status_code == 200
    shown = create_dataset(client, editor, "shown")
    (message,) = messages(chunks, 1)
    assert message["data"]["source"] == f"/api/v1/datasets/{shown['id']}"
