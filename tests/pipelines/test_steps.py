"""Every step operator against a small CSV with a known expected output, executed by the
worker (synchronously, in the test's thread)."""

import os

import pytest

from tests.pipelines.helpers import create_pipeline, output_rows, run_now, source

HEADER = ["name", "city", "age"]
ANN = ["Ann", "Oslo", "34"]
BOB = ["Bob", "Bergen", "9"]
CID = ["Cid", "Oslo", "100"]
DEE = ["Dee", "Tromsø", "34"]

CASES = [
    ([], [HEADER, ANN, BOB, CID, DEE, ANN]),
    (
        [{"op": "select", "columns": ["age", "name"]}],
        [
            ["age", "name"],
            ["34", "Ann"],
            ["9", "Bob"],
            ["100", "Cid"],
            ["34", "Dee"],
            ["34", "Ann"],
        ],
    ),
    (
        [{"op": "rename", "mapping": {"city": "town"}}],
        [["name", "town", "age"], ANN, BOB, CID, DEE, ANN],
    ),
    ([{"op": "rename", "mapping": {}}], [HEADER, ANN, BOB, CID, DEE, ANN]),
    (
        [{"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"}],
        [HEADER, ANN, CID, ANN],
    ),
    ([{"op": "filter", "column": "city", "operator": "ne", "value": "Oslo"}], [HEADER, BOB, DEE]),
    # Numbers compare as numbers: "9" < "34" although "9" > "34" as text.
    ([{"op": "filter", "column": "age", "operator": "lt", "value": 34}], [HEADER, BOB]),
    (
        [{"op": "filter", "column": "age", "operator": "le", "value": "34"}],
        [HEADER, ANN, BOB, DEE, ANN],
    ),
    ([{"op": "filter", "column": "age", "operator": "gt", "value": 34.0}], [HEADER, CID]),
    (
        [{"op": "filter", "column": "age", "operator": "ge", "value": 34}],
        [HEADER, ANN, CID, DEE, ANN],
    ),
    # Text compares as text when either side is not a number.
    ([{"op": "filter", "column": "name", "operator": "lt", "value": "C"}], [HEADER, ANN, BOB, ANN]),
    (
        [{"op": "filter", "column": "city", "operator": "contains", "value": "s"}],
        [HEADER, ANN, CID, DEE, ANN],
    ),
    ([{"op": "filter", "column": "age", "operator": "contains", "value": 0}], [HEADER, CID]),
    # Rows equal on the sort columns are ordered by the other columns.
    ([{"op": "sort", "columns": ["age"]}], [HEADER, BOB, ANN, ANN, DEE, CID]),
    (
        [{"op": "sort", "columns": ["age", "name"], "descending": True}],
        [HEADER, CID, DEE, ANN, ANN, BOB],
    ),
    ([{"op": "sort", "columns": ["city"]}], [HEADER, BOB, ANN, ANN, CID, DEE]),
    ([{"op": "dedupe"}], [HEADER, ANN, BOB, CID, DEE]),
    ([{"op": "dedupe", "columns": ["city"]}], [HEADER, ANN, BOB, DEE]),
    ([{"op": "dedupe", "columns": ["age"]}], [HEADER, ANN, BOB, CID]),
    ([{"op": "limit", "count": 2}], [HEADER, ANN, BOB]),
    ([{"op": "limit", "count": 0}], [HEADER]),
    # Steps compose in order.
    (
        [
            {"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"},
            {"op": "dedupe"},
            {"op": "rename", "mapping": {"age": "years"}},
            {"op": "sort", "columns": ["years"], "descending": True},
            {"op": "select", "columns": ["name", "years"]},
            {"op": "limit", "count": 1},
        ],
        [["name", "years"], ["Cid", "100"]],
    ),
]


@pytest.mark.parametrize("steps, expected", CASES)
def test_step_output(app, client, actors, steps, expected):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    pipeline = create_pipeline(client, editor, dataset["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "succeeded", run
    assert run["error"] is None
    assert output_rows(client, editor, run) == expected
    assert run["rows_out"] == len(expected) - 1
    # A leading limit may stop reading the source early.
    if steps and steps[0]["op"] == "limit":
        assert steps[0]["count"] <= run["rows_in"] <= 5
    else:
        assert run["rows_in"] == 5
    assert run["started_at"] <= run["finished_at"]


def test_limit_stops_reading_early(app, client, actors):
    editor = actors["editor"].headers
    text = "n\r\n" + "".join(f"{i}\r\n" for i in range(200_000))
    pipeline = create_pipeline(
        client, editor, source(client, editor, text)["id"], [{"op": "limit", "count": 2}]
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert run["rows_out"] == 2
    assert 2 <= run["rows_in"] < 200_000


def test_output_dataset_created_then_replaced(app, client, actors):
    editor = actors["editor"]
    dataset = source(client, editor.headers)
    pipeline = create_pipeline(
        client, editor.headers, dataset["id"], [{"op": "limit", "count": 1}], output="people head"
    )
    first = run_now(app, client, editor.headers, pipeline["id"])
    output = client.get(
        f"/api/v1/datasets/{first['output_dataset_id']}", headers=editor.headers
    ).get_json()
    assert output["name"] == "people head"
    assert output["owner_id"] == editor.id
    assert output["file"]["filename"] == "people head.csv"
    assert output["file"]["content_type"] == "text/csv"

    patched = client.patch(
        f"/api/v1/pipelines/{pipeline['id']}",
        json={"steps": [{"op": "limit", "count": 3}]},
        headers=editor.headers,
    )
    assert patched.status_code == 200
    second = run_now(app, client, editor.headers, pipeline["id"])
    assert second["output_dataset_id"] == first["output_dataset_id"]  # the same dataset
    assert len(output_rows(client, editor.headers, second)) == 4


@pytest.mark.parametrize(
    "steps, error",
    [
        (
            [{"op": "select", "columns": ["name", "country"]}],
            "step 0 (select): column 'country' does not exist; the columns are: name, city, age",
        ),
        (
            [{"op": "rename", "mapping": {"age": "name"}}],
            "step 0 (rename): the result has duplicate column names: name, city, name",
        ),
        (
            [{"op": "select", "columns": ["name"]}, {"op": "sort", "columns": ["age"]}],
            "step 1 (sort): column 'age' does not exist; the columns are: name",
        ),
        (
            [{"op": "filter", "column": "Age", "operator": "eq", "value": 1}],
            "step 0 (filter): column 'Age' does not exist; the columns are: name, city, age",
        ),
        (
            [{"op": "dedupe", "columns": ["x"]}],
            "step 0 (dedupe): column 'x' does not exist; the columns are: name, city, age",
        ),
    ],
)
def test_missing_column_fails_the_run_with_a_clear_error(app, client, actors, steps, error):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "failed"
    assert run["error"] == error
    assert run["output_dataset_id"] is None
    assert run["finished_at"] is not None
    names = [d["name"] for d in client.get("/api/v1/datasets/", headers=editor).get_json()["items"]]
    assert names == ["people"]  # no output dataset was created


@pytest.mark.parametrize(
    "text, error",
    [
        (
            "a,b\r\n1,2,3\r\n",
            "the source file: the rows do not all have as many fields as the "
            "header row, or a quoted field is not closed",
        ),
        (
            "a,b\r\n1,2\r\n3\r\n",
            "the source file: the rows do not all have as many fields as "
            "the header row, or a quoted field is not closed",
        ),
        (
            "a,a\r\n1,2\r\n",
            "the source file cannot be read as a table: the file has duplicate column names",
        ),
        (
            "\x89PNG\r\n\x1a\n\x00\x00",
            "the source file cannot be read as a table: the file is "
            "binary, not CSV, Parquet or JSON lines",
        ),
    ],
)
def test_unreadable_source_fails_the_run(app, client, actors, text, error):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor, text)["id"])
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == ("failed", error)


def test_an_empty_source_fails_the_run(app, client, actors):
    """An empty upload is refused (400 ``File is empty``); a file stored empty before that
    fails the run with a clear error."""
    editor = actors["editor"].headers
    dataset = source(client, editor, "a\r\n1\r\n")
    [name] = os.listdir(app.config["STORAGE_PATH"])
    open(os.path.join(app.config["STORAGE_PATH"], name), "wb").close()
    pipeline = create_pipeline(client, editor, dataset["id"])
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == (
        "failed",
        "the source file cannot be read as a table: the file is empty (no header row)",
    )


def test_source_without_file_or_deleted(app, client, actors):
    editor = actors["editor"].headers
    empty = client.post("/api/v1/datasets/", json={"name": "empty"}, headers=editor).get_json()
    pipeline = create_pipeline(client, editor, empty["id"])
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == ("failed", "the source dataset has no file")
    assert client.delete(f"/api/v1/datasets/{empty['id']}", headers=editor).status_code == 204
    assert (
        client.get(f"/api/v1/pipelines/{pipeline['id']}", headers=editor).get_json()[
            "source_dataset_id"
        ]
        is None
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == ("failed", "the source dataset no longer exists")


def test_output_name_taken_by_another_users_dataset(app, client, actors):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    theirs = client.post("/api/v1/datasets/", json={"name": "Taken"}, headers=other).get_json()
    pipeline = create_pipeline(client, editor, source(client, editor)["id"], output="taken")
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "failed"
    assert run["error"] == (
        "the output dataset name 'taken' belongs to another user's "
        "dataset; choose another output_dataset_name"
    )
    assert client.get(f"/api/v1/datasets/{theirs['id']}", headers=other).get_json()["file"] is None
