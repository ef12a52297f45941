"""The DuckDB engine through HTTP: chains of steps in every order against a reference
written here in Python, the new steps (cast, aggregate, join, sql), the input and output
formats, typed comparisons, and the memory limit."""

import csv
import io
import itertools
import json
import os
import random

import duckdb
import pytest

from tests.pipelines.helpers import (
    PEOPLE,
    create_pipeline,
    output_rows,
    run_now,
    source,
)
from tests.resources import create_dataset, upload

# Steps that stay valid in any order (they name only name and age, which no step drops).
CHAIN = {
    "select": {"op": "select", "columns": ["age", "name", "city"]},
    "rename": {"op": "rename", "mapping": {"city": "town"}},
    "filter": {"op": "filter", "column": "age", "operator": "ge", "value": 30},
    "sort": {"op": "sort", "columns": ["age"], "descending": True},
    "dedupe": {"op": "dedupe", "columns": ["name"]},
    "limit": {"op": "limit", "count": 3},
}


def reference(steps):
    """What the steps give on PEOPLE: ``[header, *rows]`` as text."""
    header = ["name", "city", "age"]
    rows = [
        dict(zip(header, line.split(","), strict=False))
        for line in PEOPLE.strip().split("\r\n")[1:]
    ]
    for row in rows:
        row["age"] = int(row["age"])
    for position, step in enumerate(steps):
        op = step["op"]
        if op == "select":
            missing = [name for name in step["columns"] if name not in header]
            if missing:
                return (
                    f"step {position} (select): column {missing[0]!r} does not exist; "
                    f"the columns are: {', '.join(header)}"
                )
            header = list(step["columns"])
        elif op == "rename":
            header = [step["mapping"].get(name, name) for name in header]
            rows = [{step["mapping"].get(k, k): v for k, v in row.items()} for row in rows]
        elif op == "filter":
            rows = [row for row in rows if row["age"] >= step["value"]]
        elif op == "sort":
            rest = [name for name in header if name not in step["columns"]]
            rows = sorted(rows, key=lambda row: tuple(row[name] for name in rest))
            rows = sorted(rows, key=lambda row: row["age"], reverse=step["descending"])
        elif op == "dedupe":
            seen, kept = set(), []
            for row in rows:
                if row["name"] not in seen:
                    seen.add(row["name"])
                    kept.append(row)
            rows = kept
        elif op == "limit":
            rows = rows[: step["count"]]
    return [header] + [[str(row[name]) for name in header] for row in rows]


ORDERS = list(itertools.permutations(CHAIN, 2)) + random.Random(15).sample(
    list(itertools.permutations(CHAIN)), 8
)


def test_chains_of_steps_in_every_order(app, client, actors):
    """Every ordered pair of the six original steps, and eight orders of all six: the
    old engine failed a select followed by a sort, a dedupe or another select."""
    editor = actors["editor"].headers
    dataset = source(client, editor)
    for n, order in enumerate(ORDERS):
        steps = [CHAIN[op] for op in order]
        pipeline = create_pipeline(
            client, editor, dataset["id"], steps, name=f"chain {n}", output=f"chain {n} out"
        )
        run = run_now(app, client, editor, pipeline["id"])
        expected = reference(steps)
        if isinstance(expected, str):  # a select of city after its rename
            assert (run["status"], run["error"]) == ("failed", expected), order
            continue
        assert run["status"] == "succeeded", (order, run)
        assert output_rows(client, editor, run) == expected, order


def test_select_then_select_sort_dedupe(app, client, actors):
    editor = actors["editor"].headers
    steps = [
        {"op": "select", "columns": ["name", "age"]},
        {"op": "sort", "columns": ["age"]},
        {"op": "dedupe"},
        {"op": "select", "columns": ["age"]},
    ]
    pipeline = create_pipeline(client, editor, source(client, editor)["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert output_rows(client, editor, run) == [["age"], ["9"], ["34"], ["34"], ["100"]]


def run_steps(app, client, headers, steps, text=PEOPLE, **fields):
    pipeline = create_pipeline(
        client, headers, source(client, headers, text)["id"], steps, **fields
    )
    return run_now(app, client, headers, pipeline["id"])


@pytest.mark.parametrize(
    "steps, expected",
    [
        # Cast: text to number changes how a later filter and sort compare.
        (
            [
                {"op": "cast", "column": "code", "type": "integer"},
                {"op": "filter", "column": "code", "operator": "lt", "value": 10},
            ],
            [["code", "day"], ["9", "2024-02-29"]],
        ),
        (
            [
                {"op": "cast", "column": "code", "type": "string"},
                {"op": "filter", "column": "code", "operator": "lt", "value": "2"},
            ],
            [["code", "day"], ["10", "2024-01-05"], ["100", "2023-12-31"]],
        ),
        (
            [{"op": "cast", "column": "code", "type": "float"}],
            [
                ["code", "day"],
                ["10.0", "2024-01-05"],
                ["9.0", "2024-02-29"],
                ["100.0", "2023-12-31"],
            ],
        ),
        (
            [
                {"op": "cast", "column": "day", "type": "timestamp"},
                {"op": "select", "columns": ["day"]},
            ],
            [["day"], ["2024-01-05 00:00:00"], ["2024-02-29 00:00:00"], ["2023-12-31 00:00:00"]],
        ),
        # As DuckDB's CAST of a BIGINT: not zero is true (the CSV's text is not read again).
        (
            [{"op": "cast", "column": "code", "type": "boolean"}],
            [
                ["code", "day"],
                ["true", "2024-01-05"],
                ["true", "2024-02-29"],
                ["true", "2023-12-31"],
            ],
        ),
        (
            [{"op": "cast", "column": "day", "type": "boolean"}],
            "step 0 (cast): Conversion Error: Unimplemented type for cast (DATE -> BOOLEAN)",
        ),
        (
            [
                {"op": "cast", "column": "day", "type": "string"},
                {"op": "cast", "column": "day", "type": "boolean"},
            ],
            "step 1 (cast): Conversion Error: a value of column 'day' could not be converted to BOOL "
            "(values from the data are not shown in a run's error)",
        ),
        # Dates compare as dates.
        (
            [{"op": "filter", "column": "day", "operator": "ge", "value": "2024-01-06"}],
            [["code", "day"], ["9", "2024-02-29"]],
        ),
    ],
)
def test_cast_and_typed_comparisons(app, client, actors, steps, expected):
    editor = actors["editor"].headers
    text = "code,day\r\n010,2024-01-05\r\n9,2024-02-29\r\n100,2023-12-31\r\n"
    text = text.replace("010", "10")
    run = run_steps(app, client, editor, steps, text)
    if isinstance(expected, str):
        assert run["status"] == "failed"
        assert run["error"].startswith(expected), run["error"]
        return
    assert run["status"] == "succeeded", run
    assert output_rows(client, editor, run) == expected


def test_empty_cells_compare_as_empty_text(app, client, actors):
    editor = actors["editor"].headers
    text = "name,city\r\nAnn,Oslo\r\nBob,\r\nCid,Bergen\r\n"
    steps = [{"op": "filter", "column": "city", "operator": "ne", "value": "Oslo"}]
    run = run_steps(app, client, editor, steps, text)
    assert output_rows(client, editor, run) == [["name", "city"], ["Bob", ""], ["Cid", "Bergen"]]


@pytest.mark.parametrize(
    "step, expected",
    [
        (
            {
                "op": "aggregate",
                "group_by": ["city"],
                "aggregates": [
                    {"column": "age", "function": "sum", "as": "total"},
                    {"column": "age", "function": "avg"},
                    {"column": "name", "function": "min"},
                    {"column": "age", "function": "max", "as": "oldest"},
                    {"function": "count", "as": "people"},
                ],
            },
            [
                ["city", "total", "avg_age", "min_name", "oldest", "people"],
                ["Bergen", "9", "9.0", "Bob", "9", "1"],
                ["Oslo", "168", "56.0", "Ann", "100", "3"],
                ["Tromsø", "34", "34.0", "Dee", "34", "1"],
            ],
        ),
        (
            {"op": "aggregate", "aggregates": [{"column": "city", "function": "count"}]},
            [["count_city"], ["5"]],
        ),
        (
            {"op": "aggregate", "group_by": ["city", "age"], "aggregates": [{"function": "count"}]},
            [
                ["city", "age", "count"],
                ["Bergen", "9", "1"],
                ["Oslo", "34", "2"],
                ["Oslo", "100", "1"],
                ["Tromsø", "34", "1"],
            ],
        ),
        (
            {
                "op": "aggregate",
                "group_by": ["city"],
                "aggregates": [{"column": "name", "function": "sum"}],
            },
            "step 0 (aggregate): sum needs a number column; 'name' is VARCHAR (cast it first)",
        ),
        (
            {"op": "aggregate", "group_by": ["town"], "aggregates": [{"function": "count"}]},
            "step 0 (aggregate): column 'town' does not exist; the columns are: name, city, age",
        ),
        (
            {
                "op": "aggregate",
                "group_by": ["city"],
                "aggregates": [{"function": "count", "as": "city"}],
            },
            "step 0 (aggregate): the result has duplicate column names: city, city",
        ),
    ],
)
def test_aggregate(app, client, actors, step, expected):
    editor = actors["editor"].headers
    run = run_steps(app, client, editor, [step])
    if isinstance(expected, str):
        assert (run["status"], run["error"]) == ("failed", expected)
    else:
        assert output_rows(client, editor, run) == expected


CITIES = "city,country,population\r\nOslo,Norway,709000\r\nBergen,Norway,291000\r\n"


@pytest.mark.parametrize(
    "how, expected",
    [
        (
            "inner",
            [
                ["city", "name", "country"],
                ["Bergen", "Bob", "Norway"],
                ["Oslo", "Ann", "Norway"],
                ["Oslo", "Ann", "Norway"],
                ["Oslo", "Cid", "Norway"],
            ],
        ),
        (
            "left",
            [
                ["city", "name", "country"],
                ["Bergen", "Bob", "Norway"],
                ["Oslo", "Ann", "Norway"],
                ["Oslo", "Ann", "Norway"],
                ["Oslo", "Cid", "Norway"],
                ["Tromsø", "Dee", ""],
            ],
        ),
    ],
)
def test_join(app, client, actors, how, expected):
    editor = actors["editor"].headers
    cities = source(client, editor, CITIES, name="cities")
    steps = [
        {"op": "join", "dataset_id": cities["id"], "on": ["city"], "how": how},
        {"op": "select", "columns": ["city", "name", "country"]},
        {"op": "sort", "columns": ["city", "name"]},
    ]
    run = run_steps(app, client, editor, steps)
    assert run["status"] == "succeeded", run
    assert output_rows(client, editor, run) == expected


def test_join_failures_are_clear(app, client, actors):
    editor = actors["editor"].headers
    other = source(client, editor, "name,city\r\nAnn,Oslo\r\n", name="clash")
    run = run_steps(
        app, client, editor, [{"op": "join", "dataset_id": other["id"], "on": ["name"]}]
    )
    assert run["error"] == (
        "step 0 (join): both sides have columns named city that are not "
        "joined on; rename or drop them first"
    )
    cities = source(client, editor, CITIES, name="cities")
    pipeline = create_pipeline(
        client,
        editor,
        source(client, editor, name="p2")["id"],
        [{"op": "join", "dataset_id": cities["id"], "on": ["age"]}],
        name="p2",
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert run["error"] == (
        "step 0 (join): column 'age' does not exist in dataset "
        f"{cities['id']}; its columns are: city, country, population"
    )
    # The joined dataset deleted after the pipeline was made: the run fails, clearly.
    assert client.delete(f"/api/v1/datasets/{cities['id']}", headers=editor).status_code == 204
    run = run_now(app, client, editor, pipeline["id"])
    assert run["error"] == f"step 0 (join): dataset {cities['id']} does not exist"
    empty = create_dataset(client, editor, "no file")
    client.patch(
        f"/api/v1/pipelines/{pipeline['id']}",
        headers=editor,
        json={"steps": [{"op": "join", "dataset_id": empty["id"], "on": ["name"]}]},
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert run["error"] == f"step 0 (join): dataset {empty['id']} has no file"


def test_sql_step(app, client, actors):
    editor = actors["editor"].headers
    steps = [
        {"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"},
        {
            "op": "sql",
            "query": "WITH d AS (SELECT DISTINCT name, age FROM input) "
            "SELECT upper(name) AS who, age + 1 AS next_age FROM d "
            "ORDER BY who",
        },
        {"op": "limit", "count": 5},
    ]
    run = run_steps(app, client, editor, steps)
    assert run["status"] == "succeeded", run
    assert output_rows(client, editor, run) == [["who", "next_age"], ["ANN", "35"], ["CID", "101"]]
    assert (run["rows_in"], run["rows_out"]) == (5, 2)


def test_sql_errors_at_run_time_are_the_steps(app, client, actors):
    editor = actors["editor"].headers
    run = run_steps(app, client, editor, [{"op": "sql", "query": "SELECT nope FROM input"}])
    assert run["status"] == "failed"
    assert run["error"].startswith(
        'step 0 (sql): Binder Error: Referenced column "nope" not found'
    ), run["error"]


def write_with_duckdb(path, fmt):
    options = {"parquet": "FORMAT parquet", "jsonl": "FORMAT json"}[fmt]
    duckdb.connect().execute(
        "COPY (SELECT * FROM (VALUES ('Ann', 'Oslo', 34), ('Bob', 'Bergen', 9), "
        f"('Cid', 'Oslo', 100)) AS t(name, city, age)) TO '{path}' ({options})"
    )
    with open(path, "rb") as handle:
        return handle.read()


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_parquet_and_json_lines_sources(app, client, actors, tmp_path, fmt):
    editor = actors["editor"].headers
    dataset = create_dataset(client, editor, f"people {fmt}")
    body = write_with_duckdb(str(tmp_path / f"people.{fmt}"), fmt)
    assert upload(client, editor, dataset["id"], body).status_code == 200
    steps = [
        {"op": "filter", "column": "age", "operator": "gt", "value": 20},
        {"op": "sort", "columns": ["age"]},
    ]
    pipeline = create_pipeline(client, editor, dataset["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "succeeded", run
    assert output_rows(client, editor, run) == [
        ["name", "city", "age"],
        ["Ann", "Oslo", "34"],
        ["Cid", "Oslo", "100"],
    ]
    assert (run["rows_in"], run["rows_out"]) == (3, 2)


@pytest.mark.parametrize(
    "fmt, content_type",
    [
        ("csv", "text/csv"),
        ("parquet", "application/vnd.apache.parquet"),
        ("jsonl", "application/x-ndjson"),
    ],
)
def test_output_formats(app, client, actors, tmp_path, fmt, content_type):
    editor = actors["editor"].headers
    steps = [
        {"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"},
        {"op": "dedupe"},
    ]
    run = run_steps(app, client, editor, steps, output_format=fmt, output="people out")
    assert run["status"] == "succeeded", run
    dataset = client.get(f"/api/v1/datasets/{run['output_dataset_id']}", headers=editor)
    file = dataset.get_json()["file"]
    assert (file["filename"], file["content_type"]) == (f"people out.{fmt}", content_type)
    body = client.get(f"/api/v1/datasets/{run['output_dataset_id']}/file", headers=editor).data
    path = tmp_path / f"out.{fmt}"
    path.write_bytes(body)
    reader = {"csv": "read_csv", "parquet": "read_parquet", "jsonl": "read_json"}[fmt]
    rows = duckdb.connect().execute(f"SELECT * FROM {reader}(?)", [str(path)]).fetchall()
    assert rows == [("Ann", "Oslo", 34), ("Cid", "Oslo", 100)]
    if fmt == "jsonl":
        assert [json.loads(line) for line in body.decode().splitlines()] == [
            {"name": "Ann", "city": "Oslo", "age": 34},
            {"name": "Cid", "city": "Oslo", "age": 100},
        ]
    # The output is itself a source: a pipeline can read it back.
    again = create_pipeline(
        client,
        editor,
        run["output_dataset_id"],
        [{"op": "select", "columns": ["name"]}],
        name="again",
        output="again out",
    )
    again = run_now(app, client, editor, again["id"])
    assert output_rows(client, editor, again) == [["name"], ["Ann"], ["Cid"]]


def test_output_format_is_stored_and_patched(app, client, actors):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    assert pipeline["output_format"] == "csv"
    response = client.patch(
        f"/api/v1/pipelines/{pipeline['id']}", json={"output_format": "parquet"}, headers=editor
    )
    assert response.get_json()["output_format"] == "parquet"


def big_text(rows, seed=4):
    rng = random.Random(seed)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["id", "word", "pad"])
    writer.writerows(
        [i, "".join(rng.choice("abcdefgh") for _ in range(12)), "x" * 40] for i in range(rows)
    )
    return out.getvalue()


def test_a_sort_larger_than_the_memory_limit_spills_and_is_exact(app, client, actors, tmp_path):
    spill = tmp_path / "spill"
    spill.mkdir()
    app.config.update(
        PIPELINE_MEMORY_LIMIT="32MB",
        PIPELINE_THREADS=1,
        PIPELINE_TEMP_DIR=str(spill),
        PIPELINE_MAX_LINE_SIZE=65536,
    )
    editor = actors["editor"].headers
    text = big_text(700_000)  # ~45 MB: more than the limit
    assert len(text) > 40 * 2**20
    run = run_steps(
        app, client, editor, [{"op": "sort", "columns": ["word"], "descending": True}], text
    )
    assert run["status"] == "succeeded", run["error"]
    rows = output_rows(client, editor, run)[1:]
    assert len(rows) == 700_000
    assert rows == sorted(rows, key=lambda row: (row[1], -int(row[0])), reverse=True)
    assert os.listdir(spill) == []  # the run's folder and spill files are gone


def test_a_run_that_cannot_fit_fails_clearly_and_the_worker_goes_on(app, client, actors):
    app.config.update(PIPELINE_MEMORY_LIMIT="16MB", PIPELINE_THREADS=1)
    editor = actors["editor"].headers
    # One list of every value in memory: no spilling can help.
    steps = [{"op": "sql", "query": "SELECT list(word || pad) AS everything FROM input"}]
    run = run_steps(app, client, editor, steps, big_text(300_000))
    assert run["status"] == "failed"
    assert run["error"] == "Out of memory (PIPELINE_MEMORY_LIMIT is 16MB)", run
    app.config["PIPELINE_MEMORY_LIMIT"] = "512MB"
    pipeline = create_pipeline(
        client, editor, source(client, editor, name="after")["id"], name="after", output="after out"
    )
    assert run_now(app, client, editor, pipeline["id"])["status"] == "succeeded"


def test_a_csv_reads_as_duckdb_infers_it_names_dates_and_times_included(
    app, client, actors, tmp_path
):
    """The job pins the types DuckDB infers (sniffed once, not at each step): the output
    is what DuckDB alone makes of the same file, with day-first dates, a custom timestamp
    and header names with quotes and spaces."""
    editor = actors["editor"].headers
    text = 'id,"it\'s ""quoted""",day first,at\r\n' + "".join(
        f"{n},{'x' * (n % 3)}'{n},{n % 28 + 1:02d}/{n % 12 + 1:02d}/2024,"
        f"2024-{n % 12 + 1:02d}-03 {n % 24:02d}:05:06.5\r\n"
        for n in range(300, 0, -1)
    )
    dataset = source(client, editor, text, name="pinned")
    steps = [{"op": "sort", "columns": ["id"]}]
    run = run_now(app, client, editor, create_pipeline(client, editor, dataset["id"], steps)["id"])
    assert run["status"] == "succeeded", run["error"]

    path, expected = tmp_path / "in.csv", tmp_path / "duckdb.csv"
    path.write_text(text, encoding="utf-8", newline="")
    duckdb.sql(
        f"COPY (SELECT * FROM read_csv('{path}', header = true) ORDER BY id) TO '{expected}'"
        " (HEADER, FORMAT csv)"
    )
    with open(expected, newline="", encoding="utf-8") as handle:
        theirs = list(csv.reader(handle))
    assert output_rows(client, editor, run) == theirs
    assert theirs[0] == ["id", 'it\'s "quoted"', "day first", "at"]
    assert theirs[1][2:] == ["2024-02-02", "2024-02-03 01:05:06.5"]  # typed, not text
