"""With 100k datasets, a page is read in index order, sorted or not: no query sorts the
table."""

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from datahub.app.extensions import db
from datahub.datasets.models import Dataset, DatasetTag
from datahub.platform.database import utcnow

ROWS = 100_000


def numbers(count):
    """``SELECT i`` for i in 1..count, as a recursive CTE (SQLite and PostgreSQL)."""
    series = sa.select(sa.literal(1).label("i")).cte("series", recursive=True)
    return series.union_all(sa.select(series.c.i + 1).where(series.c.i < count))


@pytest.fixture
def many(app, actors):
    owner = actors["editor"].id
    other = actors["admin"].id
    now = sa.bindparam("now", utcnow(), type_=Dataset.created_at.type)
    series = numbers(ROWS)
    name = sa.literal("set ").concat(sa.cast(series.c.i, sa.String))
    with app.app_context():
        with db.engine.begin() as conn:
            # One INSERT ... SELECT per table: fast on both databases, and on PostgreSQL the
            # row count (migration 0005) is updated once, not once per row.
            conn.execute(
                sa.insert(Dataset).from_select(
                    [
                        "id",
                        "name",
                        "name_key",
                        "description",
                        "owner_id",
                        "created_at",
                        "updated_at",
                    ],
                    sa.select(
                        series.c.i,
                        name,
                        name,
                        sa.literal(""),
                        sa.case((series.c.i % 2 == 1, owner), else_=other),
                        now,
                        now,
                    ),
                )
            )
            conn.execute(
                sa.insert(DatasetTag).from_select(
                    ["dataset_id", "tag", "position"],
                    sa.select(
                        series.c.i,
                        sa.case((series.c.i % 3 == 0, "third"), else_="other"),
                        sa.literal(0),
                    ),
                )
            )
            conn.execute(sa.text("ANALYZE"))  # fresh statistics, as a live database has
    return owner


def page_statements(app, client, headers, query):
    """The SELECTs (with LIMIT) that one list request ran, with their parameters."""
    seen = []

    def capture(_conn, _cursor, statement, parameters, _context, _many):
        if statement.lstrip().upper().startswith("SELECT") and "LIMIT" in statement.upper():
            seen.append((statement, parameters))

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", capture)
    try:
        response = client.get(f"/api/v1/datasets/?{query}", headers=headers)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    assert response.status_code == 200
    return response.get_json(), [s for s in seen if "datasets" in s[0]]


def plan(app, statement, parameters):
    with app.app_context():
        with db.engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
                return "\n".join(str(row[-1]) for row in rows)
            rows = conn.exec_driver_sql(f"EXPLAIN {statement}", parameters)
            return "\n".join(row[0] for row in rows)


PAGES = [  # query, total, the first two ids of the page
    ("offset=40000", ROWS, [40001, 40002]),
    ("owner=me&offset=500", ROWS // 2, [1001, 1003]),
    ("tag=third&offset=100", ROWS // 3, [303, 306]),
    # Sorted (every row has one time: ties by id, in the sort's direction).
    ("sort=-updated_at&offset=500", ROWS, [99500, 99499]),
    ("sort=created_at&offset=500", ROWS, [501, 502]),
    ("sort=name", ROWS, [1, 10]),  # "set 1", "set 10", ...
    ("sort=-name", ROWS, [99999, 99998]),
]


def test_pages_read_in_index_order(app, client, actors, many):
    """The three pages in one test: the 100k rows are made (and emptied) once, about 20 s
    on PostgreSQL."""
    for query, total, first_ids in PAGES:
        body, statements = page_statements(app, client, actors["editor"].headers, query)
        assert body["total"] == total, query
        assert [item["id"] for item in body["items"][:2]] == first_ids, query
        assert len(body["items"]) == 20, query
        [(statement, parameters)] = statements
        text = plan(app, statement, parameters)
        assert "TEMP B-TREE FOR ORDER BY" not in text, (query, text)  # SQLite would sort
        assert "Sort" not in text, (query, text)  # PostgreSQL would sort
