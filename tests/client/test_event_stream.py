"""datahub_client's ``events_stream`` against a real gunicorn whose access tokens live
3 seconds: the stream ends each time the token expires, and the client renews the token
and resumes after the last event it yielded, losing and repeating none."""

import threading
import time

import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture
def done():
    """Set at the test's end: the follower opens no stream again (the server is gone)."""
    stop = threading.Event()
    yield stop
    stop.set()


@pytest.fixture
def gunicorn_env():
    """The test asks for gunicorn_server: its own server, with these settings."""
    return {"DATAHUB_JWT_ACCESS_TOKEN_EXPIRES": "3", "DATAHUB_RATELIMIT_ENABLED": "false"}


def test_the_stream_resumes_across_expired_tokens_without_a_loss_or_a_repeat(
    gunicorn_server, client, unique, done
):
    received, opened = [], []
    request = client.request

    def counting(method, path, **kwargs):
        if path.endswith("/events/stream"):
            opened.append(kwargs.get("headers", {}).get("Last-Event-ID"))
        return request(method, path, **kwargs)

    client.request = counting

    def follow():
        for event in client.events_stream(type="datahub.dataset.created", stop=done):
            received.append(event)

    threading.Thread(target=follow, daemon=True).start()
    time.sleep(1)  # it is open: from now on
    created = []
    for n in range(8):  # over about 8 s: across two or three expiries and reconnects
        created.append(client.dataset_create(unique(f"streamed {n}")))
        time.sleep(1)
    deadline = time.monotonic() + 20
    while len(received) < len(created):
        assert time.monotonic() < deadline, (received, created)
        time.sleep(0.1)
    time.sleep(1)
    assert [e["source"] for e in received] == [f"/api/v1/datasets/{d['id']}" for d in created]
    ids = [int(e["id"]) for e in received]
    assert ids == sorted(set(ids))
    assert opened[0] is None and len(opened) >= 3, opened  # reopened, each time after
    assert set(opened[1:]) <= {str(i) for i in ids}, opened  # the last event it yielded
