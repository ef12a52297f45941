"""Who sees which events (docs/guides/events.rst, "Who sees which events"): those about
what the caller may read now; of a deleted resource, its owner's and, when it was not
private, everyone's. The list's query, paging and filters."""

import pytest

from tests.access.conftest import grant
from tests.events.test_outbox import EVENTS, events, types
from tests.pipelines.helpers import create_pipeline, source
from tests.resources import actors, create_dataset  # noqa: F401  (actors: a fixture)


def sources(items):
    return [item["source"] for item in items]


def test_a_private_dataset_s_events_reach_only_who_may_read_it(client, actors):
    editor, viewer = actors["editor"].headers, actors["viewer"].headers
    hidden = create_dataset(client, editor, "hidden", visibility="private")
    shown = create_dataset(client, editor, "shown", visibility="internal")
    path = f"/api/v1/datasets/{hidden['id']}"
    assert sources(events(client, viewer)) == [f"/api/v1/datasets/{shown['id']}"]
    assert sources(events(client, actors["other_editor"].headers)) == sources(
        events(client, viewer)
    )
    assert path in sources(events(client, editor))  # the owner
    assert path in sources(events(client, actors["admin"].headers))

    grant(client, editor, "datasets", hidden["id"], f"user:{actors['viewer'].id}", "read")
    assert path in sources(events(client, viewer))  # what it may read now, earlier events too

    assert client.patch(path, json={"visibility": "internal"}, headers=editor).status_code == 200
    assert path in sources(events(client, actors["other_editor"].headers))


def test_a_deleted_resource_s_events_stay_with_who_could_see_it(client, actors):
    editor, viewer = actors["editor"].headers, actors["viewer"].headers
    private = create_dataset(client, editor, "private one", visibility="private")
    internal = create_dataset(client, editor, "internal one")
    grant(client, editor, "datasets", private["id"], f"user:{actors['viewer'].id}", "read")
    for dataset in (private, internal):
        assert client.delete(f"/api/v1/datasets/{dataset['id']}", headers=editor).status_code == 204
    private_path = f"/api/v1/datasets/{private['id']}"
    internal_path = f"/api/v1/datasets/{internal['id']}"
    assert types(events(client, viewer)) == ["datahub.dataset.created", "datahub.dataset.deleted"]
    assert set(sources(events(client, viewer))) == {internal_path}
    assert sources(events(client, editor)).count(private_path) == 2


def test_a_private_pipeline_s_runs_are_its_readers_events(client, actors):
    editor, viewer = actors["editor"].headers, actors["viewer"].headers
    people = source(client, editor)
    pipeline = create_pipeline(client, editor, people["id"], visibility="private")
    assert (
        client.post(f"/api/v1/pipelines/{pipeline['id']}/runs", headers=editor).status_code == 201
    )
    assert types(events(client, viewer)) == [
        "datahub.dataset.created",
        "datahub.dataset.version.created",
    ]
    assert types(events(client, editor))[-2:] == ["datahub.pipeline.created", "datahub.run.queued"]


def test_paging_and_filters(client, actors):
    editor = actors["editor"].headers
    first = create_dataset(client, editor, "first")
    second = create_dataset(client, editor, "second")
    client.patch(f"/api/v1/datasets/{first['id']}", json={"description": "x"}, headers=editor)
    everything = events(client, editor)
    assert len(everything) == 3

    page = client.get(EVENTS, query_string={"limit": 2}, headers=editor).get_json()
    assert page["items"] == everything[:2]
    assert page["next_after"] == int(everything[1]["id"])
    rest = client.get(EVENTS, query_string={"after": page["next_after"]}, headers=editor)
    assert rest.get_json()["items"] == everything[2:]

    updated = events(client, editor, type="datahub.dataset.updated")
    assert sources(updated) == [f"/api/v1/datasets/{first['id']}"]
    about = events(client, editor, dataset_id=second["id"])
    assert sources(about) == [f"/api/v1/datasets/{second['id']}"]

    nothing = client.get(EVENTS, query_string={"after": 2**31 - 1}, headers=editor).get_json()
    assert nothing == {"items": [], "next_after": 2**31 - 1}


@pytest.mark.parametrize(
    "query, loc",
    [
        ({"type": "datahub.dataset.renamed"}, ["query", "type"]),
        ({"after": -1}, ["query", "after"]),
        ({"after": "x"}, ["query", "after"]),
        ({"limit": 101}, ["query", "limit"]),
        ({"limit": 0}, ["query", "limit"]),
        ({"dataset_id": 0}, ["query", "dataset_id"]),
    ],
)
def test_a_bad_query_is_a_422(client, actors, query, loc):
    response = client.get(EVENTS, query_string=query, headers=actors["viewer"].headers)
    assert response.status_code == 422
    assert [error["loc"] for error in response.get_json()["detail"]] == [loc]


def test_events_need_a_login(client):
    response = client.get(EVENTS)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Not authenticated"}
