"""POST /api/v1/pipelines/preview: the first rows of what steps make of a dataset, as a
dataset's preview answers them, executed in the previews' isolated processes with their
bounds; read rights on every input; a read-only personal access token may call it."""

import pytest

from datahub.pipelines import engine
from datahub.platform import isolation
from tests.access.conftest import personal_token
from tests.pipelines.helpers import PIPELINES, source
from tests.resources import create_dataset, upload

PREVIEW = "/api/v1/pipelines/preview"
SECRET = "SECRET-4b1d"


@pytest.fixture
def editor(actors):
    return actors["editor"].headers


@pytest.fixture
def people(client, editor):
    return source(client, editor)


def preview(client, headers, source_id, steps=(), **fields):
    body = {"source_dataset_id": source_id, "steps": list(steps), **fields}
    return client.post(PREVIEW, json=body, headers=headers)


def ok(response):
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_select_filter_and_sql_steps(client, editor, people):
    steps = [
        {"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"},
        {"op": "select", "columns": ["name", "age"]},
        {"op": "sql", "query": "SELECT name, age + 1 AS next_age FROM input ORDER BY name"},
    ]
    assert ok(preview(client, editor, people["id"], steps)) == {
        "format": "csv",
        "columns": [{"name": "name", "type": "VARCHAR"}, {"name": "next_age", "type": "BIGINT"}],
        "rows": [["Ann", 35], ["Ann", 35], ["Cid", 101]],
        "truncated": False,
    }


def test_zero_steps_is_the_source_preview(client, editor, people):
    dataset_preview = client.get(f"/api/v1/datasets/{people['id']}/preview", headers=editor)
    assert ok(preview(client, editor, people["id"])) == ok(dataset_preview)


def test_a_version_of_the_source_and_the_limit(client, editor, people):
    assert upload(client, editor, people["id"], b"name,city,age\nZed,Oslo,1\n").status_code == 200
    first = ok(preview(client, editor, people["id"], source_version=1, limit=2))
    assert first["rows"] == [["Ann", "Oslo", 34], ["Bob", "Bergen", 9]]
    assert ok(preview(client, editor, people["id"]))["rows"] == [["Zed", "Oslo", 1]]
    assert ok(preview(client, editor, people["id"], source_version=2))["rows"] == [
        ["Zed", "Oslo", 1]
    ]
    missing = preview(client, editor, people["id"], source_version=3)
    assert (missing.status_code, missing.get_json()) == (404, {"detail": "Version not found"})


def test_a_join_with_another_dataset(client, editor, people):
    towns = source(client, editor, "city,country\nOslo,Norway\nBergen,Norway\n", name="towns")
    steps = [
        {"op": "join", "dataset_id": towns["id"], "on": ["city"]},
        {"op": "select", "columns": ["name", "country"]},
        {"op": "sort", "columns": ["name"]},
    ]
    rows = ok(preview(client, editor, people["id"], steps, limit=3))["rows"]
    assert rows == [["Ann", "Norway"], ["Ann", "Norway"], ["Bob", "Norway"]]


@pytest.mark.parametrize(
    ("body", "loc", "kind"),
    [
        (
            {"steps": [{"op": "limit", "count": 1}, {"op": "sql", "query": "DROP TABLE input"}]},
            ["body", "steps", 1, "query"],
            "value_error.sql",
        ),
        ({"steps": [{"op": "sort"}]}, ["body", "steps", 0, "columns"], "value_error.missing"),
        ({"steps": [{"op": "explode"}]}, ["body", "steps", 0, "op"], None),
        ({}, ["body", "steps"], "value_error.missing"),
        ({"steps": [], "limit": 0}, ["body", "limit"], None),
        ({"steps": [], "limit": 1001}, ["body", "limit"], None),
        ({"steps": [], "source_version": 0}, ["body", "source_version"], None),
        ({"steps": [], "extra": 1}, ["body", "extra"], None),
    ],
)
def test_invalid_bodies_are_422_with_their_loc(client, editor, people, body, loc, kind):
    response = client.post(
        PREVIEW, json={"source_dataset_id": people["id"], **body}, headers=editor
    )
    assert response.status_code == 422, response.get_json()
    errors = response.get_json()["detail"]
    assert [error["loc"] for error in errors] == [loc]
    assert kind is None or errors[0]["type"] == kind


def test_step_errors_are_those_of_creating_a_pipeline(client, editor, people):
    steps = [
        {"op": "select", "columns": []},
        {"op": "filter", "column": "a", "operator": "like", "value": 1},
        {"op": "sql", "query": "SELECT * FROM read_csv('/etc/passwd')"},
    ]
    previewed = preview(client, editor, people["id"], steps)
    created = client.post(
        PIPELINES,
        json={
            "name": "p",
            "source_dataset_id": people["id"],
            "steps": steps,
            "output_dataset_name": "out",
        },
        headers=editor,
    )
    assert previewed.status_code == created.status_code == 422
    assert previewed.get_json() == created.get_json()
    assert {tuple(error["loc"][:3]) for error in previewed.get_json()["detail"]} == {
        ("body", "steps", 0),
        ("body", "steps", 1),
        ("body", "steps", 2),
    }


def test_a_private_source_or_join_input_is_not_found(client, actors, editor, people):
    other = actors["other_editor"].headers
    hidden = source(client, other, "city,secret\nOslo,1\n", name="hidden")
    private = client.patch(
        f"/api/v1/datasets/{hidden['id']}", json={"visibility": "private"}, headers=other
    )
    assert private.status_code == 200
    not_found = (404, {"detail": "Dataset not found"})
    response = preview(client, editor, hidden["id"])
    assert (response.status_code, response.get_json()) == not_found
    join = [{"op": "join", "dataset_id": hidden["id"], "on": ["city"], "version": 1}]
    response = preview(client, editor, people["id"], join)
    assert (response.status_code, response.get_json()) == not_found
    response = preview(client, editor, 10**12)
    assert (response.status_code, response.get_json()) == not_found
    assert ok(preview(client, other, people["id"], join))["rows"] == [
        ["Ann", "Oslo", 34, 1],
        ["Cid", "Oslo", 100, 1],
        ["Ann", "Oslo", 34, 1],
    ]


def test_a_dataset_without_a_file(client, editor):
    empty = create_dataset(client, editor, "empty")
    response = preview(client, editor, empty["id"])
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset has no file"})
    assert client.get(f"/api/v1/datasets/{empty['id']}/preview", headers=editor).get_json() == {
        "detail": "Dataset has no file"
    }


def test_a_viewer_previews_and_a_read_token_too_but_creates_nothing(client, actors, people):
    assert ok(preview(client, actors["viewer"].headers, people["id"]))["rows"]
    reader = personal_token(client, actors["editor"], ["read"]).headers
    assert ok(preview(client, reader, people["id"], [{"op": "limit", "count": 1}]))["rows"] == [
        ["Ann", "Oslo", 34]
    ]
    body = {"name": "p", "source_dataset_id": people["id"], "output_dataset_name": "o"}
    refused = client.post(PIPELINES, json=body, headers=reader)
    assert (refused.status_code, refused.get_json()) == (403, {"detail": "Forbidden"})
    refused = client.post("/api/v1/datasets/", json={"name": "d"}, headers=reader)
    assert refused.status_code == 403


def test_other_methods_are_405_not_a_pipeline_id(client, editor):
    for method in ("get", "patch", "put", "delete"):
        response = getattr(client, method)(PREVIEW, json={}, headers=editor)
        assert (response.status_code, response.get_json()) == (
            405,
            {"detail": "Method Not Allowed"},
        ), method
        assert "POST" in response.headers["Allow"] and "GET" not in response.headers["Allow"]
    response = client.get(f"{PIPELINES}abc", headers=editor)
    assert response.get_json()["detail"][0]["loc"] == ["path", "pipeline_id"]


def test_needs_a_login(client, people):
    response = client.post(PREVIEW, json={"source_dataset_id": people["id"], "steps": []})
    assert response.status_code == 401


def test_an_error_from_the_data_shows_no_value(client, editor):
    secrets = source(client, editor, f"name,n\n{SECRET},1\n", name="secrets")
    cast = [{"op": "cast", "column": "name", "type": "integer"}]
    response = preview(client, editor, secrets["id"], cast)
    assert response.status_code == 422
    detail = response.get_json()["detail"]
    assert detail.startswith("step 0 (cast): Conversion Error: a value of column 'name'")
    assert detail.endswith("(values from the data are not shown in a preview's error)")
    response = preview(
        client, editor, secrets["id"], [{"op": "sql", "query": "SELECT error(name) FROM input"}]
    )
    assert response.status_code == 422
    assert response.get_json()["detail"].startswith("the preview failed: Invalid Input Error")
    assert SECRET not in response.get_data(as_text=True)


def test_a_missing_column_says_which_step(client, editor, people):
    response = preview(client, editor, people["id"], [{"op": "select", "columns": ["nope"]}])
    assert (response.status_code, response.get_json()) == (
        422,
        {
            "detail": "step 0 (select): column 'nope' does not exist; the columns are: name, city, age"
        },
    )


def test_a_slow_preview_times_out(app, client, editor):
    app.config["PREVIEW_TIMEOUT_SECONDS"] = 0.5
    many = source(client, editor, "x\n" + "".join(f"{i}\n" for i in range(3000)), name="many")
    cross = [
        {"op": "sql", "query": "SELECT sum(a.x * b.x * c.x) AS s FROM input a, input b, input c"}
    ]
    response = preview(client, editor, many["id"], cross)
    assert (response.status_code, response.get_json()) == (422, {"detail": "Preview timed out"})
    assert isolation.running_jobs() == set()


def test_a_preview_over_max_bytes_is_too_large(app, client, editor, people):
    app.config["PREVIEW_MAX_BYTES"] = 200
    response = preview(client, editor, people["id"], [{"op": "limit", "count": 5}])
    assert (response.status_code, response.get_json()) == (422, {"detail": "Preview is too large"})


def test_long_cells_are_cut(client, editor):
    long = source(client, editor, "t\n" + "y" * 1500 + "\n", name="long")
    body = ok(preview(client, editor, long["id"], [{"op": "limit", "count": 1}]))
    assert body["truncated"] is True and body["rows"] == [["y" * 1000 + "…"]]


def test_steps_never_run_in_the_web_process(client, editor, people, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a pipeline preview ran in the web process")

    monkeypatch.setattr(engine, "compile_steps", refuse)
    assert ok(preview(client, editor, people["id"], [{"op": "limit", "count": 1}]))["rows"]
