"""Bulk seeding of bench.search's catalogs: datasets, versions, tags, column descriptions,
users, groups, grants and the search index's rows, in this process, with the index not
written by changes; and ``flask search reindex``, timed."""

import contextlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.access import insert_read_grants  # noqa: E402
from bench.run import EMAIL, PASSWORD  # noqa: E402

VIEWER, ADMIN = "viewer@bench.example", "admin@bench.example"
CONTENT_TYPES = {
    "csv": "text/csv",
    "parquet": "application/vnd.apache.parquet",
    "jsonl": "application/jsonl",
    None: "application/pdf",
}


def document_rows(entry, dataset_id, owner, visibility, stamp):
    """The dataset's rows in each table, as a bulk insert wants them."""
    fmt, columns = entry["format"], entry["columns"] if entry["format"] else []
    described = [c for c in columns if c["description"]]
    key = f"{dataset_id:064x}"
    dataset = {
        "id": dataset_id,
        "name": entry["name"],
        "name_key": entry["name"].lower(),
        "description": entry["description"],
        "readme": entry["readme"],
        "owner_id": owner,
        "visibility": visibility,
        "created_at": stamp,
        "updated_at": stamp,
        "current_version": 1,
        "file_key": key,
        "file_name": f"data.{fmt or 'pdf'}",
        "file_content_type": CONTENT_TYPES[fmt],
        "file_size": 4096,
        "file_sha256": key,
        "file_uploaded_at": stamp,
    }
    version = {
        "dataset_id": dataset_id,
        "version": 1,
        "file_key": key,
        "sha256": key,
        "size_bytes": 4096,
        "filename": dataset["file_name"],
        "content_type": CONTENT_TYPES[fmt],
        "format": fmt,
        "created_at": stamp,
        "created_by": owner,
    }
    tags = [
        {"dataset_id": dataset_id, "tag": t, "position": i} for i, t in enumerate(entry["tags"])
    ]
    descriptions = [
        {"dataset_id": dataset_id, "name": c["name"], "description": c["description"]}
        for c in described
    ]
    document = {
        "kind": "dataset",
        "resource_id": dataset_id,
        "name": entry["name"],
        "tags": "\n".join(entry["tags"]),
        "columns": "\n".join(c["name"] for c in columns),
        "body": "\n".join(
            [entry["description"], entry["readme"]]
            + [f"{c['name']}: {c['description']}" for c in described]
        ),
        "cell_values": "\n".join(v for c in columns for v in c["values"]),
        "column_data": [
            {"name": c["name"], "type": c["type"], "values": c["values"]} for c in columns
        ],
        "values_version": 1,
        "owner_id": owner,
        "visibility": visibility,
        "format": fmt,
        "updated_at": stamp,
        "popularity": entry["popularity"],
        "documented": True,
    }
    return dataset, version, tags, descriptions, document


@contextlib.contextmanager
def index_set_aside(db):
    """PostgreSQL: build search_documents' non-unique indexes once after a bulk insert
    rather than row by row (dropped, then created again), then gather statistics."""
    import sqlalchemy as sa

    def rows(sql):
        return db.session.execute(sa.text(sql)).all()

    if db.engine.dialect.name == "postgresql":
        indexes = rows(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'search_documents' "
            "AND indexdef NOT LIKE 'CREATE UNIQUE%'"
        )
        for name, _ in indexes:
            db.session.execute(sa.text(f'DROP INDEX "{name}"'))
        db.session.commit()
        yield
        for _, definition in indexes:
            db.session.execute(sa.text(definition))
        db.session.commit()
        # What autovacuum does within a minute of a bulk load: without statistics, the
        # planner reads 1,000 documents by their keys with a scan of every row.
        db.session.execute(sa.text("ANALYZE"))
    else:  # SQLite: its triggers write what the FTS5 tables index (folded letters)
        yield
    db.session.commit()


def copy_rows(db, table, rows):
    """PostgreSQL's COPY of ``rows`` (dicts with the same keys) into ``table``."""
    columns = list(rows[0])
    cursor = db.session.connection().connection.driver_connection.cursor()
    names = ", ".join(f'"{c}"' for c in columns)
    with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(
                [json.dumps(v) if isinstance(v, list) else v for v in map(row.get, columns)]
            )


def insert_datasets(entries, owner, visibility_of, batch=2000):
    """Insert ``entries`` (ids 1, 2, ...) and their index rows in bulk, in batches."""
    import datetime

    import sqlalchemy as sa

    from datahub.app.extensions import db
    from datahub.datasets.columns.models import ColumnDescription
    from datahub.datasets.models import Dataset, DatasetTag, DatasetVersion
    from datahub.platform.database import utcnow
    from datahub.search.models import SearchDocument

    now, models = utcnow(), (Dataset, DatasetVersion, DatasetTag, ColumnDescription, SearchDocument)
    tables = [[] for _ in models]

    def flush():
        for model, rows in zip(models, tables, strict=True):
            if rows and db.engine.dialect.name == "postgresql":
                copy_rows(db, model.__table__.name, rows)
            elif rows:
                db.session.execute(sa.insert(model), rows)
            rows.clear()
        db.session.commit()

    with index_set_aside(db):
        for i, entry in enumerate(entries, 1):
            stamp = now - datetime.timedelta(minutes=(i * 7919) % 500_000)
            dataset, version, tags, descriptions, document = document_rows(
                entry, i, owner, visibility_of(i), stamp
            )
            tables[0].append(dataset)
            tables[1].append(version)
            tables[2].extend(tags)
            tables[3].extend(descriptions)
            tables[4].append(document)
            if i % batch == 0:
                flush()
        flush()
    if db.engine.dialect.name == "postgresql":
        db.session.execute(
            sa.text(
                "SELECT setval(pg_get_serial_sequence('datasets', 'id'), max(id)) FROM datasets"
            )
        )
        db.session.commit()


def seed_users(owner, args):
    """The viewer, the admin, other users and groups; the viewer in one group."""
    import sqlalchemy as sa

    from datahub.app.extensions import db
    from datahub.identity.group_models import Group, GroupMember
    from datahub.identity.users import services
    from datahub.platform.database import utcnow

    viewer = services.create_user(email=VIEWER, password=PASSWORD, name="V", roles=["viewer"])
    services.create_user(email=ADMIN, password=PASSWORD, name="A", roles=["admin"])
    others = [
        services.create_user(
            email=f"user{i}@bench.example", password=PASSWORD, name="U", roles=["viewer"]
        ).id
        for i in range(args.users)
    ]
    now = utcnow()
    db.session.execute(
        sa.insert(Group),
        [
            {
                "name": f"g{i}",
                "name_key": f"g{i}",
                "description": "",
                "source": "local",
                "created_at": now,
            }
            for i in range(args.groups)
        ],
    )
    groups = list(db.session.scalars(sa.select(Group.id).order_by(Group.id)))
    rng = random.Random(5)
    members = {(groups[0], viewer.id)} | {(g, u) for u in others for g in rng.sample(groups, 3)}
    db.session.execute(
        sa.insert(GroupMember), [{"group_id": g, "user_id": u, "added_at": now} for g, u in members]
    )
    db.session.commit()
    return viewer.id, others, groups


def seed_grants(owner, viewer, others, groups, args):
    """Read grants: the viewer's (on 0.5% of the catalog, half through their group) and
    ``--grants`` more to other users and groups."""
    from datahub.platform.database import utcnow

    rng, now, grants = random.Random(9), utcnow(), set()
    for i in range(1, args.datasets + 1):
        if i % 400 == 100:
            grants.add((i, f"user:{viewer}"))
        elif i % 400 == 300:
            grants.add((i, f"group:{groups[0]}"))
    while len(grants) < args.grants + args.datasets // 200:
        dataset = rng.randint(1, args.datasets)
        if rng.random() < 0.5:
            grants.add((dataset, f"user:{rng.choice(others)}"))
        else:
            grants.add((dataset, f"group:{rng.choice(groups[1:])}"))
    insert_read_grants(grants, owner, now)


def seed(env, args, entries, visibility_of, with_users):
    """Everything in bulk, in this process, with the index not written by changes."""
    from datahub import create_app
    from datahub.app.extensions import db
    from datahub.identity.users import services

    os.environ.update({**env, "DATAHUB_SEARCH_INDEX_ON_WRITE": "false"})
    app = create_app()
    started = time.perf_counter()
    with app.app_context():
        owner = services.find_by_email(EMAIL).id
        if with_users:
            viewer, others, groups = seed_users(owner, args)
        insert_datasets(entries, owner, visibility_of)
        if with_users:
            seed_grants(owner, viewer, others, groups, args)
        db.engine.dispose()
    os.environ.pop("DATAHUB_SEARCH_INDEX_ON_WRITE")
    return time.perf_counter() - started


def reindex(env):
    """``flask --app datahub search reindex``: its wall time, or None if it failed."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "flask", "--app", "datahub", "search", "reindex"],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode:
        print(f"reindex failed ({done.returncode}):\n{done.stderr[-2000:]}", flush=True)
        return None
    return seconds


def settle(env):
    """PostgreSQL, after the reindex (not timed): ``VACUUM ANALYZE`` of every table, what
    autovacuum does within minutes of a rewrite of every row or a bulk load, so that the
    queries read a table without the 100,000 row versions the reindex left behind, and
    the tag facet's index-only scans skip the heap (the bulk-loaded ``dataset_tags`` has
    no visibility map before its first vacuum). Seconds it took."""
    url = env.get("DATAHUB_SQLALCHEMY_DATABASE_URI") or ""
    if not url.startswith("postgresql"):
        return 0.0
    from datahub import create_app
    from datahub.app.extensions import db

    os.environ.update(env)
    started = time.perf_counter()
    with create_app().app_context():
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE")
        db.engine.dispose()
    return time.perf_counter() - started
