"""GET /datasets/{id}/preview: the first rows of a dataset's file, read as a table."""

import os

import duckdb
import pytest

from tests.resources import create_dataset, upload, validation_error

URL = "/api/v1/datasets/"


@pytest.fixture
def config_overrides(tmp_path):
    # A storage folder of each test's own to look into.
    return {"STORAGE_PATH": str(tmp_path / "storage")}


@pytest.fixture
def editor(actors):
    return actors["editor"]


@pytest.fixture
def with_file(client, editor):
    """A new dataset (of ``editor``) holding ``content``; returns the dataset."""
    count = 0

    def make(content, name=None):
        nonlocal count
        count += 1
        dataset = create_dataset(client, editor.headers, name or f"preview {count}")
        response = upload(client, editor.headers, dataset["id"], content)
        assert response.status_code == 200, response.get_json()
        return dataset

    return make


def preview(client, headers, dataset, query=""):
    return client.get(f"{URL}{dataset['id']}/preview{query}", headers=headers)


def test_csv_columns_have_inferred_types(client, editor, with_file):
    dataset = with_file(b"name,city,age\nAnn,Oslo,31\nBob,,40\n")
    response = preview(client, editor.headers, dataset)
    assert response.status_code == 200
    assert response.get_json() == {
        "format": "csv",
        "columns": [
            {"name": "name", "type": "VARCHAR"},
            {"name": "city", "type": "VARCHAR"},
            {"name": "age", "type": "BIGINT"},
        ],
        "rows": [["Ann", "Oslo", 31], ["Bob", None, 40]],
        "truncated": False,
    }


def test_semicolon_csv(client, editor, with_file):
    dataset = with_file(b"id;label;price\n1;a;2.5\n2;b;3\n")
    assert preview(client, editor.headers, dataset).get_json() == {
        "format": "csv",
        "columns": [
            {"name": "id", "type": "BIGINT"},
            {"name": "label", "type": "VARCHAR"},
            {"name": "price", "type": "DOUBLE"},
        ],
        "rows": [[1, "a", 2.5], [2, "b", 3.0]],
        "truncated": False,
    }


def test_parquet(client, editor, with_file, tmp_path):
    path = tmp_path / "file.parquet"
    con = duckdb.connect()
    con.execute(f"COPY (SELECT 1 AS a, 'x' AS b) TO '{path}' (FORMAT parquet)")
    con.close()
    dataset = with_file(path.read_bytes())
    assert preview(client, editor.headers, dataset).get_json() == {
        "format": "parquet",
        "columns": [{"name": "a", "type": "INTEGER"}, {"name": "b", "type": "VARCHAR"}],
        "rows": [[1, "x"]],
        "truncated": False,
    }


def test_json_lines(client, editor, with_file):
    dataset = with_file(
        b'{"id": 1, "ok": true, "note": "x"}\n{"id": 2, "ok": false, "note": null}\n'
    )
    assert preview(client, editor.headers, dataset).get_json() == {
        "format": "jsonl",
        "columns": [
            {"name": "id", "type": "BIGINT"},
            {"name": "ok", "type": "BOOLEAN"},
            {"name": "note", "type": "VARCHAR"},
        ],
        "rows": [[1, True, "x"], [2, False, None]],
        "truncated": False,
    }


def test_dates_are_iso_text(client, editor, with_file):
    dataset = with_file(b"day,at\n2024-01-31,2024-01-31 08:30:00\n")
    assert preview(client, editor.headers, dataset).get_json() == {
        "format": "csv",
        "columns": [{"name": "day", "type": "DATE"}, {"name": "at", "type": "TIMESTAMP"}],
        "rows": [["2024-01-31", "2024-01-31T08:30:00"]],
        "truncated": False,
    }


def test_limit(client, editor, with_file):
    dataset = with_file(b"n\n" + b"".join(b"%d\n" % n for n in range(60)))
    rows = preview(client, editor.headers, dataset).get_json()["rows"]
    assert rows == [[n] for n in range(50)]  # the default
    assert preview(client, editor.headers, dataset, "?limit=2").get_json()["rows"] == [[0], [1]]
    assert len(preview(client, editor.headers, dataset, "?limit=1000").get_json()["rows"]) == 60


@pytest.mark.parametrize(
    "query, error",
    [
        (
            "?limit=0",
            validation_error(
                ["query", "limit"],
                "ensure this value is greater than or equal to 1",
                "value_error.number.not_ge",
            ),
        ),
        (
            "?limit=1001",
            validation_error(
                ["query", "limit"],
                "ensure this value is less than or equal to 1000",
                "value_error.number.not_le",
            ),
        ),
        (
            "?limit=abc",
            validation_error(
                ["query", "limit"], "value is not a valid integer", "type_error.integer"
            ),
        ),
    ],
)
def test_limit_out_of_range_is_422(client, editor, with_file, query, error):
    dataset = with_file(b"a\n1\n")
    response = preview(client, editor.headers, dataset, query)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [error]}


@pytest.mark.parametrize("config_overrides", [{"PREVIEW_MAX_ROWS": 3}])
def test_the_largest_limit_is_a_setting(client, editor, with_file):
    dataset = with_file(b"a\n1\n")
    assert preview(client, editor.headers, dataset, "?limit=3").status_code == 200
    response = preview(client, editor.headers, dataset, "?limit=4")
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            validation_error(
                ["query", "limit"],
                "ensure this value is less than or equal to 3",
                "value_error.number.not_le",
            )
        ]
    }


def test_dataset_without_a_file_is_404(client, editor):
    dataset = create_dataset(client, editor.headers, "no file")
    response = preview(client, editor.headers, dataset)
    assert response.status_code == 404
    assert response.get_json() == {"detail": "Dataset has no file"}


def test_a_file_missing_from_storage_is_404(app, client, editor, with_file):
    dataset = with_file(b"a\n1\n")
    storage = app.config["STORAGE_PATH"]
    for entry in os.scandir(storage):
        if entry.is_file():
            os.unlink(entry.path)
    response = preview(client, editor.headers, dataset)
    assert response.status_code == 404
    assert response.get_json() == {"detail": "Dataset has no file"}


def test_a_file_removed_while_it_is_read_is_404(client, editor, with_file, monkeypatch):
    """Replaced by an upload (or deleted with its dataset) after the lookup, before the
    preview's process reads it (DuckDB then cannot access the path)."""
    from datahub.datasets import previews

    original = previews.isolation.run_job

    def removed_first(pool, job, args, *rest, **kwargs):
        os.unlink(args["path"])
        return original(pool, job, args, *rest, **kwargs)

    dataset = with_file(b"a\n1\n")
    monkeypatch.setattr(previews.isolation, "run_job", removed_first)
    response = preview(client, editor.headers, dataset)
    assert response.status_code == 404
    assert response.get_json() == {"detail": "Dataset has no file"}


def test_unknown_dataset_is_404(client, editor):
    response = client.get(f"{URL}424242/preview", headers=editor.headers)
    assert response.status_code == 404
    assert response.get_json() == {"detail": "Dataset not found"}


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01", id="binary"),
        pytest.param(b"a,b\n1,2,3\n", id="ragged"),
        pytest.param(b"a,b,a\n1,2,3\n", id="duplicate-columns"),
    ],
)
def test_a_file_that_is_not_a_table_is_422(client, editor, with_file, content):
    dataset = with_file(content)
    response = preview(client, editor.headers, dataset)
    assert response.status_code == 422
    assert response.get_json() == {"detail": "Dataset file is not tabular"}


def test_an_empty_file_is_422(app, client, editor, with_file):
    """An upload of no bytes is refused (400 ``File is empty``), but a file stored empty
    before that still previews as not a table."""
    dataset = with_file(b"a\n1\n")
    folder = app.config["STORAGE_PATH"]
    [name] = os.listdir(folder)
    open(os.path.join(folder, name), "wb").close()
    response = preview(client, editor.headers, dataset)
    assert response.status_code == 422
    assert response.get_json() == {"detail": "Dataset file is not tabular"}


def test_viewer_may_preview(client, actors, with_file):
    dataset = with_file(b"a\n1\n")
    response = preview(client, actors["viewer"].headers, dataset)
    assert response.status_code == 200
    assert response.get_json()["rows"] == [[1]]


def test_a_user_without_a_role_may_not(client, actors, with_file):
    dataset = with_file(b"a\n1\n")
    response = preview(client, actors["nobody"].headers, dataset)
    assert response.status_code == 403
    assert response.get_json() == {"detail": "Forbidden"}


def test_unauthenticated_is_401(client, with_file):
    dataset = with_file(b"a\n1\n")
    response = preview(client, {}, dataset)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Not authenticated"}
    assert client.get(f"{URL}abc/preview").status_code == 401  # before the path's 422


def test_a_path_id_that_is_not_an_integer_is_422(client, editor):
    response = client.get(f"{URL}abc/preview", headers=editor.headers)
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            validation_error(
                ["path", "dataset_id"], "value is not a valid integer", "type_error.integer"
            )
        ]
    }
