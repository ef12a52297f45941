"""Schemas, profiles and Data Packages through datahub_client and the ``datahub`` command,
against a real gunicorn whose pipeline worker profiles each new version; the drift in
``datahub datasets diff``."""

import io
import json

import pytest

from datahub_client import NotFoundError, NotReadyError

pytestmark = pytest.mark.e2e

CITIES = b"city,temp\nOslo,3\nBergen,\nOslo,5\n"
WARMER = b"city,temp\nOslo,8\nTromso,9\n"


@pytest.fixture(scope="module")
def module_pipeline_worker():
    return True  # it profiles the versions


def test_the_client_waits_for_a_versions_schema_and_profile(client, unique):
    dataset_id = client.dataset_create(unique("Cities"))["id"]
    client.dataset_upload(dataset_id, io.BytesIO(CITIES), filename="cities.csv")
    assert client.dataset_schema(dataset_id, wait=30) == {
        "columns": [
            {"name": "city", "type": "VARCHAR", "nullable": False},
            {"name": "temp", "type": "BIGINT", "nullable": True},
        ],
        "rows": 3,
    }
    profile = client.dataset_profile(dataset_id, 1)
    assert profile["status"] == "ready"
    assert profile["columns"][0]["top_values"] == [
        {"value": "Oslo", "count": 2},
        {"value": "Bergen", "count": 1},
    ]
    package = client.dataset_data_package(dataset_id)
    assert package["resources"][0]["path"].endswith(
        f"/api/v1/datasets/{dataset_id}/versions/1/file"
    )
    assert client.dataset_get(dataset_id)["schema"]["rows"] == 3


def test_not_ready_and_not_a_table(client, unique):
    dataset_id = client.dataset_create(unique("Bytes"))["id"]
    client.dataset_upload(dataset_id, io.BytesIO(b"\x00\x01binary"), filename="x.bin")
    with pytest.raises(NotFoundError) as refused:
        client.dataset_schema(dataset_id)
    assert refused.value.detail == "Version has no schema"
    assert client.dataset_profile(dataset_id)["status"] == "failed"
    table_id = client.dataset_create(unique("Fresh"))["id"]
    client.dataset_upload(table_id, io.BytesIO(CITIES + b"Molde,1\n"), filename="c.csv")
    with pytest.raises(NotReadyError) as pending:
        client.dataset_schema(table_id, wait=0)
    assert pending.value.status == 202


def test_the_command_shows_schema_profile_package_and_drift(client, datahub, unique, tmp_path):
    dataset_id = client.dataset_create(unique("Temps"))["id"]
    client.dataset_upload(dataset_id, io.BytesIO(CITIES), filename="t.csv")
    client.dataset_upload(dataset_id, io.BytesIO(WARMER), filename="t.csv")
    schema = datahub("datasets", "schema", str(dataset_id), "--version", "1")
    assert schema.exit_code == 0, schema.output
    assert schema.stdout.splitlines() == [
        "NAME  TYPE     NULLABLE",
        "city  VARCHAR  no",
        "temp  BIGINT   yes",
    ]
    assert schema.stderr == "3 rows\n"
    profile = datahub("datasets", "profile", str(dataset_id))
    assert profile.exit_code == 0, profile.output
    lines = profile.stdout.splitlines()
    assert lines[0].split() == [
        "NAME",
        "TYPE",
        "NULLS",
        "DISTINCT",
        "MIN",
        "MAX",
        "MEAN",
        "TOP",
        "VALUES",
    ]
    assert lines[2].split()[:7] == ["temp", "BIGINT", "0", "(0.0%)", "2", "8", "9"]
    out = tmp_path / "datapackage.json"
    assert datahub("datasets", "datapackage", str(dataset_id), "-o", str(out)).exit_code == 0
    assert json.loads(out.read_text())["resources"][0]["schema"]["fields"][0]["name"] == "city"
    diff = datahub("datasets", "diff", str(dataset_id), "1", "2")
    assert diff.exit_code == 0, diff.output
    drift = diff.stdout.split("Drift:")[1]
    assert "city" in drift and "new: Tromso" in drift and "gone: Bergen" in drift
    assert "null_fraction 0.3333 -> 0" in drift
