"""Diffs between versions and lineage through datahub_client and the ``datahub`` command
against a real gunicorn: keyed and unkeyed diffs after uploads (schema changes, counts,
samples, the errors), and the lineage of versions a pipeline worker's runs read and made."""

import io
import json

import pytest

from datahub_client import NotFoundError, ValidationError

pytestmark = pytest.mark.e2e

# Version 1, then version 2: mm retyped (BIGINT -> DOUBLE), note removed, city added;
# 01-01 changed, 01-02 as it was, 01-03 removed, 01-04 added. Version 3: mm BIGINT again.
RAIN = [
    b"date,mm,note\n2024-01-01,3,dry\n2024-01-02,5,\n2024-01-03,1,\n",
    b"date,mm,city\n2024-01-01,4.5,Oslo\n2024-01-02,5,Oslo\n2024-01-04,2,Bergen\n",
    b"date,mm,city\n2024-01-01,4,Oslo\n2024-01-02,5,Oslo\n2024-01-04,2,\n",
]


@pytest.fixture(scope="module")
def module_pipeline_worker():
    return True  # runs make the lineage


def rain(client, name):
    """A dataset ``name`` with the three versions of RAIN; its id."""
    dataset_id = client.dataset_create(name)["id"]
    for content in RAIN:
        client.dataset_upload(dataset_id, io.BytesIO(content), filename="rain.csv")
    return dataset_id


def run_pipeline(client, source_id, name, output_name):
    """Create a pipeline copying dataset ``source_id`` to ``output_name``, run it to its
    end; returns the run."""
    pipeline = client._json(
        "POST",
        "/api/v1/pipelines/",
        json_body={
            "name": name,
            "source_dataset_id": source_id,
            "output_dataset_name": output_name,
            "steps": [{"op": "filter", "column": "city", "operator": "ne", "value": "Bergen"}],
        },
    )
    run = client.pipeline_run(pipeline["id"])
    run = client.run_wait(pipeline["id"], run["id"], poll=0.2, timeout=60)
    assert run["status"] == "succeeded", run["error"]
    return run


def test_diff_keyed_and_unkeyed(client, unique):
    dataset_id = rain(client, unique("Rain"))

    keyed = client.dataset_diff(dataset_id, 1, 2, key="date")
    assert (keyed["from"], keyed["to"], keyed["columns"]) == (1, 2, ["date", "mm"])
    assert keyed["schema"] == {
        "added": [{"name": "city", "type": "VARCHAR"}],
        "removed": [{"name": "note", "type": "VARCHAR"}],
        "changed": [{"name": "mm", "from": "BIGINT", "to": "DOUBLE"}],
    }
    # mm is compared as text once retyped: 5 and 5.0 differ
    assert keyed["rows"] == {"added": 1, "removed": 1, "changed": 2, "unchanged": 0}
    assert keyed["sample"]["added"] == [["2024-01-04", 2.0]]
    assert keyed["sample"]["removed"] == [["2024-01-03", 1]]
    assert keyed["sample"]["changed"][0] == {
        "key": ["2024-01-01"],
        "from": ["2024-01-01", 3],
        "to": ["2024-01-01", 4.5],
    }

    listed = client.dataset_diff(dataset_id, 1, 3, key=["date"])  # a list, as a string
    assert listed["schema"]["changed"] == []
    assert listed["rows"] == {"added": 1, "removed": 1, "changed": 1, "unchanged": 1}
    assert listed["sample"]["changed"] == [
        {"key": ["2024-01-01"], "from": ["2024-01-01", 3], "to": ["2024-01-01", 4]}
    ]
    two = client.dataset_diff(dataset_id, 2, 3, key=["date", "city"])  # "date,city"
    assert two["rows"] == {"added": 1, "removed": 1, "changed": 2, "unchanged": 0}
    assert [change["key"] for change in two["sample"]["changed"]] == [
        ["2024-01-01", "Oslo"],
        ["2024-01-02", "Oslo"],
    ]
    assert two["sample"]["added"] == [["2024-01-04", 2, None]]  # city empty: a new key

    for key in (None, [], ""):  # no key: multisets of rows, nothing changed
        whole = client.dataset_diff(dataset_id, 1, 3, key=key)
        assert whole["rows"] == {"added": 2, "removed": 2, "changed": 0, "unchanged": 1}
        assert whole["sample"]["added"] == [["2024-01-01", 4], ["2024-01-04", 2]]
        assert whole["sample"]["changed"] == []

    with pytest.raises(ValidationError) as error:
        client.dataset_diff(dataset_id, 1, 2, key="note")
    assert error.value.detail == "Key column 'note' is not a column of both versions"
    with pytest.raises(NotFoundError) as error:
        client.dataset_diff(dataset_id, 1, 9)
    assert error.value.detail == "Version not found"
    client.dataset_upload(dataset_id, io.BytesIO(b"\x00\x01\x02"), filename="rain.bin")
    with pytest.raises(ValidationError) as error:
        client.dataset_diff(dataset_id, 1, 4)
    assert error.value.detail == "Dataset file is not tabular"


def test_lineage_of_the_versions_runs_read_and_made(client, unique):
    name = unique("Rain")
    source_id = rain(client, name)  # version 3 is current: the runs read it
    first = run_pipeline(client, source_id, unique("no bergen"), unique("Rain here"))
    middle_id = first["output"]["dataset_id"]
    second = run_pipeline(client, middle_id, unique("again"), unique("Rain here again"))
    last_id = second["output"]["dataset_id"]
    source, middle, last = (
        f"dataset:{source_id}@3",
        f"dataset:{middle_id}@1",
        f"dataset:{last_id}@1",
    )
    runs = f"run:{first['id']}", f"run:{second['id']}"
    chain = [
        {"from": source, "to": runs[0]},
        {"from": runs[0], "to": middle},
        {"from": middle, "to": runs[1]},
        {"from": runs[1], "to": last},
    ]

    graph = client.dataset_lineage(last_id, direction="upstream")
    assert sorted(graph["edges"], key=chain.index) == chain
    nodes = {node["id"]: node for node in graph["nodes"]}
    assert set(nodes) == {source, middle, last, *runs}
    assert nodes[source] == {
        "id": source,
        "type": "version",
        "dataset_id": source_id,
        "version": 3,
        "name": name,
    }
    assert nodes[runs[1]] == {
        "id": runs[1],
        "type": "run",
        "run_id": second["id"],
        "pipeline_id": second["pipeline_id"],
    }
    near = client.dataset_lineage(last_id, "upstream", 1)  # one run away
    assert sorted(near["edges"], key=chain.index) == chain[2:]
    assert client.dataset_lineage(source_id, direction="downstream")["edges"] == graph["edges"]
    assert client.dataset_lineage(middle_id)["edges"] == graph["edges"]  # both ways
    alone = client.dataset_lineage(source_id, direction="upstream")
    assert (alone["nodes"][0]["id"], alone["edges"]) == (source, [])
    older = client.dataset_lineage(source_id, version=1)  # no run read version 1
    assert [node["id"] for node in older["nodes"]] == [f"dataset:{source_id}@1"]
    assert older["edges"] == []

    with pytest.raises(NotFoundError) as error:
        client.dataset_lineage(source_id, version=9)
    assert error.value.detail == "Version not found"
    with pytest.raises(ValidationError) as error:
        client.dataset_lineage(source_id, depth=11)
    assert error.value.status == 422


def before_drift(result):
    """The lines of a printed diff before its drift."""
    return result.stdout.split("\n\nDrift")[0].splitlines()


def test_the_command_prints_a_diff(datahub, client, unique):
    dataset_id = str(rain(client, unique("Rain")))

    result = datahub("datasets", "diff", dataset_id, "1", "3", "--key", "date")
    assert (result.exit_code, result.stderr) == (0, ""), result.stderr
    # Then the drift (once the worker has profiled both versions: tests/client/test_profiles.py).
    assert "\nDrift:" in result.stdout
    assert before_drift(result) == [
        f"Dataset {dataset_id}, version 1 -> version 3 (rows matched by date)",
        "Columns added: city (VARCHAR)",
        "Columns removed: note (VARCHAR)",
        "Rows: 1 added, 1 removed, 1 changed, 1 unchanged",
        "",
        "Added rows:",
        "date        mm",
        "2024-01-04  2",
        "",
        "Removed rows:",
        "date        mm",
        "2024-01-03  1",
        "",
        "Changed rows:",
        "      date        mm",
        "from  2024-01-01  3",
        "to    2024-01-01  4",
    ]
    result = datahub("datasets", "diff", dataset_id, "2", "3", "--key", "date, city")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        f"Dataset {dataset_id}, version 2 -> version 3 (rows matched by date, city)",
        "Columns retyped: mm (DOUBLE -> BIGINT)",
        "Rows: 1 added, 1 removed, 2 changed, 0 unchanged",
    ]
    assert lines[5:7] == ["date        mm  city", "2024-01-04  2   null"]  # a null cell
    result = datahub("datasets", "diff", dataset_id, "3", "3")
    assert before_drift(result) == [
        f"Dataset {dataset_id}, version 3 -> version 3 (rows compared whole, no key)",
        "Columns: no changes",
        "Rows: 0 added, 0 removed, 0 changed, 3 unchanged",
    ]
    for args in (
        ["--json", "datasets", "diff", dataset_id, "1", "3"],
        ["datasets", "diff", dataset_id, "1", "3", "--json"],
    ):
        result = datahub(*args)
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == client.dataset_diff(dataset_id, 1, 3)

    result = datahub("datasets", "diff", dataset_id, "1", "2", "--key", "note")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "Error: Key column 'note' is not a column of both versions\n",
    )
    result = datahub("datasets", "diff", dataset_id, "1", "9")
    assert (result.exit_code, result.stderr) == (1, "Error: Version not found\n")
    result = datahub("datasets", "diff", dataset_id, "1", "2", "--key", "date,")
    assert result.exit_code == 2 and "'date,' has an empty column name" in result.stderr


def test_the_command_prints_lineage(datahub, client, unique):
    name, here, here_again = unique("Rain"), unique("Rain here"), unique("Rain here again")
    source_id = rain(client, name)
    first = run_pipeline(client, source_id, unique("no bergen"), here)
    middle_id = first["output"]["dataset_id"]
    second = run_pipeline(client, middle_id, unique("again"), here_again)
    again = client.run_wait(
        second["pipeline_id"],
        client.pipeline_run(second["pipeline_id"])["id"],
        poll=0.2,
        timeout=60,
    )
    assert again["reused_run_id"] == second["id"]  # the same input: no new version

    result = datahub("datasets", "lineage", str(middle_id))
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        f"{name}@3 -> run {first['id']} (pipeline {first['pipeline_id']}) -> {here}@1",
        f"{here}@1 -> run {second['id']} (pipeline {second['pipeline_id']}) -> {here_again}@1",
        f"{here}@1 -> run {again['id']} (pipeline {again['pipeline_id']}) -> no new version",
    ]
    result = datahub("datasets", "lineage", str(middle_id), "--direction", "upstream")
    assert result.stdout.splitlines() == [
        f"{name}@3 -> run {first['id']} (pipeline {first['pipeline_id']}) -> {here}@1"
    ]
    result = datahub("datasets", "lineage", str(source_id), "--depth", "1")
    assert len(result.stdout.splitlines()) == 1  # the run that read it, not the next one
    result = datahub("datasets", "lineage", str(source_id), "--version", "1")
    assert (result.exit_code, result.stdout) == (0, f"No run made or read {name}@1\n")
    result = datahub("datasets", "lineage", str(source_id), "--direction", "upstream")
    assert result.stdout == f"No run made {name}@3\n"
    empty = client.dataset_create(unique("Empty"))["id"]
    result = datahub("datasets", "lineage", str(empty))
    assert result.stdout == f"Dataset {empty} has no version: no lineage\n"
    for args in (
        ["--json", "datasets", "lineage", str(middle_id), "--depth", "2"],
        ["datasets", "lineage", str(middle_id), "--depth", "2", "--json"],
    ):
        result = datahub(*args)
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == client.dataset_lineage(middle_id, depth=2)

    result = datahub("datasets", "lineage", str(source_id), "--version", "9")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        "Error: Version not found\n",
    )
    result = datahub("datasets", "lineage", "424242")
    assert (result.exit_code, result.stderr) == (1, "Error: Dataset not found\n")
