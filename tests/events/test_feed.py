"""The events list newest first (``before``): a feed's first page, older pages through
``next_before``, the same filters and the same access rule as the oldest-first list."""

from tests.access.conftest import grant
from tests.resources import actors, create_dataset  # noqa: F401  (actors: a fixture)

NEWEST = 2**31 - 1


def feed(client, headers, **query):
    response = client.get("/api/v1/events/", query_string=query, headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def ids(page):
    return [int(item["id"]) for item in page["items"]]


def test_newest_first_in_pages_until_none_is_left(client, actors):
    editor = actors["editor"].headers
    for number in range(5):
        create_dataset(client, editor, f"feed {number}")
    everything = ids(feed(client, editor, limit=100))
    first = feed(client, editor, before=NEWEST, limit=2)
    assert ids(first) == everything[::-1][:2]
    assert first["next_before"] == ids(first)[-1]
    second = feed(client, editor, before=first["next_before"], limit=2)
    assert ids(second) == everything[::-1][2:4]
    last = feed(client, editor, before=everything[1], limit=2)
    assert ids(last) == everything[:1]
    assert last["next_before"] is None
    assert first["next_after"] == everything[-1]  # where to poll from for newer events


def test_the_feed_keeps_filters_and_shows_only_what_the_caller_may_read(client, actors):
    editor, viewer = actors["editor"].headers, actors["viewer"].headers
    hidden = create_dataset(client, editor, "feed hidden", visibility="private")
    shown = create_dataset(client, editor, "feed shown")
    sources = [item["source"] for item in feed(client, viewer, before=NEWEST)["items"]]
    assert sources == [f"/api/v1/datasets/{shown['id']}"]
    grant(client, editor, "datasets", hidden["id"], f"user:{actors['viewer'].id}", "read")
    page = feed(client, viewer, before=NEWEST, dataset_id=hidden["id"])
    assert [item["source"] for item in page["items"]] == [f"/api/v1/datasets/{hidden['id']}"]
    typed = feed(client, editor, before=NEWEST, type="datahub.dataset.updated")
    assert typed["items"] == []


def test_a_before_out_of_range_is_a_422(client, actors):
    response = client.get(
        "/api/v1/events/", query_string={"before": 0}, headers=actors["viewer"].headers
    )
    assert response.status_code == 422
    assert response.get_json()["detail"][0]["loc"] == ["query", "before"]
