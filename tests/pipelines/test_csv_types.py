"""A stored CSV file's column types are inferred once per process (datahub.pipelines.csv_types)
and given to the jobs of later runs and previews over the same file, which take them
instead of sampling the file again; a join's input too."""

import pytest

from datahub.app.extensions import db
from datahub.datasets.models import Dataset
from datahub.pipelines import csv_types
from tests.pipelines.helpers import PIPELINES, create_pipeline, output_rows, run_now, source
from tests.resources import create_dataset, upload

PEOPLE_TYPES = [[["name", "VARCHAR"], ["city", "VARCHAR"], ["age", "BIGINT"]], None, None]
AGE_AS_DOUBLE = [[["name", "VARCHAR"], ["city", "VARCHAR"], ["age", "DOUBLE"]], None, None]


@pytest.fixture(autouse=True)
def nothing_known():
    csv_types._known.clear()
    yield
    csv_types._known.clear()


@pytest.fixture
def editor(actors):
    return actors["editor"].headers


def known_types(app, dataset_id):
    """What this process keeps for the dataset's current file (None: nothing)."""
    with app.app_context():
        key = db.session.get(Dataset, dataset_id).file_key
    size = int(app.config["PIPELINE_MAX_LINE_SIZE"])
    return csv_types.known({key: "file"}, size).get("file"), key, size


def test_a_run_keeps_its_sources_types_and_the_next_run_takes_them(app, client, editor):
    people = source(client, editor)
    oldest = [{"op": "sort", "columns": ["age"], "descending": True}]
    first = run_now(
        app, client, editor, create_pipeline(client, editor, people["id"], oldest)["id"]
    )
    assert first["status"] == "succeeded", first["error"]
    types, key, size = known_types(app, people["id"])
    assert types == PEOPLE_TYPES

    # What is kept is what the next run reads the file with, not a new sample of it.
    csv_types.remember({key: "file"}, size, {"file": AGE_AS_DOUBLE})
    pipe = create_pipeline(client, editor, people["id"], oldest, name="again", output="again")
    again = run_now(app, client, editor, pipe["id"])
    assert again["status"] == "succeeded", again["error"]
    assert output_rows(client, editor, again)[1] == ["Cid", "Oslo", "100.0"]


def test_a_new_version_is_sampled_as_a_new_file(app, client, editor):
    people = source(client, editor)
    run_now(app, client, editor, create_pipeline(client, editor, people["id"])["id"])
    assert upload(client, editor, people["id"], b"name,city,age\nZed,Oslo,1.5\n").status_code == 200
    assert known_types(app, people["id"])[0] is None
    run = run_now(
        app, client, editor, create_pipeline(client, editor, people["id"], name="v2")["id"]
    )
    assert run["status"] == "succeeded", run["error"]
    assert known_types(app, people["id"])[0][0][2] == ["age", "DOUBLE"]
    assert output_rows(client, editor, run)[1:] == [["Zed", "Oslo", "1.5"]]


def test_a_joined_file_is_kept_too(app, client, editor):
    people = source(client, editor)
    towns = create_dataset(client, editor, "towns")
    assert (
        upload(client, editor, towns["id"], b"city,size\nOslo,700\nBergen,290\n").status_code == 200
    )
    join = [{"op": "join", "dataset_id": towns["id"], "on": ["city"], "how": "inner"}]
    run = run_now(app, client, editor, create_pipeline(client, editor, people["id"], join)["id"])
    assert run["status"] == "succeeded", run["error"]
    assert known_types(app, towns["id"])[0] == [
        [["city", "VARCHAR"], ["size", "BIGINT"]],
        None,
        None,
    ]


def test_a_preview_keeps_and_takes_them(app, client, editor):
    people = source(client, editor)
    body = {"source_dataset_id": people["id"], "steps": [], "limit": 1}
    response = client.post(f"{PIPELINES}preview", json=body, headers=editor)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["columns"][2] == {"name": "age", "type": "BIGINT"}
    types, key, size = known_types(app, people["id"])
    assert types == PEOPLE_TYPES

    csv_types.remember({key: "file"}, size, {"file": AGE_AS_DOUBLE})
    response = client.post(f"{PIPELINES}preview", json=body, headers=editor)
    assert response.get_json()["columns"][2] == {"name": "age", "type": "DOUBLE"}
    assert response.get_json()["rows"] == [["Ann", "Oslo", 34.0]]


def test_the_process_keeps_a_bounded_number_of_files():
    size = 1024
    for number in range(csv_types.MOST_FILES + 10):
        csv_types.remember({f"key{number}": "p"}, size, {"p": PEOPLE_TYPES})
    assert len(csv_types._known) == csv_types.MOST_FILES
    assert csv_types.known({"key0": "p"}, size) == {}  # the oldest went first
    assert csv_types.known({f"key{csv_types.MOST_FILES + 9}": "p"}, size) == {"p": PEOPLE_TYPES}
    assert csv_types.known({f"key{csv_types.MOST_FILES + 9}": "p"}, size + 1) == {}
    wide = [[[f"c{n}", "BIGINT"] for n in range(csv_types.MOST_COLUMNS + 1)], None, None]
    csv_types.remember({"wide": "p"}, size, {"p": wide})
    assert csv_types.known({"wide": "p"}, size) == {}
