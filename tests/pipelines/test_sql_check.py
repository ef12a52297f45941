"""What a sql step may call, checked when the pipeline is saved: deeply nested queries are
a 422 (not a RecursionError's 500), functions that tell about the server are refused, and
the generators range and generate_series are the only table functions allowed."""

import pytest

from datahub.datasets import sql_check
from tests.pipelines.helpers import PIPELINES, create_pipeline, output_rows, run_now, source
from tests.resources import validation_error

NO_TABLE_FUNCTIONS = (
    "the query must not call table functions other than range and "
    "generate_series; it can read only input"
)
TOO_DEEP = (
    "the query nests too deeply (parentheses, function calls, CASE or subqueries within each other)"
)


def nested(n, open_, close, inner="1"):
    return open_ * n + inner + close * n


def post(client, headers, dataset_id, query):
    body = {
        "name": "p",
        "source_dataset_id": dataset_id,
        "output_dataset_name": "out",
        "steps": [{"op": "limit", "count": 5}, {"op": "sql", "query": query}],
    }
    return client.post(PIPELINES, json=body, headers=headers)


def assert_refused(response, msg):
    assert response.status_code == 422, response.get_json()
    assert response.get_json() == {
        "detail": [validation_error(["body", "steps", 1, "query"], msg, "value_error.sql")]
    }


DEEP = [
    "SELECT " + nested(500, "abs(", ")") + " FROM input",
    "SELECT " + nested(5000, "abs(", ")") + " FROM input",  # past DuckDB's own limit
    "SELECT " + nested(400, "NOT ", "", "true") + " FROM input",
    "SELECT " + nested(400, "[", "]") + " FROM input",
    "SELECT " + nested(300, "CASE WHEN true THEN ", " END") + " FROM input",
    "SELECT * FROM " + nested(300, "(SELECT * FROM ", ") q", "input"),
    "SELECT " + "+".join(["age"] * 400) + " FROM input",
    "SELECT " + nested(30000, "(", ")") + " FROM input",
]


@pytest.mark.parametrize("query", DEEP, ids=range(len(DEEP)))
def test_deeply_nested_queries_are_422(client, actors, query):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    assert_refused(post(client, editor, dataset["id"], query), TOO_DEEP)
    pipeline = create_pipeline(client, editor, dataset["id"])
    response = client.patch(
        f"{PIPELINES}{pipeline['id']}",
        headers=editor,
        json={"steps": [{"op": "limit", "count": 5}, {"op": "sql", "query": query}]},
    )
    assert_refused(response, TOO_DEEP)


def test_nesting_within_the_bound_runs(app, client, actors):
    editor = actors["editor"].headers
    steps = [
        {
            "op": "sql",
            "query": "SELECT "
            + nested(80, "abs(", ")", "age")
            + " AS a FROM input ORDER BY a LIMIT 1",
        },
        {"op": "sql", "query": "SELECT * FROM " + nested(40, "(SELECT * FROM ", ") q", "input")},
    ]
    pipeline = create_pipeline(client, editor, source(client, editor)["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert output_rows(client, editor, run) == [["a"], ["9"]]


def test_json_depth_is_found_without_recursion():
    assert sql_check.json_depth("[" * 100000 + "]" * 100000) == 100000
    assert sql_check.json_depth('{"a": "[[[{", "b": ["x\\"]]"]}') == 2
    assert sql_check.json_depth("1") == 0


DENIED = [
    "current_query()",
    "version()",
    "current_setting('temp_directory')",
    "getvariable('x')",
    "current_database()",
    "current_catalog()",
    "current_schema()",
    "current_schemas(true)",
    "in_search_path('memory', 'main')",
    "current_connection_id()",
    "current_query_id()",
    "current_transaction_id()",
    "txid_current()",
    "get_block_size('memory')",
    "pg_get_viewdef(1)",
    "pg_get_constraintdef(1)",
    "format_type(1, 1)",
    "json_serialize_plan('SELECT current_setting(''temp_directory'')')",
]


@pytest.mark.parametrize("call", DENIED)
def test_functions_that_tell_about_the_server_are_refused(client, actors, call):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    name = call.split("(")[0]
    assert_refused(
        post(client, editor, dataset["id"], f"SELECT name, {call} AS x FROM input"),
        f"the query must not call {name}()",
    )
    # Qualified, quoted or in upper case, it is the same function.
    assert_refused(
        post(
            client,
            editor,
            dataset["id"],
            f'SELECT * FROM input WHERE name <> system.main."{name.upper()}"{call[len(name) :]}',
        ),
        f"the query must not call {name}()",
    )


@pytest.mark.parametrize("name", ["current_catalog", "current_schema"])
def test_bare_names_that_call_a_function_are_refused(client, actors, name):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    assert_refused(
        post(client, editor, dataset["id"], f"SELECT {name} FROM input"),
        f"the query must not call {name} (for a column of that name, write input.{name})",
    )
    assert (
        post(client, editor, dataset["id"], f"SELECT name AS {name} FROM input").status_code == 201
    )


@pytest.mark.parametrize(
    "function",
    [
        "pragma_version()",
        "pragma_user_agent()",
        "pragma_platform()",
        "duckdb_settings()",
        "duckdb_functions()",
        "duckdb_extensions()",
        "duckdb_memory()",
        "duckdb_databases()",
        "duckdb_temporary_files()",
        "pragma_database_size()",
        "pragma_metadata_info()",
        "read_text('/etc/hostname')",
        "read_parquet('x.parquet')",
        "glob('*')",
        "unnest([1, 2])",
        "query_table('input')",
        "which_secret('s3://x', 's3')",
        "json_execute_serialized_sql('{}')",
        "repeat(1, 3)",
    ],
)
def test_other_table_functions_stay_refused(client, actors, function):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    assert_refused(
        post(client, editor, dataset["id"], f"SELECT * FROM {function}"), NO_TABLE_FUNCTIONS
    )
    # Also as a generator's argument.
    assert_refused(
        post(
            client, editor, dataset["id"], f"SELECT * FROM range((SELECT count(*) FROM {function}))"
        ),
        NO_TABLE_FUNCTIONS,
    )


def test_generators_are_allowed(app, client, actors):
    editor = actors["editor"].headers
    steps = [
        {"op": "select", "columns": ["name"]},
        {"op": "limit", "count": 2},
        {
            "op": "sql",
            "query": "SELECT name, x FROM input, range(2) AS r(x) "
            "UNION ALL SELECT 'gen', generate_series FROM "
            "system.main.generate_series(5, 9, 2) ORDER BY ALL",
        },
        {
            "op": "sql",
            "query": "SELECT * FROM input, (SELECT count(*) AS n FROM range(10)) ORDER BY ALL",
        },
    ]
    pipeline = create_pipeline(client, editor, source(client, editor)["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "succeeded", run
    assert output_rows(client, editor, run) == [
        ["name", "x", "n"],
        ["Ann", "0", "10"],
        ["Ann", "1", "10"],
        ["Bob", "0", "10"],
        ["Bob", "1", "10"],
        ["gen", "5", "10"],
        ["gen", "7", "10"],
        ["gen", "9", "10"],
    ]
