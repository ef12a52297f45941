"""Step validation at create and patch: 422 with ``loc`` into the list, pydantic-v1 shape."""

import pytest

from tests.pipelines.helpers import PIPELINES, create_pipeline, source
from tests.resources import validation_error

PERMITTED = "select, rename, filter, sort, dedupe, limit, cast, aggregate, join, sql"
OPERATORS = "eq, ne, lt, le, gt, ge, contains"

CASES = [
    ("nope", [], "value is not a valid list", "type_error.list"),
    (["select"], [0], "value is not a valid dict", "type_error.dict"),
    ([{"columns": ["a"]}], [0, "op"], "field required", "value_error.missing"),
    (
        [{"op": "pivot"}],
        [0, "op"],
        f"value is not a valid enumeration member; permitted: {PERMITTED}",
        "type_error.enum",
    ),
    ([{"op": 3}], [0, "op"], "str type expected", "type_error.str"),
    ([{"op": "select"}], [0, "columns"], "field required", "value_error.missing"),
    (
        [{"op": "select", "columns": []}],
        [0, "columns"],
        "ensure this value has at least 1 characters",
        "value_error.any_str.min_length",
    ),
    (
        [{"op": "select", "columns": "name"}],
        [0, "columns"],
        "value is not a valid list",
        "type_error.list",
    ),
    (
        [{"op": "select", "columns": ["a", 5]}],
        [0, "columns", 1],
        "str type expected",
        "type_error.str",
    ),
    (
        [{"op": "select", "columns": ["a"], "extra": 1}],
        [0, "extra"],
        "extra fields not permitted",
        "value_error.extra",
    ),
    (
        [{"op": "rename", "mapping": ["a"]}],
        [0, "mapping"],
        "value is not a valid dict",
        "type_error.dict",
    ),
    (
        [{"op": "rename", "mapping": {"a": 1}}],
        [0, "mapping", "a", "value"],
        "str type expected",
        "type_error.str",
    ),
    (
        [{"op": "limit", "count": 1}, {"op": "filter", "column": "a", "operator": "eq"}],
        [1, "value"],
        "field required",
        "value_error.missing",
    ),
    (
        [{"op": "filter", "column": "a", "operator": "like", "value": 1}],
        [0, "operator"],
        f"value is not a valid enumeration member; permitted: {OPERATORS}",
        "type_error.enum",
    ),
    (
        [{"op": "filter", "column": "a", "operator": "eq", "value": True}],
        [0, "value"],
        "value must be a string or a number",
        "value_error",
    ),
    (
        [{"op": "filter", "column": "a", "operator": "eq", "value": [1]}],
        [0, "value"],
        "value must be a string or a number",
        "value_error",
    ),
    (
        [{"op": "sort", "columns": ["a"], "descending": "yes"}],
        [0, "descending"],
        "value could not be parsed to a boolean",
        "type_error.bool",
    ),
    (
        [{"op": "dedupe", "columns": None}],
        [0, "columns"],
        "none is not an allowed value",
        "type_error.none.not_allowed",
    ),
    (
        [{"op": "limit", "count": -1}],
        [0, "count"],
        "ensure this value is greater than or equal to 0",
        "value_error.number.not_ge",
    ),
    (
        [{"op": "limit", "count": "3"}],
        [0, "count"],
        "value is not a valid integer",
        "type_error.integer",
    ),
    ([{"op": "limit"}], [0, "count"], "field required", "value_error.missing"),
]


@pytest.mark.parametrize("steps, loc, msg, type_", CASES)
def test_invalid_steps_on_create_and_patch(client, actors, steps, loc, msg, type_):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    body = {
        "name": "p",
        "source_dataset_id": dataset["id"],
        "steps": steps,
        "output_dataset_name": "out",
    }
    response = client.post(PIPELINES, json=body, headers=editor)
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [validation_error(["body", "steps", *loc], msg, type_)]
    }
    pipeline = create_pipeline(client, editor, dataset["id"])
    response = client.patch(f"{PIPELINES}{pipeline['id']}", json={"steps": steps}, headers=editor)
    assert response.status_code == 422
    assert response.get_json()["detail"] == [validation_error(["body", "steps", *loc], msg, type_)]
    assert client.get(f"{PIPELINES}{pipeline['id']}", headers=editor).get_json()["steps"] == []


@pytest.mark.parametrize(
    "body, loc, msg, type_",
    [
        ({}, ["name"], "field required", "value_error.missing"),
        (
            {"name": ""},
            ["name"],
            "ensure this value has at least 1 characters",
            "value_error.any_str.min_length",
        ),
        (
            {"source_dataset_id": "1"},
            ["source_dataset_id"],
            "value is not a valid integer",
            "type_error.integer",
        ),
        (
            {"output_dataset_name": "x" * 256},
            ["output_dataset_name"],
            "ensure this value has at most 255 characters",
            "value_error.any_str.max_length",
        ),
        ({"owner_id": "me"}, ["owner_id"], "extra fields not permitted", "value_error.extra"),
    ],
)
def test_invalid_fields(client, actors, body, loc, msg, type_):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    full = {"name": "p", "source_dataset_id": dataset["id"], "output_dataset_name": "o", **body}
    if body == {}:
        del full["name"]
    response = client.post(PIPELINES, json=full, headers=editor)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [validation_error(["body", *loc], msg, type_)]}


def test_valid_steps_are_stored_normalised(client, actors):
    editor = actors["editor"].headers
    steps = [
        {"op": "sort", "columns": ["a"]},
        {"op": "dedupe"},
        {"op": "filter", "column": "a", "operator": "ge", "value": 2.5},
    ]
    pipeline = create_pipeline(client, editor, source(client, editor)["id"], steps)
    assert pipeline["steps"] == [
        {"op": "sort", "columns": ["a"], "descending": False},
        {"op": "dedupe"},
        {"op": "filter", "column": "a", "operator": "ge", "value": 2.5},
    ]
