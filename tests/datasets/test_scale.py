"""With 100k datasets, a page is read in index order: no query sorts the table."""
import pytest
import sqlalchemy as sa
from sqlalchemy import event

from datahub.datasets.models import Dataset, DatasetTag
from datahub.database import utcnow
from datahub.extensions import db

ROWS = 100_000


@pytest.fixture
def many(app, actors):
    owner = actors["editor"].id
    other = actors["admin"].id
    now = utcnow()
    with app.app_context():
        with db.engine.begin() as conn:
            conn.execute(sa.insert(Dataset), [
                {"id": i, "name": f"set {i}", "name_key": f"set {i}", "description": "",
                 "owner_id": owner if i % 2 else other, "created_at": now, "updated_at": now}
                for i in range(1, ROWS + 1)
            ])
            conn.execute(sa.insert(DatasetTag), [
                {"dataset_id": i, "tag": "third" if i % 3 == 0 else "other", "position": 0}
                for i in range(1, ROWS + 1)
            ])
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


@pytest.mark.parametrize("query, total, first_ids", [
    ("offset=40000", ROWS, [40001, 40002]),
    ("owner=me&offset=500", ROWS // 2, [1001, 1003]),
    ("tag=third&offset=100", ROWS // 3, [303, 306]),
])
def test_pages_read_in_index_order(app, client, actors, many, query, total, first_ids):
    body, statements = page_statements(app, client, actors["editor"].headers, query)
    assert body["total"] == total
    assert [item["id"] for item in body["items"][:2]] == first_ids
    assert len(body["items"]) == 20
    [(statement, parameters)] = statements
    text = plan(app, statement, parameters)
    assert "TEMP B-TREE FOR ORDER BY" not in text, text  # SQLite would sort
    assert "Sort" not in text, text  # PostgreSQL would sort
