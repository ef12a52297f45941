"""POST /api/v1/query: one SELECT over datasets by name, at their current version or pinned;
JSON rows with the versions read, or the whole result as a file."""

import io
import json

import duckdb
import pytest

from tests.pipelines.helpers import PIPELINES, source
from tests.resources import upload, validation_error

QUERY = "/api/v1/query"


@pytest.fixture
def editor(actors):
    return actors["editor"].headers


@pytest.fixture
def sales(client, editor):
    return source(client, editor, "region,amount\nnorth,10\nsouth,5\nnorth,7\n", "Sales 2025")


def query(client, headers, sql, path=QUERY, **fields):
    return client.post(path, json={"sql": sql, **fields}, headers=headers)


def ok(response):
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_a_query_over_a_dataset_by_name(client, editor, sales):
    sql = 'SELECT region, sum(amount) AS total FROM "Sales 2025" GROUP BY region ORDER BY 1'
    answer = ok(query(client, editor, sql))
    assert answer["columns"] == [
        {"name": "region", "type": "VARCHAR"},
        {"name": "total", "type": "HUGEINT"},
    ]
    assert answer["rows"] == [["north", 17], ["south", 5]]
    assert answer["truncated"] is False
    assert answer["inputs"] == [{"dataset_id": sales["id"], "name": "Sales 2025", "version": 1}]
    assert 0 < answer["elapsed_ms"] < 30000


def test_names_are_case_insensitive_and_unquoted_names_work(client, editor, sales):
    source(client, editor, "a\n1\n", "small_table")
    for sql in (
        'SELECT count(*) FROM "sales 2025"',
        'SELECT count(*) FROM "SALES 2025"',
        'SELECT count(*) FROM "Sales 2025" s JOIN "sales 2025" t USING (region)',
    ):
        assert ok(query(client, editor, sql))["inputs"][0]["dataset_id"] == sales["id"]
    assert ok(query(client, editor, "SELECT a FROM Small_Table"))["rows"] == [[1]]


def test_with_tables_and_joins_of_two_datasets(client, editor, sales):
    regions = source(client, editor, "region,boss\nnorth,Ann\nsouth,Bob\n", "regions")
    sql = (
        'WITH big AS (SELECT * FROM "Sales 2025" WHERE amount > 6) '
        "SELECT boss, amount FROM big JOIN regions USING (region) ORDER BY amount"
    )
    answer = ok(query(client, editor, sql))
    assert answer["rows"] == [["Ann", 7], ["Ann", 10]]
    assert sorted(i["dataset_id"] for i in answer["inputs"]) == sorted([sales["id"], regions["id"]])
    assert answer["pipeline"] is None  # two datasets: no one-source pipeline does this


def test_pinned_versions_give_the_same_rows(client, editor, sales):
    first = ok(query(client, editor, 'SELECT * FROM "Sales 2025" ORDER BY amount'))
    assert upload(client, editor, sales["id"], b"region,amount\neast,1\n").status_code == 200
    now = ok(query(client, editor, 'SELECT * FROM "Sales 2025" ORDER BY amount'))
    assert now["rows"] == [["east", 1]]
    assert now["inputs"][0]["version"] == 2
    pins = [{"dataset_id": i["dataset_id"], "version": i["version"]} for i in first["inputs"]]
    again = ok(query(client, editor, 'SELECT * FROM "Sales 2025" ORDER BY amount', pins=pins))
    assert again["rows"] == first["rows"]
    assert again["inputs"] == first["inputs"]
    at = ok(query(client, editor, 'SELECT * FROM "Sales 2025@1" ORDER BY amount'))
    assert at["rows"] == first["rows"]
    both = ok(
        query(
            client,
            editor,
            'SELECT count(*) FROM "Sales 2025@1" UNION ALL SELECT count(*) FROM "sales 2025"',
        )
    )
    assert both["rows"] == [[3], [1]] or both["rows"] == [[1], [3]]
    assert sorted(i["version"] for i in both["inputs"]) == [1, 2]
    # What to send back: the table written without @N, at the version it read.
    assert both["pins"] == [{"dataset_id": sales["id"], "version": 2}]
    again = ok(
        query(client, editor, 'SELECT * FROM "Sales 2025" ORDER BY amount', pins=now["pins"])
    )
    assert again["rows"] == now["rows"]


@pytest.mark.parametrize(
    ("sql", "detail"),
    [
        ('SELECT * FROM "Sales 2025@9"', "Version not found: Sales 2025@9"),
        ("SELECT * FROM nowhere", "Dataset not found: nowhere"),
        ('SELECT * FROM "nowhere@2"', "Dataset not found: nowhere@2"),
        ('SELECT missing FROM "Sales 2025"', None),
    ],
)
def test_what_cannot_be_read_is_a_422_that_names_it(client, editor, sales, sql, detail):
    response = query(client, editor, sql)
    assert response.status_code == 422
    if detail is None:
        assert response.get_json()["detail"].startswith(
            'Query failed: Binder Error: Referenced column "missing" not found'
        )
    else:
        assert response.get_json() == {"detail": detail}


def test_a_dataset_without_a_file(client, editor):
    client.post("/api/v1/datasets/", json={"name": "empty one"}, headers=editor)
    response = query(client, editor, 'SELECT * FROM "empty one"')
    assert (response.status_code, response.get_json()) == (
        422,
        {"detail": "Dataset has no file: empty one"},
    )


def test_a_pin_of_a_version_the_dataset_lacks(client, editor, sales):
    response = query(
        client,
        editor,
        'SELECT 1 FROM "Sales 2025"',
        pins=[{"dataset_id": sales["id"], "version": 5}],
    )
    assert response.get_json() == {"detail": "Version not found: Sales 2025@5"}


@pytest.mark.parametrize(
    ("body", "loc", "msg", "kind"),
    [
        ({}, ["body", "sql"], "field required", "value_error.missing"),
        ({"sql": "DELETE FROM x"}, ["body", "sql"], None, "value_error.sql"),
        ({"sql": "SELECT 1", "limit": 0}, ["body", "limit"], None, None),
        ({"sql": "SELECT 1", "limit": 10001}, ["body", "limit"], None, None),
        (
            {"sql": "SELECT 1", "pins": [{"dataset_id": 1}]},
            ["body", "pins", 0, "version"],
            None,
            None,
        ),
    ],
)
def test_bad_bodies_are_validation_errors(client, editor, body, loc, msg, kind):
    response = client.post(QUERY, json=body, headers=editor)
    assert response.status_code == 422
    [error] = response.get_json()["detail"]
    assert error["loc"] == loc
    if msg:
        assert error == validation_error(loc, msg, kind)
    if kind:
        assert error["type"] == kind


def test_limit_and_truncated(client, editor, sales):
    answer = ok(query(client, editor, "SELECT * FROM range(25) ORDER BY 1", limit=10))
    assert answer["rows"] == [[n] for n in range(10)]
    assert answer["truncated"] is True
    whole = ok(query(client, editor, "SELECT * FROM range(10)", limit=10))
    assert whole["truncated"] is False
    assert whole["inputs"] == [] and whole["pipeline"] is None


def test_rows_past_the_response_bytes_are_not_shown(app, client, editor):
    app.config["QUERY_MAX_RESPONSE_BYTES"] = 20000
    answer = ok(query(client, editor, "SELECT repeat('x', 1000) AS s FROM range(100)"))
    assert 5 < len(answer["rows"]) < 20
    assert answer["truncated"] is True
    one = query(client, editor, "SELECT repeat('x', 30000) AS s")
    assert (one.status_code, one.get_json()) == (422, {"detail": "Query result is too large"})


def test_values_as_json(client, editor):
    sql = (
        "SELECT 1::INTEGER AS i, 2.5::DOUBLE AS d, 'inf'::DOUBLE AS inf, 1.25::DECIMAL(5,2) "
        "AS dec, DATE '2025-01-02' AS day, TIMESTAMP '2025-01-02 03:04:05' AS ts, NULL AS n, "
        "true AS b, [1, 2] AS l, {'k': 'v'} AS s, '\\x00'::BLOB AS bl"
    )
    [row] = ok(query(client, editor, sql))["rows"]
    assert row == [
        1,
        2.5,
        "inf",
        "1.25",
        "2025-01-02",
        "2025-01-02T03:04:05",
        None,
        True,
        [1, 2],
        {"k": "v"},
        "AA==",
    ]


def test_make_it_a_pipeline(client, editor, sales):
    sql = 'SELECT region, sum(amount) AS total FROM "Sales 2025" GROUP BY region ORDER BY 1;'
    proposal = ok(query(client, editor, sql))["pipeline"]
    assert proposal["source_dataset_id"] == sales["id"]
    body = {"name": "totals", "output_dataset_name": "totals out", **proposal}
    created = client.post(PIPELINES, json=body, headers=editor)
    assert created.status_code == 201, created.get_json()
    preview = client.post(
        f"{PIPELINES}preview",
        json={"source_dataset_id": sales["id"], "steps": proposal["steps"]},
        headers=editor,
    )
    assert preview.get_json()["rows"] == [["north", 17], ["south", 5]]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_the_whole_result_as_a_file(client, editor, sales, fmt):
    sql = 'SELECT * FROM "Sales 2025" CROSS JOIN range(1000) ORDER BY amount, range'
    response = query(client, editor, sql, path=f"{QUERY}?format={fmt}", limit=10)
    assert response.status_code == 200
    assert response.headers["Content-Disposition"] == f"attachment; filename=query.{fmt}"
    assert (
        response.mimetype
        == {
            "csv": "text/csv",
            "parquet": "application/vnd.apache.parquet",
            "jsonl": "application/x-ndjson",
        }[fmt]
    )
    con = duckdb.connect()
    if fmt == "jsonl":
        rows = [json.loads(line) for line in response.data.decode().splitlines()]
        assert len(rows) == 3000 and rows[0] == {"region": "south", "amount": 5, "range": 0}
        return
    path = f"/tmp/query-test-{id(response)}.{fmt}"
    with open(path, "wb") as out:
        out.write(response.data)
    reader = "read_csv" if fmt == "csv" else "read_parquet"
    assert con.execute(f"SELECT count(*), min(amount) FROM {reader}(?)", [path]).fetchone() == (
        3000,
        5,
    )


def test_an_export_past_its_bound_is_refused_whole(app, client, editor):
    app.config["QUERY_MAX_BYTES"] = 100_000
    response = query(
        client,
        editor,
        "SELECT range, repeat('y', 100) FROM range(100000)",
        path=f"{QUERY}?format=csv",
    )
    assert (response.status_code, response.get_json()) == (
        422,
        {"detail": "Query result is too large"},
    )
    assert response.headers.get("Content-Disposition") is None


def test_an_unknown_format_is_a_validation_error(client, editor):
    response = query(client, editor, "SELECT 1", path=f"{QUERY}?format=xlsx")
    assert response.status_code == 422
    assert response.get_json()["detail"][0]["loc"] == ["query", "format"]


def test_the_csv_reads_back_as_the_rows(client, editor, sales):
    text = query(client, editor, 'SELECT * FROM "Sales 2025"', path=f"{QUERY}?format=csv").data
    assert io.BytesIO(text).read().decode().splitlines() == [
        "region,amount",
        "north,10",
        "south,5",
        "north,7",
    ]
