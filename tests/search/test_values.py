"""Search inside the data: a pipeline worker reads the values of each dataset's current
version into its search document (datahub.search.values), bounded, once per version."""

import io
import json
import logging
import threading
import time

import duckdb
import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.models import Dataset
from datahub.pipelines import worker
from datahub.search import values, values_job
from datahub.search.models import SearchDocument
from tests.resources import actors, create_dataset, upload  # noqa: F401  (fixture)

CITIES = b"id,city,population\n1,Oslo,709000\n2,Trondheim,212000\n3,Bergen,291000\n"


@pytest.fixture
def config_overrides(tmp_path):
    return {"STORAGE_PATH": str(tmp_path / "storage")}


@pytest.fixture
def editor(actors):  # noqa: F811
    return actors["editor"]


@pytest.fixture
def with_file(app, client, editor):
    """``with_file(content)``: a new dataset holding ``content``, with its search document."""
    count = 0

    def make(content, name=None):
        nonlocal count
        count += 1
        dataset = create_dataset(client, editor.headers, name or f"values {count}")
        put(client, editor, dataset, content)
        ensure_document(app, dataset["id"])
        return dataset

    return make


def put(client, editor, dataset, content):
    response = upload(client, editor.headers, dataset["id"], content)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def ensure_document(app, dataset_id):
    """The dataset's search document, written here when the service did not write one."""
    with app.app_context():
        found = db.session.scalar(
            sa.select(SearchDocument.id).where(
                SearchDocument.kind == "dataset", SearchDocument.resource_id == dataset_id
            )
        )
        if found is None:
            dataset = db.session.get(Dataset, dataset_id)
            db.session.add(
                SearchDocument(
                    kind="dataset",
                    resource_id=dataset_id,
                    name=dataset.name,
                    owner_id=dataset.owner_id,
                    visibility=dataset.visibility,
                    updated_at=dataset.updated_at,
                )
            )
            db.session.commit()


def document(app, dataset_id):
    """The dataset's search document as a dict, or None."""
    with app.app_context():
        row = db.session.scalar(
            sa.select(SearchDocument).where(
                SearchDocument.kind == "dataset", SearchDocument.resource_id == dataset_id
            )
        )
        if row is None:
            return None
        return {
            "columns": row.columns,
            "cell_values": row.cell_values,
            "column_data": row.column_data,
            "values_version": row.values_version,
        }


def matching(app, word):
    """The resource ids of the dataset documents whose full-text index has ``word``."""
    with app.app_context():
        if db.engine.dialect.name == "sqlite":
            query = sa.text(
                "SELECT d.resource_id FROM search_text JOIN search_documents d "
                "ON d.id = search_text.rowid WHERE search_text MATCH :word"
            )
        else:
            query = sa.text(
                "SELECT resource_id FROM search_documents "
                "WHERE document @@ plainto_tsquery('datahub_search', :word)"
            )
        return sorted(db.session.scalars(query, {"word": word}).all())


def index(app, limit=10):
    return values.index_pending(app, limit=limit)


def parquet_bytes(tmp_path, sql):
    path = tmp_path / "made.parquet"
    duckdb.sql(f"COPY ({sql}) TO '{path}' (FORMAT parquet)")
    return path.read_bytes()


def test_a_csv_files_values_are_indexed(app, with_file):
    dataset = with_file(CITIES)
    assert document(app, dataset["id"])["values_version"] is None
    assert index(app) == 1
    found = document(app, dataset["id"])
    assert found["values_version"] == 1
    assert found["columns"] == "id\ncity\npopulation"
    assert found["column_data"] == [
        {"name": "id", "type": "BIGINT", "values": ["1", "2", "3"]},
        {"name": "city", "type": "VARCHAR", "values": ["Oslo", "Trondheim", "Bergen"]},
        {"name": "population", "type": "BIGINT", "values": ["709000", "212000", "291000"]},
    ]
    assert "Trondheim" in found["cell_values"].split("\n")
    assert matching(app, "Trondheim") == [dataset["id"]]
    assert index(app) == 0  # done: not read again


def test_the_search_finds_a_dataset_by_a_value_in_its_data(app, client, editor, with_file):
    dataset = with_file(CITIES, name="Municipalities")
    with_file(b"id,city\n1,Oslo\n", name="Other")

    def found():
        response = client.get(
            "/api/v1/search", query_string={"q": "trondheim"}, headers=editor.headers
        )
        assert response.status_code == 200, response.get_json()
        return [(i["id"], i["matched_columns"]) for i in response.get_json()["items"]]

    assert found() == []  # not read yet
    index(app)
    assert found() == [(dataset["id"], [{"name": "city", "value": "Trondheim"}])]


def test_the_worker_indexes_values_every_few_seconds(app, with_file):
    dataset = with_file(CITIES)
    assert worker.run_once(app) is None  # a worker's first round is one interval after its start
    assert document(app, dataset["id"])["values_version"] is None
    app.config["SEARCH_VALUES_SECONDS"] = 0
    assert worker.run_once(app) is None  # no run queued; the values are read
    assert document(app, dataset["id"])["values_version"] == 1


def test_a_celery_worker_indexes_values_in_a_thread(app, with_file):
    dataset = with_file(CITIES)
    app.config["SEARCH_VALUES_SECONDS"] = 0.1
    stop = threading.Event()
    indexer = values.in_background(app, stop).start()
    try:
        deadline = time.monotonic() + 30
        while document(app, dataset["id"])["values_version"] is None:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        stop.set()
        indexer.thread.join(30)
    assert not indexer.thread.is_alive()
    assert "Trondheim" in document(app, dataset["id"])["cell_values"]


def test_the_most_frequent_values_come_first(app, with_file):
    rows = "".join(f"{i},{'Trondheim' if i % 3 else 'Oslo'},{i % 2}\n" for i in range(300))
    dataset = with_file(("id,city,flag\n" + rows).encode())
    index(app)
    columns = {c["name"]: c["values"] for c in document(app, dataset["id"])["column_data"]}
    assert columns["city"] == ["Trondheim", "Oslo"]
    assert columns["flag"] == ["0", "1"]
    assert len(columns["id"]) == values_job.TOP_VALUES  # a number: its top values only


def test_a_new_version_replaces_the_values(app, client, editor, with_file):
    dataset = with_file(CITIES)
    index(app)
    put(client, editor, dataset, b"town,county\nTromso,Troms\n")
    assert index(app) == 1
    found = document(app, dataset["id"])
    assert found["values_version"] == 2
    assert found["columns"] == "town\ncounty"
    assert found["cell_values"] == "Tromso\nTroms"
    assert matching(app, "Trondheim") == []
    assert matching(app, "Tromso") == [dataset["id"]]


def test_the_oldest_versions_are_read_first_a_few_at_a_time(app, with_file):
    datasets = [with_file(CITIES) for _ in range(3)]
    assert index(app, limit=2) == 2
    read = [document(app, d["id"])["values_version"] for d in datasets]
    assert read == [1, 1, None]
    assert index(app, limit=2) == 1


def test_a_file_with_too_many_columns_has_none(app, with_file, tmp_path):
    app.config["PIPELINE_MAX_COLUMNS"] = 3
    select = ", ".join(f"{i} AS c{i}" for i in range(4))
    dataset = with_file(parquet_bytes(tmp_path, f"SELECT {select}"))
    assert index(app) == 1
    assert document(app, dataset["id"])["column_data"] == []


def test_a_file_that_is_not_a_table_has_no_columns(app, with_file):
    dataset = with_file(b"\x00\x01binary\x00")
    assert index(app) == 1
    found = document(app, dataset["id"])
    assert found == {"columns": "", "cell_values": "", "column_data": [], "values_version": 1}
    assert index(app) == 0


def test_a_damaged_csv_has_no_columns(app, with_file):
    dataset = with_file(b"a,b\n1,2\n3\n")  # a row short of a field
    assert index(app) == 1
    assert document(app, dataset["id"])["column_data"] == []


def test_parquet_values(app, with_file, tmp_path):
    content = parquet_bytes(
        tmp_path,
        "SELECT * FROM (VALUES (1, 'Trondheim', DATE '2024-05-01'), (2, 'Oslo', NULL)) "
        "t(id, city, day)",
    )
    dataset = with_file(content)
    index(app)
    assert document(app, dataset["id"])["column_data"] == [
        {"name": "id", "type": "INTEGER", "values": ["1", "2"]},
        {"name": "city", "type": "VARCHAR", "values": ["Trondheim", "Oslo"]},
        {"name": "day", "type": "DATE", "values": ["2024-05-01"]},  # no null
    ]
    assert matching(app, "trondheim") == [dataset["id"]]


def test_json_lines_values(app, with_file):
    lines = [{"city": "Trondheim", "tags": ["a", "b"]}, {"city": None, "tags": []}]
    dataset = with_file("\n".join(json.dumps(line) for line in lines).encode())
    index(app)
    columns = document(app, dataset["id"])["column_data"]
    assert [(c["name"], c["type"]) for c in columns] == [
        ("city", "VARCHAR"),
        ("tags", "VARCHAR[]"),
    ]
    assert columns[0]["values"] == ["Trondheim"]
    assert columns[1]["values"] == ["[a, b]", "[]"]


def test_huge_files_are_read_within_bounds(app, with_file):
    rows = io.StringIO()
    rows.write("id,word,long,late\n")
    for i in range(30_000):
        late = "Trondheim" if i >= values_job.SCAN_ROWS else "x"
        rows.write(f"{i},w{i},{i}{'y' * 150},{late}\n")
    dataset = with_file(rows.getvalue().encode())
    index(app)
    columns = {c["name"]: c["values"] for c in document(app, dataset["id"])["column_data"]}
    # Only the first rows are read: a value that comes later is not found.
    assert columns["late"] == ["x"]
    # Distinct text values: the top ones and as many more as allowed.
    assert len(columns["word"]) == values_job.TOP_VALUES + values_job.TEXT_VALUES
    # Long text: only its most frequent values, cut.
    assert len(columns["long"]) == values_job.TOP_VALUES
    assert {len(v) for v in columns["long"]} == {values_job.VALUE_CHARS}


def test_the_values_are_bounded_fairly_across_columns(app, with_file):
    names = [f"c{i}" for i in range(60)]
    lines = [",".join(names)]
    lines += [",".join(f"{name}-{row:04d}-{'z' * 60}" for name in names) for row in range(300)]
    dataset = with_file("\n".join(lines).encode())
    index(app)
    columns = document(app, dataset["id"])["column_data"]
    sizes = [sum(len(v.encode()) + 1 for v in c["values"]) for c in columns]
    assert sum(sizes) <= values_job.MAX_VALUE_BYTES
    assert min(sizes) > 0 and max(sizes) - min(sizes) < 100  # an equal share each


def test_bounded_gives_small_columns_what_they_need():
    kept = values_job.bounded([["a"], ["bb"] * 100, ["ccc"] * 100], 200)
    assert kept[0] == ["a"]  # 2 bytes
    assert sum(len(v) + 1 for column in kept for v in column) <= 200
    assert len(kept[1]) == 33 and len(kept[2]) == 24  # 99 bytes each, then what is left


def test_a_read_that_fails_is_recorded_once_without_columns(app, with_file, caplog):
    caplog.set_level(logging.WARNING, logger="datahub.search.values")
    dataset = with_file(CITIES)
    app.config["SEARCH_VALUES_TIMEOUT_SECONDS"] = 0
    assert index(app) == 1
    found = document(app, dataset["id"])
    assert (found["values_version"], found["column_data"]) == (1, [])
    [line] = [r.getMessage() for r in caplog.records if r.name == "datahub.search.values"]
    assert f"dataset {dataset['id']} version 1: not read (stopped: timeout)" in line
    assert index(app) == 0  # not tried again until a new version


def test_a_dataset_deleted_while_its_values_are_read(app, client, editor, with_file, monkeypatch):
    dataset = with_file(CITIES)
    read = values.read_values

    def read_then_delete(*args, **kwargs):
        found = read(*args, **kwargs)
        response = client.delete(f"/api/v1/datasets/{dataset['id']}", headers=editor.headers)
        assert response.status_code == 204
        return found

    monkeypatch.setattr(values, "read_values", read_then_delete)
    assert index(app) == 0
    # Its document is gone with it, or (written by this test) left without values.
    assert (document(app, dataset["id"]) or {}).get("values_version") is None


def test_a_new_version_while_the_old_one_is_read(app, client, editor, with_file, monkeypatch):
    dataset = with_file(CITIES)
    read = values.read_values

    def read_then_replace(*args, **kwargs):
        found = read(*args, **kwargs)
        put(client, editor, dataset, b"town\nTromso\n")
        return found

    monkeypatch.setattr(values, "read_values", read_then_replace)
    assert index(app) == 0  # version 1's values are not written over version 2
    assert document(app, dataset["id"])["values_version"] is None
    monkeypatch.undo()
    assert index(app) == 1
    found = document(app, dataset["id"])
    assert (found["values_version"], found["columns"]) == (2, "town")


def test_index_dataset_now_reads_again(app, with_file):
    dataset = with_file(CITIES)
    index(app)
    with app.app_context():
        db.session.execute(
            sa.update(SearchDocument)
            .where(SearchDocument.resource_id == dataset["id"])
            .values(cell_values="")
        )
        db.session.commit()
    columns = values.index_dataset_now(app, dataset["id"])
    assert [c["name"] for c in columns] == ["id", "city", "population"]
    assert "Trondheim" in document(app, dataset["id"])["cell_values"]
    assert values.index_dataset_now(app, 999_999) is None
