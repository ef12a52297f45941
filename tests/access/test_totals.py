"""A list's total for a user who is not an admin: the kept counts of migration 0010 and
the grants' ``resource_private`` of 0011, kept exact by their triggers through every
write (docs/guides/access.rst)."""

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from tests.access.conftest import grant, make_group
from tests.pipelines.helpers import create_pipeline
from tests.resources import create_collection, create_dataset

DATASETS = "/api/v1/datasets/"


def make(client, headers, kind, name, visibility):
    if kind == "datasets":
        return create_dataset(client, headers, name, visibility=visibility)
    if kind == "collections":
        return create_collection(client, headers, name, visibility=visibility)
    source = create_dataset(client, headers, f"{name} source")
    return create_pipeline(
        client, headers, source["id"], name=name, output=f"{name} output", visibility=visibility
    )


def total(client, headers, kind):
    page = client.get(f"/api/v1/{kind}/", headers=headers)
    assert page.status_code == 200, page.get_json()
    return page.get_json()["total"]


def listed(client, headers, kind):
    page = client.get(f"/api/v1/{kind}/?limit=100", headers=headers).get_json()
    return len(page["items"])


def test_the_kept_private_count_follows_every_write(app, client, actors):
    """Migration 0010's triggers: inserts, visibility changes and deletes keep
    ``datasets:private`` exact, and a viewer's unfiltered total is what it may read."""
    editor, viewer = actors["editor"], actors["viewer"]

    def kept_and_actual():
        with app.app_context():
            kept = db.session.scalar(
                sa.text("SELECT row_count FROM row_counts WHERE table_name = 'datasets:private'")
            )
            actual = db.session.scalar(
                sa.text("SELECT count(*) FROM datasets WHERE visibility = 'private'")
            )
            return kept, actual

    made = [create_dataset(client, editor.headers, f"d{i}", visibility="private") for i in range(3)]
    create_dataset(client, editor.headers, "open")
    assert kept_and_actual() == (3, 3)
    url = f"{DATASETS}{made[0]['id']}"
    assert (
        client.patch(url, json={"visibility": "internal"}, headers=editor.headers).status_code
        == 200
    )
    assert client.patch(url, json={"description": "x"}, headers=editor.headers).status_code == 200
    assert kept_and_actual() == (2, 2)
    assert client.delete(f"{DATASETS}{made[1]['id']}", headers=editor.headers).status_code == 204
    assert kept_and_actual() == (1, 1)
    grant(client, editor.headers, "datasets", made[2]["id"], f"user:{viewer.id}", "read")
    assert client.get(DATASETS, headers=viewer.headers).get_json()["total"] == 3
    assert client.get(DATASETS, headers=actors["other_editor"].headers).get_json()["total"] == 2


@pytest.mark.parametrize("kind", ["datasets", "collections", "pipelines"])
def test_a_grantees_total_follows_visibility_changes_both_ways(app, client, actors, kind):
    """Grants made on internal and on private rows, by user and by group; the rows then
    change visibility, both ways: the total always equals the rows the list shows. A
    grant that kept a stale ``resource_private`` counts its row twice or not at all."""
    editor, viewer = actors["editor"], actors["viewer"]
    group_id = make_group(app, "readers", viewer.id)
    rows = [
        make(client, editor.headers, kind, f"{kind} {i}", visibility)
        for i, visibility in enumerate(["internal", "private", "internal", "private"])
    ]
    for row, principal in zip(rows, [f"user:{viewer.id}", f"group:{group_id}"] * 2, strict=True):
        grant(client, editor.headers, kind, row["id"], principal, "read")
    unrelated = make(client, editor.headers, kind, f"{kind} closed", "private")
    # One change at a time: two stale flags changed together could cancel out.
    states = [{0: "private"}, {1: "internal"}, {2: "private"}, {0: "internal"}, {1: "private"}]
    expected = listed(client, viewer.headers, kind)
    for state in states:
        for index, visibility in state.items():
            changed = client.patch(
                f"/api/v1/{kind}/{rows[index]['id']}",
                json={"visibility": visibility},
                headers=editor.headers,
            )
            assert changed.status_code == 200, changed.get_json()
        assert total(client, viewer.headers, kind) == listed(client, viewer.headers, kind)
        assert listed(client, viewer.headers, kind) == expected
    assert (
        client.get(f"/api/v1/{kind}/{unrelated['id']}", headers=viewer.headers).status_code == 404
    )


def test_grants_keep_whether_their_resource_is_private(app, client, actors):
    """The flag itself, as the triggers keep it: copied when a grant is made, rewritten
    when the resource's visibility changes, and for that resource's grants only."""
    editor, viewer = actors["editor"], actors["viewer"]
    closed = create_dataset(client, editor.headers, "closed", visibility="private")
    shown = create_dataset(client, editor.headers, "shown")
    for dataset in (closed, shown):
        grant(client, editor.headers, "datasets", dataset["id"], f"user:{viewer.id}", "read")

    def flags():
        with app.app_context():
            rows = db.session.execute(
                sa.text("SELECT resource_id, resource_private FROM dataset_grants")
            )
            return {resource: bool(private) for resource, private in rows}

    assert flags() == {closed["id"]: True, shown["id"]: False}
    url = f"{DATASETS}{closed['id']}"
    assert (
        client.patch(url, json={"visibility": "internal"}, headers=editor.headers).status_code
        == 200
    )
    assert flags() == {closed["id"]: False, shown["id"]: False}
    url = f"{DATASETS}{shown['id']}"
    assert (
        client.patch(url, json={"visibility": "private"}, headers=editor.headers).status_code == 200
    )
    assert flags() == {closed["id"]: False, shown["id"]: True}


def test_0011_finds_which_existing_grants_are_on_private_rows(app, client, actors):
    """Grants made before migration 0011: the upgrade sets their ``resource_private`` from
    their rows, so a grantee's total is right at once."""
    import flask_migrate

    editor, viewer = actors["editor"], actors["viewer"]
    for i, visibility in enumerate(["private", "private", "internal"]):
        row = create_dataset(client, editor.headers, f"d{i}", visibility=visibility)
        grant(client, editor.headers, "datasets", row["id"], f"user:{viewer.id}", "read")
    create_dataset(client, editor.headers, "closed", visibility="private")
    with app.app_context():
        flask_migrate.downgrade(revision="0010")
        try:
            with db.engine.connect() as conn:
                columns = {c["name"] for c in sa.inspect(conn).get_columns("dataset_grants")}
                assert "resource_private" not in columns
        finally:
            flask_migrate.upgrade()
        db.session.remove()
    assert total(client, viewer.headers, "datasets") == listed(client, viewer.headers, "datasets")
    assert total(client, viewer.headers, "datasets") == 3
