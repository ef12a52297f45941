"""Validation of the cast, aggregate, join and sql steps and of ``output_format`` at create
and patch: 422 with ``loc`` into the body, pydantic-v1 shape."""

import pytest

from tests.pipelines.helpers import PIPELINES, create_pipeline, source
from tests.resources import validation_error

CAST_TYPES = "integer, float, string, boolean, date, timestamp"
FUNCTIONS = "sum, avg, min, max, count"
ENUM = "value is not a valid enumeration member; permitted: {}"
MISSING = ("field required", "value_error.missing")
MIN_ONE = ("ensure this value has at least 1 characters", "value_error.any_str.min_length")
NOT_INT = ("value is not a valid integer", "type_error.integer")
NOT_STR = ("str type expected", "type_error.str")
NOT_NONE = ("none is not an allowed value", "type_error.none.not_allowed")
EXTRA = ("extra fields not permitted", "value_error.extra")
SUM_AGE = {"function": "sum", "column": "age"}

# (steps, loc below ["body", "steps"], msg, type)
CASES = [
    # cast
    ([{"op": "cast", "type": "integer"}], [0, "column"], *MISSING),
    ([{"op": "cast", "column": "age"}], [0, "type"], *MISSING),
    ([{"op": "cast", "column": "", "type": "integer"}], [0, "column"], *MIN_ONE),
    (
        [{"op": "cast", "column": "age", "type": "money"}],
        [0, "type"],
        ENUM.format(CAST_TYPES),
        "type_error.enum",
    ),
    (
        [{"op": "cast", "column": "age", "type": "INTEGER"}],
        [0, "type"],
        ENUM.format(CAST_TYPES),
        "type_error.enum",
    ),
    ([{"op": "cast", "column": "age", "type": 1}], [0, "type"], *NOT_STR),
    ([{"op": "cast", "column": "age", "type": "integer", "strict": True}], [0, "strict"], *EXTRA),
    # aggregate
    ([{"op": "aggregate", "group_by": ["city"]}], [0, "aggregates"], *MISSING),
    ([{"op": "aggregate", "aggregates": []}], [0, "aggregates"], *MIN_ONE),
    (
        [{"op": "aggregate", "aggregates": SUM_AGE}],
        [0, "aggregates"],
        "value is not a valid list",
        "type_error.list",
    ),
    (
        [{"op": "aggregate", "aggregates": ["sum"]}],
        [0, "aggregates", 0],
        "value is not a valid dict",
        "type_error.dict",
    ),
    (
        [{"op": "aggregate", "aggregates": [{"function": "median", "column": "age"}]}],
        [0, "aggregates", 0, "function"],
        ENUM.format(FUNCTIONS),
        "type_error.enum",
    ),
    (
        [{"op": "aggregate", "aggregates": [{"column": "age"}]}],
        [0, "aggregates", 0, "function"],
        *MISSING,
    ),
    (
        [{"op": "aggregate", "aggregates": [{"function": "sum"}]}],
        [0, "aggregates", 0, "column"],
        *MISSING,
    ),
    (
        [{"op": "aggregate", "aggregates": [SUM_AGE, {"function": "max"}]}],
        [0, "aggregates", 1, "column"],
        *MISSING,
    ),
    (
        [{"op": "aggregate", "aggregates": [{"function": "avg", "column": ""}]}],
        [0, "aggregates", 0, "column"],
        *MIN_ONE,
    ),
    (
        [{"op": "aggregate", "aggregates": [{**SUM_AGE, "as": ""}]}],
        [0, "aggregates", 0, "as"],
        *MIN_ONE,
    ),
    (
        [{"op": "aggregate", "aggregates": [{**SUM_AGE, "alias": "total"}]}],
        [0, "aggregates", 0, "alias"],
        *EXTRA,
    ),
    (
        [{"op": "aggregate", "aggregates": [SUM_AGE], "group_by": "city"}],
        [0, "group_by"],
        "value is not a valid list",
        "type_error.list",
    ),
    ([{"op": "aggregate", "aggregates": [SUM_AGE], "group_by": [1]}], [0, "group_by", 0], *NOT_STR),
    # join (a dataset that does not exist: see below)
    ([{"op": "join", "on": ["name"]}], [0, "dataset_id"], *MISSING),
    ([{"op": "join", "dataset_id": "1", "on": ["name"]}], [0, "dataset_id"], *NOT_INT),
    ([{"op": "join", "dataset_id": 1.5, "on": ["name"]}], [0, "dataset_id"], *NOT_INT),
    (
        [{"op": "join", "dataset_id": 0, "on": ["name"]}],
        [0, "dataset_id"],
        "ensure this value is greater than or equal to 1",
        "value_error.number.not_ge",
    ),
    (
        [{"op": "join", "dataset_id": 1, "on": ["name"], "how": "outer"}],
        [0, "how"],
        ENUM.format("inner, left"),
        "type_error.enum",
    ),
    ([{"op": "join", "dataset_id": 1, "on": []}], [0, "on"], *MIN_ONE),
    ([{"op": "join", "dataset_id": 1}], [0, "on"], *MISSING),
    (
        [{"op": "join", "dataset_id": 1, "on": "name"}],
        [0, "on"],
        "value is not a valid list",
        "type_error.list",
    ),
    # sql
    ([{"op": "sql"}], [0, "query"], *MISSING),
    ([{"op": "sql", "query": 5}], [0, "query"], *NOT_STR),
    ([{"op": "sql", "query": None}], [0, "query"], *NOT_NONE),
    ([{"op": "sql", "query": "SELECT * FROM input", "dialect": "pg"}], [0, "dialect"], *EXTRA),
]


def post(client, headers, dataset_id, steps, **fields):
    body = {
        "name": "p",
        "source_dataset_id": dataset_id,
        "steps": steps,
        "output_dataset_name": "out",
        **fields,
    }
    return client.post(PIPELINES, json=body, headers=headers)


def assert_422(response, loc, msg, type_):
    assert response.status_code == 422, response.get_json()
    assert response.get_json() == {"detail": [validation_error(loc, msg, type_)]}


@pytest.mark.parametrize("steps, loc, msg, type_", CASES)
def test_invalid_step_on_create(client, actors, steps, loc, msg, type_):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    assert_422(post(client, editor, dataset["id"], steps), ["body", "steps", *loc], msg, type_)
    assert client.get(PIPELINES, headers=editor).get_json()["items"] == []


@pytest.mark.parametrize(
    "steps, loc, msg, type_",
    [
        CASES[3],  # cast to an unknown type
        CASES[8],  # no aggregates
        CASES[13],  # sum without a column
        (
            [{"op": "limit", "count": 1}, {"op": "join", "dataset_id": 0, "on": ["name"]}],
            [1, "dataset_id"],
            "ensure this value is greater than or equal to 1",
            "value_error.number.not_ge",
        ),
        CASES[-3],  # sql without a query
    ],
)
def test_invalid_step_on_patch(client, actors, steps, loc, msg, type_):
    editor = actors["editor"].headers
    pipeline = create_pipeline(
        client, editor, source(client, editor)["id"], [{"op": "limit", "count": 2}]
    )
    response = client.patch(f"{PIPELINES}{pipeline['id']}", json={"steps": steps}, headers=editor)
    assert_422(response, ["body", "steps", *loc], msg, type_)
    stored = client.get(f"{PIPELINES}{pipeline['id']}", headers=editor).get_json()
    assert stored["steps"] == [{"op": "limit", "count": 2}]
    assert stored["updated_at"] == pipeline["updated_at"]


@pytest.mark.parametrize(
    "query, msg",
    [
        ("", "the query must be a single SELECT statement"),
        ("   ", "the query must be a single SELECT statement"),
        ("-- nothing", "the query must be a single SELECT statement"),
    ],
)
def test_empty_sql_query(client, actors, query, msg):
    editor = actors["editor"].headers
    response = post(client, editor, source(client, editor)["id"], [{"op": "sql", "query": query}])
    assert_422(response, ["body", "steps", 0, "query"], msg, "value_error.sql")


def test_sql_query_length(client, actors):
    editor = actors["editor"].headers
    dataset = source(client, editor)

    def query(length):
        head = "SELECT * FROM input WHERE name <> '"
        return head + "x" * (length - len(head) - 1) + "'"

    assert len(query(100_001)) == 100_001
    assert_422(
        post(client, editor, dataset["id"], [{"op": "sql", "query": query(100_001)}]),
        ["body", "steps", 0, "query"],
        "ensure this value has at most 100000 characters",
        "value_error.any_str.max_length",
    )
    created = post(client, editor, dataset["id"], [{"op": "sql", "query": query(100_000)}])
    assert created.status_code == 201, created.get_json()


def test_sql_query_with_nul(client, actors):
    editor = actors["editor"].headers
    response = post(
        client,
        editor,
        source(client, editor)["id"],
        [{"op": "sql", "query": "SELECT * FROM input\x00"}],
    )
    assert_422(
        response,
        ["body", "steps", 0, "query"],
        "string contains a NUL character",
        "value_error.str.nul",
    )


@pytest.mark.parametrize("dataset_id", [999_999, 2**63 - 1])
def test_join_with_a_dataset_that_does_not_exist(client, actors, dataset_id):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    steps = [{"op": "limit", "count": 5}, {"op": "join", "dataset_id": dataset_id, "on": ["name"]}]
    assert_422(
        post(client, editor, dataset["id"], steps),
        ["body", "steps", 1, "dataset_id"],
        "dataset not found",
        "value_error.dataset_not_found",
    )
    assert client.get(PIPELINES, headers=editor).get_json()["items"] == []

    pipeline = create_pipeline(client, editor, dataset["id"])
    response = client.patch(f"{PIPELINES}{pipeline['id']}", json={"steps": steps}, headers=editor)
    assert_422(
        response,
        ["body", "steps", 1, "dataset_id"],
        "dataset not found",
        "value_error.dataset_not_found",
    )
    assert client.get(f"{PIPELINES}{pipeline['id']}", headers=editor).get_json()["steps"] == []


def test_join_dataset_too_large(client, actors):
    editor = actors["editor"].headers
    response = post(
        client,
        editor,
        source(client, editor)["id"],
        [{"op": "join", "dataset_id": 2**63, "on": ["name"]}],
    )
    assert_422(
        response,
        ["body", "steps", 0, "dataset_id"],
        f"ensure this value is less than or equal to {2**63 - 1}",
        "value_error.number.not_le",
    )


@pytest.mark.parametrize(
    "value, msg, type_",
    [
        ("xml", ENUM.format("csv, parquet, jsonl"), "type_error.enum"),
        ("CSV", ENUM.format("csv, parquet, jsonl"), "type_error.enum"),
        ("", ENUM.format("csv, parquet, jsonl"), "type_error.enum"),
        (1, *NOT_STR),
        (None, *NOT_NONE),
    ],
)
def test_invalid_output_format(client, actors, value, msg, type_):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    assert_422(
        post(client, editor, dataset["id"], [], output_format=value),
        ["body", "output_format"],
        msg,
        type_,
    )
    pipeline = create_pipeline(client, editor, dataset["id"])
    response = client.patch(
        f"{PIPELINES}{pipeline['id']}", json={"output_format": value}, headers=editor
    )
    assert_422(response, ["body", "output_format"], msg, type_)
    assert (
        client.get(f"{PIPELINES}{pipeline['id']}", headers=editor).get_json()["output_format"]
        == "csv"
    )


@pytest.mark.parametrize("value", ["csv", "parquet", "jsonl"])
def test_valid_output_format(client, actors, value):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"], output_format=value)
    assert pipeline["output_format"] == value


def test_valid_new_steps_are_stored_normalised(client, actors):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    other = source(client, editor, "name,team\r\nAnn,red\r\n", name="teams")
    steps = [
        {"op": "cast", "column": "age", "type": "float"},
        {"op": "join", "dataset_id": other["id"], "on": ["name"]},
        {
            "op": "aggregate",
            "aggregates": [
                {"function": "count"},
                {"function": "sum", "column": "age", "as": "total"},
            ],
        },
        {"op": "sql", "query": "SELECT * FROM input"},
    ]
    pipeline = create_pipeline(client, editor, dataset["id"], steps)
    assert pipeline["steps"] == [
        {"op": "cast", "column": "age", "type": "float"},
        {"op": "join", "dataset_id": other["id"], "on": ["name"], "how": "inner"},
        {
            "op": "aggregate",
            "group_by": [],
            "aggregates": [
                {"function": "count"},
                {"function": "sum", "column": "age", "as": "total"},
            ],
        },
        {"op": "sql", "query": "SELECT * FROM input"},
    ]
