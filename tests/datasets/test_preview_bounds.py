"""Previews are bounded: executed in a process of their own, long cells cut, at most
PREVIEW_MAX_BYTES of JSON, within PREVIEW_TIMEOUT_SECONDS and the memory limit."""

import json
import os

import duckdb
import pytest

from datahub.datasets.previews_job import CELL_CHARS, CUT_MARK
from datahub.platform import isolation
from tests.resources import create_dataset, upload

URL = "/api/v1/datasets/"


@pytest.fixture
def editor(actors):
    return actors["editor"]


def with_file(client, headers, data, name="bounded"):
    dataset = create_dataset(client, headers, name)
    assert upload(client, headers, dataset["id"], data).status_code == 200
    return dataset


def preview(client, headers, dataset, limit=50):
    return client.get(f"{URL}{dataset['id']}/preview?limit={limit}", headers=headers)


@pytest.fixture(scope="module")
def parquet_bomb(tmp_path_factory):
    """A few KB of Parquet: 40 rows of a 2 MB string each (80 MB as JSON)."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.parquet"
    con = duckdb.connect()
    con.execute(
        f"COPY (SELECT i, repeat('x', 2000000) AS s FROM range(40) t(i)) TO '{path}' "
        "(FORMAT parquet, COMPRESSION zstd)"
    )
    con.close()
    return path.read_bytes()


def test_long_cells_are_cut_with_a_marker(client, editor, parquet_bomb):
    assert len(parquet_bomb) < 100_000
    dataset = with_file(client, editor.headers, parquet_bomb)
    response = preview(client, editor.headers, dataset, limit=40)
    assert response.status_code == 200
    assert len(response.data) < 1024 * 1024
    body = response.get_json()
    assert body["truncated"] is True
    assert len(body["rows"]) == 40
    assert body["rows"][0] == [0, "x" * CELL_CHARS + CUT_MARK]


def test_a_preview_whose_json_is_still_too_large_is_422(client, editor):
    header = ",".join(f"c{i}" for i in range(200))
    row = ",".join("y" * 900 for _ in range(200))
    dataset = with_file(client, editor.headers, f"{header}\n{row}\n{row}\n".encode())
    assert preview(client, editor.headers, dataset, limit=1).status_code == 200  # 180 KB
    response = preview(client, editor.headers, dataset, limit=10)  # 360 KB, under 1 MiB
    assert response.status_code == 200
    many = f"{header}\n" + f"{row}\n" * 20
    dataset = with_file(client, editor.headers, many.encode(), name="wider")
    response = preview(client, editor.headers, dataset, limit=20)  # 3.6 MB
    assert response.status_code == 422
    assert response.get_json() == {"detail": "Preview is too large"}


def test_preview_max_bytes_is_the_bound(app, client, editor):
    app.config["PREVIEW_MAX_BYTES"] = 200
    dataset = with_file(client, editor.headers, b"a,b\n" + b"1,hello\n" * 20)
    assert preview(client, editor.headers, dataset, limit=2).status_code == 200
    response = preview(client, editor.headers, dataset, limit=20)
    assert (response.status_code, response.get_json()) == (422, {"detail": "Preview is too large"})


def test_a_preview_over_the_memory_limit_is_422_and_this_process_is_untouched(app, client, editor):
    """Wide JSON: one row of 300,000 keys. The preview's process is killed (or DuckDB gives
    up) at its limit; the web process does not grow."""
    app.config.update(PIPELINE_MEMORY_LIMIT="32MB", PIPELINE_MEMORY_MARGIN="32MB")
    wide = json.dumps({f"key{i}": "v" * 20 for i in range(300_000)}).encode() + b"\n"
    dataset = with_file(client, editor.headers, wide * 4)
    before = isolation.resident_bytes(os.getpid())
    response = preview(client, editor.headers, dataset, limit=1)
    assert response.status_code == 422
    assert response.get_json() == {"detail": "Preview is too large"}
    assert isolation.resident_bytes(os.getpid()) - before < 50 * 2**20


def test_a_slow_preview_times_out(app, client, editor, tmp_path):
    """A JSON array with thousands of distinct keys takes DuckDB seconds to infer."""
    app.config["PREVIEW_TIMEOUT_SECONDS"] = 0.5
    rows = ",".join(json.dumps({f"k{i % 5000}": "x" * 50, "a": i}) for i in range(150_000))
    dataset = with_file(client, editor.headers, f"[{rows}]".encode())
    response = preview(client, editor.headers, dataset, limit=1)
    assert (response.status_code, response.get_json()) == (422, {"detail": "Preview timed out"})
    assert isolation.running_jobs() == set()


def test_previews_never_run_in_the_web_process(client, editor, monkeypatch):
    """DuckDB is never asked for a preview here: every one goes to a child process."""
    from datahub.datasets import tabular

    def refuse(*args, **kwargs):
        raise AssertionError("a preview ran in the web process")

    monkeypatch.setattr(tabular, "preview", refuse)
    dataset = with_file(client, editor.headers, b"a\n1\n")
    response = preview(client, editor.headers, dataset)
    assert response.status_code == 200
    assert response.get_json()["rows"] == [[1]]
