"""Every change to a dataset, a version, a pipeline or a run writes its CloudEvent in the
change's own transaction: one event per change, none for a change that failed, ids in the
order they became visible (docs/guides/events.rst)."""

import json
import threading

import pytest
import sqlalchemy as sa
from cloudevents.core.formats.json import JSONFormat
from sqlalchemy import event as sa_event

from datahub.app.extensions import db
from datahub.events import outbox
from tests.pipelines.helpers import create_pipeline, run_now, source
from tests.resources import (  # noqa: F401  (actors: a fixture)
    actors,
    at_once,
    create_dataset,
    upload,
)

EVENTS = "/api/v1/events"


def events(client, headers, **params):
    """Every event the caller may read, following ``next_after`` page by page."""
    items, after = [], params.pop("after", 0)
    while True:
        response = client.get(EVENTS, query_string={"after": after, **params}, headers=headers)
        assert response.status_code == 200, response.get_json()
        page = response.get_json()
        items += page["items"]
        if not page["items"]:
            assert page["next_after"] == after
            return items
        assert page["next_after"] == int(page["items"][-1]["id"])
        after = page["next_after"]


def last_id(client, headers):
    items = events(client, headers)
    return int(items[-1]["id"]) if items else 0


def types(items):
    return [item["type"] for item in items]


def test_each_change_writes_one_cloud_event(client, actors):
    editor, admin = actors["editor"].headers, actors["admin"].headers
    people = source(client, editor)  # created, then its first version
    changed = client.patch(
        f"/api/v1/datasets/{people['id']}", json={"description": "x"}, headers=editor
    )
    assert changed.status_code == 200
    pipeline = create_pipeline(client, editor, people["id"], output="adults")
    run = run_now(client.application, client, editor, pipeline["id"])
    assert run["status"] == "succeeded"
    assert (
        client.patch(
            f"/api/v1/pipelines/{pipeline['id']}", json={"description": "y"}, headers=editor
        ).status_code
        == 200
    )
    assert client.delete(f"/api/v1/pipelines/{pipeline['id']}", headers=editor).status_code == 204
    assert client.delete(f"/api/v1/datasets/{people['id']}", headers=editor).status_code == 204

    items = events(client, admin)
    assert types(items) == [
        "datahub.dataset.created",
        "datahub.dataset.version.created",
        "datahub.dataset.updated",
        "datahub.pipeline.created",
        "datahub.run.queued",
        "datahub.run.started",
        "datahub.dataset.created",  # the run's output dataset, with its first version
        "datahub.dataset.version.created",
        "datahub.run.succeeded",
        "datahub.pipeline.updated",
        "datahub.pipeline.deleted",
        "datahub.dataset.deleted",
    ]
    ids = [int(item["id"]) for item in items]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    for item in items:  # CloudEvents 1.0, as its SDK reads them (it checks the spec's rules)
        event = JSONFormat().read(None, json.dumps(item))
        assert event.get_specversion() == "1.0"
        assert event.get_datacontenttype() == "application/json"
        assert event.get_data() == item["data"]
        assert item["time"].endswith("Z")

    created, version = items[0], items[1]
    assert created["source"] == f"/api/v1/datasets/{people['id']}"
    assert (
        created["data"]["name"] == "people" and created["data"]["owner_id"] == actors["editor"].id
    )
    assert version["source"] == f"/api/v1/datasets/{people['id']}/versions/1"
    assert version["data"]["version"] == 1 and version["data"]["dataset_id"] == people["id"]
    assert version["data"]["created_by"] == actors["editor"].id
    succeeded = items[8]
    assert succeeded["source"] == f"/api/v1/pipelines/{pipeline['id']}/runs/{run['id']}"
    assert succeeded["data"]["status"] == "succeeded"
    assert succeeded["data"]["output_dataset_id"] == run["output_dataset_id"]
    assert items[7]["data"]["run_id"] == run["id"]
    assert items[-1]["data"]["id"] == people["id"]  # a deleted dataset's event tells what it was


def test_a_failed_change_writes_no_event(client, actors):
    editor, admin = actors["editor"].headers, actors["admin"].headers
    dataset = create_dataset(client, editor, "taken")
    before = events(client, admin)
    assert (
        client.post("/api/v1/datasets/", json={"name": "TAKEN"}, headers=editor).status_code == 409
    )
    assert (
        client.patch(
            f"/api/v1/datasets/{dataset['id']}", json={"name": ""}, headers=editor
        ).status_code
        == 422
    )
    assert upload(client, editor, dataset["id"], b"").status_code == 400
    assert (
        client.delete(
            f"/api/v1/datasets/{dataset['id']}", headers=actors["viewer"].headers
        ).status_code
        == 403
    )
    assert events(client, admin) == before


def test_an_event_that_cannot_be_written_fails_its_change(app, client, actors, monkeypatch):
    """The event is written in the change's transaction: when its statement fails, the
    change is not committed either (a create answers with the contract's error body and
    leaves no dataset; an update leaves the row as it was)."""
    from datahub.datasets.event_data import describe_dataset
    from datahub.datasets.models import Dataset

    editor = actors["editor"].headers
    dataset = create_dataset(client, editor, "kept")
    with app.app_context():
        dialect = db.engine.dialect
    broken = {(dialect.name, dialect.driver): ("INSERT INTO no_such_table VALUES (1)", [])}
    monkeypatch.setattr(outbox, "_INSERTS", broken)
    response = client.post("/api/v1/datasets/", json={"name": "lost"}, headers=editor)
    assert response.status_code in (500, 503) and set(response.get_json()) == {"detail"}
    with app.app_context():
        row = db.session.get(Dataset, dataset["id"])
        row.description = "changed"
        outbox.record("datahub.dataset.updated", row, describe_dataset)
        with pytest.raises(sa.exc.DBAPIError):
            db.session.commit()
        db.session.rollback()
    monkeypatch.undo()
    names = [
        item["name"] for item in client.get("/api/v1/datasets/", headers=editor).get_json()["items"]
    ]
    assert "lost" not in names
    again = client.get(f"/api/v1/datasets/{dataset['id']}", headers=editor).get_json()
    assert again["description"] != "changed"


def test_a_rolled_back_transaction_leaves_no_event_for_the_next_commit(app, client, actors):
    """Events recorded in a transaction that rolls back are forgotten with it: the same
    session's next commit does not write them."""
    from datahub.datasets.event_data import describe_dataset
    from datahub.datasets.models import Dataset

    admin = actors["admin"].headers
    dataset = create_dataset(client, actors["editor"].headers, "kept")
    start = last_id(client, admin)
    with app.app_context():
        row = db.session.get(Dataset, dataset["id"])
        outbox.record("datahub.dataset.updated", row, describe_dataset)
        db.session.rollback()
        db.session.commit()
    assert events(client, admin, after=start) == []


def test_a_run_that_fails_says_so(client, actors):
    editor, admin = actors["editor"].headers, actors["admin"].headers
    people = source(client, editor)
    pipeline = create_pipeline(
        client, editor, people["id"], steps=[{"op": "select", "columns": ["missing"]}]
    )
    run = run_now(client.application, client, editor, pipeline["id"])
    assert run["status"] == "failed"
    failed = events(client, admin, type="datahub.run.failed")
    assert [item["data"]["error"] for item in failed] == [run["error"]]


def test_a_cancelled_run_says_so(client, actors):
    editor, admin = actors["editor"].headers, actors["admin"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    run = client.post(f"/api/v1/pipelines/{pipeline['id']}/runs", headers=editor).get_json()
    cancel = client.post(
        f"/api/v1/pipelines/{pipeline['id']}/runs/{run['id']}/cancel", headers=editor
    )
    assert cancel.status_code == 200, cancel.get_json()
    again = client.post(
        f"/api/v1/pipelines/{pipeline['id']}/runs/{run['id']}/cancel", headers=editor
    )
    assert again.status_code == 200  # a finished run is answered as it is: no second event
    runs = events(client, admin, type="datahub.run.cancelled")
    assert [item["data"]["id"] for item in runs] == [run["id"]]


def test_a_reader_paging_while_changes_commit_misses_none(client, actors):
    """Ids are committed in the order they are given, so a reader paging with ``after``
    while eight requests create datasets at once sees every event, in order."""
    editor, admin = actors["editor"].headers, actors["admin"].headers
    start = last_id(client, admin)
    writers_done, seen = threading.Event(), []

    def read():
        cursor = start
        while True:
            finished = writers_done.is_set()  # before the page: it then holds the last
            page = client.get(EVENTS, query_string={"after": cursor}, headers=admin).get_json()
            seen.extend(int(item["id"]) for item in page["items"])
            cursor = page["next_after"]
            if finished and not page["items"]:
                return

    reader = threading.Thread(target=read)
    reader.start()
    at_once(8, lambda i: [create_dataset(client, editor, f"d{i}-{n}") for n in range(5)])
    writers_done.set()
    reader.join(60)
    everything = [int(item["id"]) for item in events(client, admin, after=start)]
    assert len(everything) == 40
    assert seen == everything


def test_a_later_event_is_never_visible_before_an_earlier_one(client, actors):
    """Request A's event has its id but A has not committed yet: request B, which changes
    another user's dataset, cannot commit its event (a later id) before A does. Without
    the outbox's ordering, B's event would be visible alone, and a reader taking B's id as
    its ``after`` would never see A's."""
    editor, other, admin = (actors[key].headers for key in ("editor", "other_editor", "admin"))
    b = create_dataset(client, other, "b")
    a_has_its_id, b_done = threading.Event(), threading.Event()
    seen_when_b_was_done = []

    def hold_a(_conn, _cursor, statement, *_args):
        if threading.current_thread().name == "A" and statement.startswith("INSERT INTO events"):
            a_has_its_id.set()
            b_done.wait(2)  # B finishes meanwhile only if it need not wait for A

    def request_a():
        patch = client.patch(
            f"/api/v1/datasets/{a['id']}", json={"description": "A"}, headers=editor
        )
        assert patch.status_code == 200

    def request_b():
        assert a_has_its_id.wait(30)
        patch = client.patch(
            f"/api/v1/datasets/{b['id']}", json={"description": "B"}, headers=other
        )
        assert patch.status_code == 200
        seen_when_b_was_done.extend(item["source"] for item in events(client, admin, after=start))
        b_done.set()

    a = create_dataset(client, editor, "a")
    start = last_id(client, admin)
    with client.application.app_context():
        engine = db.engine
    sa_event.listen(engine, "after_cursor_execute", hold_a)
    try:
        threads = [threading.Thread(target=request_a, name="A"), threading.Thread(target=request_b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        sa_event.remove(engine, "after_cursor_execute", hold_a)
    in_order = [f"/api/v1/datasets/{a['id']}", f"/api/v1/datasets/{b['id']}"]
    assert seen_when_b_was_done == in_order
    assert [item["source"] for item in events(client, admin, after=start)] == in_order
