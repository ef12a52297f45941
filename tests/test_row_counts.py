"""``total`` of an unfiltered list comes from ``row_counts``, kept by triggers (0005)."""

import flask_migrate
import pytest
import sqlalchemy as sa

from datahub.app.extensions import db


def kept(app, table):
    with app.app_context():
        value = db.session.scalar(
            sa.text("SELECT row_count FROM row_counts WHERE table_name = :t"), {"t": table}
        )
        counted = db.session.scalar(sa.text(f"SELECT count(*) FROM {table}"))
        db.session.remove()
    return value, counted


@pytest.mark.parametrize("resource", ["datasets", "collections"])
def test_the_kept_count_follows_creates_and_deletes(app, client, auth_headers, resource):
    headers = auth_headers(roles=("editor",))
    url = f"/api/v1/{resource}/"
    ids = [
        client.post(url, json={"name": f"item {i}"}, headers=headers).get_json()["id"]
        for i in range(3)
    ]
    assert client.delete(f"{url}{ids[1]}", headers=headers).status_code == 204
    assert client.post(url, json={"name": "item 0"}, headers=headers).status_code == 409
    assert kept(app, resource) == (2, 2)
    assert client.get(url, headers=headers).get_json()["total"] == 2


def test_a_rolled_back_insert_leaves_the_count_alone(app, make_user):
    from datahub.platform.database import utcnow

    owner = make_user().id
    with app.app_context():
        now = utcnow()
        db.session.execute(
            sa.text(
                "INSERT INTO datasets (name, name_key, description, owner_id, created_at, updated_at)"
                " VALUES ('x', 'x', '', :owner, :now, :now)"
            ),
            {"owner": owner, "now": now},
        )
        db.session.rollback()
        db.session.remove()
    assert kept(app, "datasets") == (0, 0)


def test_an_unfiltered_list_reads_the_kept_count_and_a_filtered_one_counts(
    app, client, auth_headers
):
    headers = auth_headers(roles=("editor",))
    client.post("/api/v1/datasets/", json={"name": "one"}, headers=headers)
    with app.app_context():
        with db.engine.begin() as conn:  # what only the kept count can explain
            conn.execute(
                sa.text("UPDATE row_counts SET row_count = 42 WHERE table_name = 'datasets'")
            )
    assert client.get("/api/v1/datasets/", headers=headers).get_json()["total"] == 42
    assert client.get("/api/v1/datasets/?owner=me", headers=headers).get_json()["total"] == 1
    assert client.get("/api/v1/datasets/?q=on", headers=headers).get_json()["total"] == 1
    with app.app_context():
        with db.engine.begin() as conn:
            conn.execute(
                sa.text("UPDATE row_counts SET row_count = 1 WHERE table_name = 'datasets'")
            )


def test_the_migration_counts_the_rows_already_there(app, client, auth_headers):
    headers = auth_headers(roles=("editor",))
    for name in ("a", "b"):
        client.post("/api/v1/datasets/", json={"name": name}, headers=headers)
    with app.app_context():
        flask_migrate.downgrade(revision="0004")
        flask_migrate.upgrade()
        db.session.remove()
    assert kept(app, "datasets") == (2, 2)
    assert kept(app, "pipelines") == (0, 0)
    assert client.get("/api/v1/datasets/", headers=headers).get_json()["total"] == 2
