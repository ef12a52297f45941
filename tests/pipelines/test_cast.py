"""The cast step converts as DuckDB's ``CAST`` of the column's inferred type does, in every
input format: a DOUBLE rounds half to even (2.5 → 2), text rounds half away from zero
('2.5' → 3). DuckDB's type pushdown read a CSV column cast to a number straight from its
text, so a CSV's 2.5 became 3 but a Parquet file's 2.5 became 2."""

import duckdb
import pytest

from tests.pipelines.helpers import create_pipeline, output_rows, run_now
from tests.resources import create_dataset, upload

VALUES = ["2.5", "-2.5", "3.5", "0.5", "-0.5", "1.5", "7"]
AS_DOUBLE = ["2", "-2", "4", "0", "0", "2", "7"]  # CAST(DOUBLE AS BIGINT): half to even
AS_TEXT = ["3", "-3", "4", "1", "-1", "2", "7"]  # CAST(VARCHAR AS BIGINT): half away from 0


def duckdb_cast(values, kind):
    """What DuckDB's own CAST gives for ``values`` of type ``kind``, one by one."""
    con = duckdb.connect()
    try:
        return [
            str(con.execute(f"SELECT CAST(CAST(? AS {kind}) AS BIGINT)", [value]).fetchone()[0])
            for value in values
        ]
    finally:
        con.close()


def test_the_expectations_are_duckdbs():
    assert duckdb_cast(VALUES, "DOUBLE") == AS_DOUBLE
    assert duckdb_cast(VALUES, "VARCHAR") == AS_TEXT


def file_of(fmt, tmp_path):
    """The values as a number column ``a`` and a text column ``t`` in ``fmt``."""
    csv = "a,t\n" + "".join(f"{value},x{value}\n" for value in VALUES)
    if fmt == "csv":
        return csv.encode()
    path = tmp_path / f"values.{fmt}"
    con = duckdb.connect()
    csv_path = tmp_path / "values.csv"
    csv_path.write_text(csv)
    options = "FORMAT parquet" if fmt == "parquet" else "FORMAT json"
    con.execute(f"COPY (SELECT a, t FROM read_csv('{csv_path}')) TO '{path}' ({options})")
    con.close()
    return path.read_bytes()


def run_file(app, client, headers, content, *pipelines):
    """The output rows of each pipeline (a list of steps) over the file ``content``."""
    dataset = create_dataset(client, headers, "values")
    assert upload(client, headers, dataset["id"], content).status_code == 200
    outputs = []
    for n, steps in enumerate(pipelines):
        pipeline = create_pipeline(
            client, headers, dataset["id"], steps, name=f"pipe {n}", output=f"output {n}"
        )
        run = run_now(app, client, headers, pipeline["id"])
        assert run["status"] == "succeeded", run
        outputs.append(output_rows(client, headers, run))
    return outputs


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_cast_to_integer_rounds_as_duckdbs_cast(app, client, actors, tmp_path, fmt):
    editor = actors["editor"].headers
    content = file_of(fmt, tmp_path)
    steps = [{"op": "cast", "column": "a", "type": "integer"}, {"op": "select", "columns": ["a"]}]
    sql = [{"op": "sql", "query": "SELECT CAST(a AS INTEGER) AS a FROM input"}]
    expected = [["a"]] + [[value] for value in AS_DOUBLE]
    assert run_file(app, client, editor, content, steps, sql) == [expected, expected]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_cast_of_text_rounds_as_duckdbs_cast_of_text(app, client, actors, tmp_path, fmt):
    """Numbers read as text (a string cast first, or a text column)."""
    editor = actors["editor"].headers
    content = file_of(fmt, tmp_path)
    steps = [
        {"op": "cast", "column": "a", "type": "string"},
        {"op": "cast", "column": "a", "type": "integer"},
        {"op": "select", "columns": ["a"]},
    ]
    text = [
        {"op": "sql", "query": "SELECT substr(t, 2) AS t FROM input"},
        {"op": "cast", "column": "t", "type": "integer"},
        {"op": "select", "columns": ["t"]},
    ]
    cast, read = run_file(app, client, editor, content, steps, text)
    # A DOUBLE as text is '2.5', '7.0': DuckDB's CAST of that text.
    assert cast == [["a"]] + [[v] for v in duckdb_cast([str(float(v)) for v in VALUES], "VARCHAR")]
    assert read == [["t"]] + [[value] for value in AS_TEXT]


def test_text_that_is_not_a_number_fails_the_run(app, client, actors):
    editor = actors["editor"].headers
    dataset = create_dataset(client, editor, "values")
    assert upload(client, editor, dataset["id"], b"t\n2.5\nx\n").status_code == 200
    pipeline = create_pipeline(
        client, editor, dataset["id"], [{"op": "cast", "column": "t", "type": "integer"}]
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "failed"
    assert run["error"] == (
        "step 0 (cast): Conversion Error: a value of column 't' could not be converted to "
        "INT64 (values from the data are not shown in a run's error)"
    )
