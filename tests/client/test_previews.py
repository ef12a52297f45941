"""Previews through datahub_client and the ``datahub`` command against a real gunicorn: a
dataset's first rows, and what a pipeline's steps make of them (``pipeline_preview``,
``datahub pipelines preview``), with a read-only token too."""

import io
import json

import pytest

from datahub_client import Client, NotFoundError, PermissionDeniedError, ValidationError

pytestmark = pytest.mark.e2e

CITIES = b"city,temp\nOslo,3\nBergen,7\nOslo,5\n"
OSLO = [{"op": "filter", "column": "city", "operator": "eq", "value": "Oslo"}]


@pytest.fixture
def cities(client, unique):
    dataset = client.dataset_create(unique("cities"))
    client.dataset_upload(dataset["id"], io.BytesIO(CITIES), content_type="text/csv")
    return dataset


def test_pipeline_preview_and_dataset_preview(client, server, cities):
    whole = client.dataset_preview(cities["id"], limit=2)
    assert whole["columns"] == [
        {"name": "city", "type": "VARCHAR"},
        {"name": "temp", "type": "BIGINT"},
    ]
    assert whole["rows"] == [["Oslo", 3], ["Bergen", 7]]
    assert client.pipeline_preview(cities["id"], []) == client.dataset_preview(cities["id"])
    oslo = client.pipeline_preview(cities["id"], OSLO + [{"op": "select", "columns": ["temp"]}])
    assert (oslo["rows"], oslo["truncated"]) == ([[3], [5]], False)
    client.dataset_upload(
        cities["id"], io.BytesIO(b"city,temp\nTromso,-4\n"), content_type="text/csv"
    )
    assert client.pipeline_preview(cities["id"], OSLO, source_version=1, limit=1)["rows"] == [
        ["Oslo", 3]
    ]
    assert client.dataset_preview(cities["id"], version=1, limit=1)["rows"] == [["Oslo", 3]]

    with pytest.raises(ValidationError) as error:
        client.pipeline_preview(cities["id"], [{"op": "sql", "query": "DELETE FROM input"}])
    assert error.value.detail[0]["loc"] == ["body", "steps", 0, "query"]
    with pytest.raises(NotFoundError) as error:
        client.pipeline_preview(cities["id"], [], source_version=9)
    assert error.value.detail == "Version not found"

    reader = Client(server.url, token=client.tokens_create("preview", scopes=["read"])["token"])
    previewed = reader.pipeline_preview(cities["id"], OSLO, source_version=1)
    assert previewed["rows"] == [["Oslo", 3], ["Oslo", 5]]
    with pytest.raises(PermissionDeniedError):  # read scope: nothing is made
        reader.dataset_create("Not with a read token")


def test_datahub_pipelines_preview_prints_a_table(datahub, cities, tmp_path):
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps(OSLO))
    result = datahub("pipelines", "preview", str(cities["id"]), "--steps", str(steps))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == ["city  temp", "Oslo  3", "Oslo  5"]
    assert "2 rows (csv)" in result.stderr

    inline = json.dumps([{"op": "sort", "columns": ["temp"], "descending": True}])
    result = datahub(
        "--json", "pipelines", "preview", str(cities["id"]), "--steps-json", inline, "--limit", "1"
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["rows"] == [["Bergen", 7]]

    result = datahub("datasets", "preview", str(cities["id"]), "--limit", "1")
    assert result.stdout.splitlines() == ["city  temp", "Oslo  3"]

    result = datahub("pipelines", "preview", str(cities["id"]), "--steps-json", "[{")
    assert result.exit_code == 1 and "--steps-json is not JSON" in result.stderr
    bad = json.dumps([{"op": "select", "columns": []}])
    result = datahub("pipelines", "preview", str(cities["id"]), "--steps-json", bad)
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ") and "steps.0.columns" in result.stderr
