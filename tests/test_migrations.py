"""The migrations (SQLite and PostgreSQL): 0003 on a database that already has logins, and
the models agreeing with what the migrations build."""

import pprint
import uuid
from datetime import timedelta

import flask_migrate
import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime, utcnow
from tests.identity.auth.helpers import COOKIE, PATH, refresh
from tests.identity.auth.tokens import forge
from tests.resources import actors  # noqa: F401  (fixture)


def test_0003_turns_existing_refresh_families_into_sessions(app, client):
    now = utcnow().replace(microsecond=0)
    user_id, live, ended = (str(uuid.uuid4()) for _ in range(3))
    tokens = {name: str(uuid.uuid4()) for name in ("live1", "live2", "ended")}
    insert_token = sa.text(
        "INSERT INTO refresh_tokens (jti, user_id, family_id, issued_at, expires_at, "
        "revoked_at, user_agent, client_address) VALUES (:jti, :user, :family, :issued, "
        ":expires, :revoked, 'Old/1.0', '192.0.2.1')"
    ).bindparams(
        *(sa.bindparam(name, type_=UTCDateTime()) for name in ("issued", "expires", "revoked"))
    )
    with app.app_context():
        flask_migrate.downgrade(revision="0001")
        try:
            with db.engine.begin() as conn:
                conn.execute(
                    sa.text(
                        "INSERT INTO users (id, email, name, is_active, provider, roles, created_at, "
                        "token_version) VALUES (:id, 'old@example.com', 'Old', :yes, 'local', '[]', "
                        ":created, 0)"
                    ).bindparams(
                        sa.bindparam("created", type_=UTCDateTime()),
                        sa.bindparam("yes", type_=sa.Boolean()),
                    ),
                    {"id": user_id, "created": now, "yes": True},
                )
                rows = [
                    (tokens["live1"], live, now - timedelta(hours=2), None),
                    (tokens["live2"], live, now - timedelta(hours=1), None),
                    (tokens["ended"], ended, now - timedelta(hours=3), now - timedelta(hours=1)),
                ]
                for jti, family, issued, revoked in rows:
                    conn.execute(
                        insert_token,
                        {
                            "jti": jti,
                            "user": user_id,
                            "family": family,
                            "issued": issued,
                            "expires": issued + timedelta(days=7),
                            "revoked": revoked,
                        },
                    )
        finally:
            flask_migrate.upgrade()
        sessions = {
            row.id: row
            for row in db.session.execute(
                sa.text(
                    "SELECT id, user_id, revoked_reason, user_agent, client_address FROM auth_sessions"
                )
            )
        }
        db.session.remove()

    assert set(sessions) == {live, ended}
    assert sessions[live].revoked_reason is None and sessions[ended].revoked_reason == "logout"
    assert (sessions[live].user_agent, sessions[live].client_address) == ("Old/1.0", "192.0.2.1")

    # The old cookies go on working (or not) as before.
    client.set_cookie(
        COOKIE,
        forge(user_id, type_="refresh", jti=tokens["live2"], fam=live, lifetime=3600),
        path=PATH,
    )
    assert refresh(client).status_code == 200
    client.set_cookie(
        COOKIE,
        forge(user_id, type_="refresh", jti=tokens["ended"], fam=ended, lifetime=3600),
        path=PATH,
    )
    assert refresh(client).get_json() == {"detail": "Token has been revoked"}


RESOURCE_TABLES = ("datasets", "collections", "pipelines", "runs")
KEPT_TABLES = (*RESOURCE_TABLES, "dataset_tags", "collection_datasets", "row_counts")


def _snapshot(conn):
    """Every row of the tables 0008 rebuilds or that refer to them, and their schema."""
    inspector = sa.inspect(conn)
    rows, schema = {}, {}
    for name in KEPT_TABLES:
        table = sa.Table(name, sa.MetaData(), autoload_with=conn)  # as it is at this revision
        rows[name] = conn.execute(sa.select(table).order_by(*table.primary_key.columns)).all()
        schema[name] = {
            "columns": [
                (c["name"], str(c["type"]), c["nullable"], c["default"])
                for c in inspector.get_columns(name)
            ],
            "primary key": inspector.get_pk_constraint(name)["constrained_columns"],
            "foreign keys": sorted(
                (
                    fk["name"],
                    fk["constrained_columns"],
                    fk["referred_table"],
                    fk["referred_columns"],
                    fk["options"].get("ondelete"),
                )
                for fk in inspector.get_foreign_keys(name)
            ),
            "indexes": sorted(
                (
                    i["name"],
                    i["column_names"],
                    bool(i["unique"]),
                    {k: str(v) for k, v in i.get("dialect_options", {}).items()},
                )
                for i in inspector.get_indexes(name)
            ),
            "unique": sorted(
                (u["name"], u["column_names"]) for u in inspector.get_unique_constraints(name)
            ),
        }
    return rows, schema


def _sqlite_tables(conn):
    return dict(
        conn.execute(sa.text("SELECT name, sql FROM sqlite_master WHERE type = 'table'")).all()
    )


def test_0008_keeps_every_row_and_deleted_ids_are_never_given_again(app, client, actors):
    """0008 on a database at 0007 that has rows: they, their foreign keys, indexes,
    constraints and row counts stay; on SQLite the tables are AUTOINCREMENT afterwards (on
    PostgreSQL nothing changes). Then the newest dataset, deleted, does not lend its id."""
    editor = actors["editor"]
    now = utcnow().replace(microsecond=0)
    tables = db.metadata.tables
    owned = {"owner_id": editor.id, "description": "", "created_at": now, "updated_at": now}
    with app.app_context():
        flask_migrate.downgrade(revision="0007")
        try:
            sqlite = db.engine.dialect.name == "sqlite"
            if sqlite:
                with db.engine.connect() as conn:
                    assert all(
                        "AUTOINCREMENT" not in _sqlite_tables(conn)[name]
                        for name in RESOURCE_TABLES
                    )
            with db.engine.begin() as conn:
                for name in ("old", "older", "newest"):
                    conn.execute(
                        tables["datasets"].insert(), {**owned, "name": name, "name_key": name}
                    )
                ids = dict(
                    conn.execute(
                        sa.select(tables["datasets"].c.name, tables["datasets"].c.id)
                    ).all()
                )
                newest = ids["newest"]
                conn.execute(
                    tables["dataset_tags"].insert(),
                    [{"dataset_id": ids[name], "tag": "t", "position": 0} for name in ids],
                )
                collection = conn.execute(
                    tables["collections"].insert().values(**owned, name="group", name_key="group")
                ).inserted_primary_key[0]
                conn.execute(
                    tables["collection_datasets"].insert(),
                    [
                        {"collection_id": collection, "dataset_id": ids[name], "added_at": now}
                        for name in ("old", "newest")
                    ],
                )
                pipeline = conn.execute(
                    tables["pipelines"]
                    .insert()
                    .values(
                        **owned,
                        name="p",
                        name_key="p",
                        source_dataset_id=newest,
                        steps=[],
                        output_dataset_name="out",
                    )
                ).inserted_primary_key[0]
                conn.execute(
                    tables["runs"].insert(),
                    [
                        {
                            "pipeline_id": pipeline,
                            "status": "succeeded",
                            "created_at": now,
                            "output_dataset_id": newest,
                        },
                        {
                            "pipeline_id": pipeline,
                            "status": "queued",
                            "created_at": now,
                            "output_dataset_id": None,
                        },
                    ],
                )
                before = _snapshot(conn)
        finally:
            flask_migrate.upgrade(revision="0008")
        with db.engine.connect() as conn:
            after = _snapshot(conn)
            if sqlite:
                assert conn.connection.dbapi_connection.isolation_level is None  # tune_sqlite's
                assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
                assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == []
                schema = _sqlite_tables(conn)
                assert all(" PRIMARY KEY AUTOINCREMENT" in schema[name] for name in RESOURCE_TABLES)
                triggers = (
                    conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'")
                    .scalars()
                    .all()
                )
                assert sorted(triggers) == sorted(
                    f"{table}_count_{event}"
                    for table in ("datasets", "collections", "pipelines")
                    for event in ("insert", "delete")
                )
                sequence = dict(conn.exec_driver_sql("SELECT name, seq FROM sqlite_sequence").all())
                assert sequence["datasets"] == newest
        flask_migrate.upgrade()
        db.session.remove()

    assert after == before
    assert [row.row_count for row in before[0]["row_counts"] if row.table_name == "datasets"] == [3]

    # The newest dataset deleted (its tags, membership and references go as before), the
    # next one gets a new id, and a run or collection does not reuse one either.
    url = "/api/v1/datasets/"
    assert client.delete(f"{url}{newest}", headers=editor.headers).status_code == 204
    assert client.get(f"{url}{newest}", headers=editor.headers).status_code == 404
    pipeline_now = client.get(f"/api/v1/pipelines/{pipeline}", headers=editor.headers)
    assert pipeline_now.get_json()["source_dataset_id"] is None
    group = client.get(f"/api/v1/collections/{collection}", headers=editor.headers).get_json()
    assert group["dataset_ids"] == [ids["old"]]
    created = client.post(url, json={"name": "created after"}, headers=editor.headers)
    assert created.status_code == 201
    assert created.get_json()["id"] > newest
    listed = client.get(url, headers=editor.headers).get_json()
    assert listed["total"] == 3
    assert {item["name"] for item in listed["items"]} == {"old", "older", "created after"}


def test_0008_downgrade_and_upgrade_again_keep_the_rows(app, client, actors):
    editor = actors["editor"]
    url = "/api/v1/datasets/"
    ids = [
        client.post(url, json={"name": name, "tags": ["t"]}, headers=editor.headers).get_json()[
            "id"
        ]
        for name in ("a", "b")
    ]
    with app.app_context():
        flask_migrate.downgrade(revision="0008")
        with db.engine.connect() as conn:
            before = _snapshot(conn)[0]
        flask_migrate.downgrade(revision="0007")
        try:
            with db.engine.connect() as conn:
                assert _snapshot(conn)[0] == before
                if db.engine.dialect.name == "sqlite":
                    schema = _sqlite_tables(conn)
                    assert all(
                        "AUTOINCREMENT" not in schema[name]
                        and f"CONSTRAINT pk_{name} PRIMARY KEY (id)" in schema[name]
                        for name in RESOURCE_TABLES
                    )
        finally:
            flask_migrate.upgrade(revision="0008")
        with db.engine.connect() as conn:
            assert _snapshot(conn)[0] == before
        flask_migrate.upgrade()
        db.session.remove()
    assert client.delete(f"{url}{ids[1]}", headers=editor.headers).status_code == 204
    assert client.post(url, json={"name": "c"}, headers=editor.headers).get_json()["id"] > ids[1]


SEARCH_INDEXES = {
    "ix_search_documents_document",
    "ix_search_documents_name_trgm",
    "ix_search_documents_labels_trgm",
    "ix_search_documents_name_key",
    "ix_search_documents_hits",
}


def _not_the_search_index(obj, name, type_, reflected, compare_to):
    """The full-text index's own tables, column and indexes (migrations 0018 and 0021),
    which no model maps."""
    if type_ == "table":
        return not name.startswith(("search_text", "search_trigrams"))
    if type_ == "index" and name in SEARCH_INDEXES:
        return False
    return not (type_ == "column" and name == "document" and obj.table.name == "search_documents")


# SQLite's reflection leaves out expression indexes (ix_search_documents_name_key).
@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
def test_models_and_migrations_agree(app):
    """Alembic's autogenerate finds nothing to do on the freshly migrated database: every
    table, column (type, nullability, server default), index, unique and foreign key of
    the models is what the migrations built."""
    with app.app_context(), db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn,
            opts={
                "compare_type": True,
                "compare_server_default": True,
                "include_object": _not_the_search_index,
            },
        )
        differences = compare_metadata(context, db.metadata)
    assert differences == [], pprint.pformat(differences)


def test_0009_makes_each_existing_file_version_1(app, client, actors):
    """A database from before versions: each dataset's file becomes its version 1 (made by
    its owner at its upload time, format not known), downloadable as such; a dataset
    without a file has no version."""
    from tests.resources import upload

    editor = actors["editor"]
    url = "/api/v1/datasets/"
    with_file, without = (
        client.post(url, json={"name": name}, headers=editor.headers).get_json()["id"]
        for name in ("with file", "without")
    )
    assert upload(client, editor.headers, with_file, b"a,b\n1,2\n").status_code == 200
    uploaded = client.get(f"{url}{with_file}", headers=editor.headers).get_json()["file"]
    with app.app_context():
        flask_migrate.downgrade(revision="0008")
        try:
            with db.engine.connect() as conn:
                assert "dataset_versions" not in sa.inspect(conn).get_table_names()
        finally:
            flask_migrate.upgrade()
        db.session.remove()
    dataset = client.get(f"{url}{with_file}", headers=editor.headers).get_json()
    assert (dataset["current_version"], dataset["file"]) == (1, uploaded)
    [version] = client.get(f"{url}{with_file}/versions", headers=editor.headers).get_json()["items"]
    assert version == {
        "version": 1,
        "sha256": uploaded["sha256"],
        "size_bytes": 8,
        "filename": uploaded["filename"],
        "content_type": uploaded["content_type"],
        "format": None,
        "created_at": uploaded["uploaded_at"],
        "created_by": editor.id,
        "run_id": None,
        "message": None,
        "pinned": False,
        "state": "published",
    }
    download = client.get(f"{url}{with_file}/versions/1/file", headers=editor.headers)
    assert (download.status_code, download.data) == (200, b"a,b\n1,2\n")
    empty = client.get(f"{url}{without}", headers=editor.headers).get_json()
    assert (empty["current_version"], empty["file"]) == (None, None)
    versions = client.get(f"{url}{without}/versions", headers=editor.headers).get_json()
    assert (versions["items"], versions["total"]) == ([], 0)


def test_0010_makes_every_existing_row_internal(app, client, actors):
    """A database from before access control: every dataset, collection and pipeline
    becomes ``internal``, read (and counted in lists) by every user."""
    from tests.pipelines.helpers import create_pipeline
    from tests.resources import create_collection, create_dataset

    editor, viewer = actors["editor"], actors["viewer"]
    dataset = create_dataset(client, editor.headers, "old data", visibility="private")
    collection = create_collection(client, editor.headers, "old things", visibility="private")
    pipeline = create_pipeline(client, editor.headers, dataset["id"], visibility="private")
    rows = {"datasets": dataset, "collections": collection, "pipelines": pipeline}
    for kind, row in rows.items():
        assert client.get(f"/api/v1/{kind}/{row['id']}", headers=viewer.headers).status_code == 404
    with app.app_context():
        flask_migrate.downgrade(revision="0009")
        try:
            with db.engine.connect() as conn:
                assert "groups" not in sa.inspect(conn).get_table_names()
        finally:
            flask_migrate.upgrade()
        db.session.remove()
    for kind, row in rows.items():
        got = client.get(f"/api/v1/{kind}/{row['id']}", headers=viewer.headers)
        assert (got.status_code, got.get_json()["visibility"]) == (200, "internal"), kind
        page = client.get(f"/api/v1/{kind}/", headers=viewer.headers).get_json()
        assert (page["total"], [item["id"] for item in page["items"]]) == (1, [row["id"]]), kind


def test_0019_asks_for_the_profile_of_every_existing_content(app, client, actors):
    """A database from before profiles: each content of a version (versions with the same
    bytes share one) is pending, as a backfill, and a worker profiles it."""
    from datahub.datasets.profiles import profiler
    from tests.resources import upload

    editor = actors["editor"]
    url = "/api/v1/datasets/"
    ids = [
        client.post(url, json={"name": name}, headers=editor.headers).get_json()["id"]
        for name in ("one", "two")
    ]
    for dataset_id in ids:  # the same bytes twice, and a second version of one
        assert upload(client, editor.headers, dataset_id, b"a,b\n1,2\n").status_code == 200
    assert upload(client, editor.headers, ids[0], b"a,b\n3,4\n").status_code == 200
    with app.app_context():
        flask_migrate.downgrade(revision="0018")
        flask_migrate.upgrade()
        rows = db.session.execute(
            sa.text("SELECT size_bytes, status, backfill FROM content_profiles")
        ).all()
        db.session.remove()
    assert sorted(tuple(row) for row in rows) == [(8, "pending", True)] * 2
    schema = client.get(f"{url}{ids[1]}/versions/1/schema", headers=editor.headers)
    assert schema.status_code == 202
    assert profiler.profile_pending(app) == 2
    schema = client.get(f"{url}{ids[1]}/versions/1/schema", headers=editor.headers)
    assert schema.get_json()["rows"] == 1
