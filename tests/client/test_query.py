"""The SQL console through datahub_client and the ``datahub`` command against a real
gunicorn: rows, inputs and pins; whole results and datasets' files as pandas and Polars
DataFrames; exports; the service's refusals as the client's errors."""

import datetime
import io
import json
import sys
import uuid

import pandas
import polars
import pytest

from datahub_client import Client, ValidationError
from tests.client.test_access import new_user

pytestmark = pytest.mark.e2e

FIRST = b"day,temp\n2024-01-01,-3\n2024-01-02,-5\n"
SECOND = b"day,temp\n2024-01-01,-3\n2024-01-02,-5\n2024-01-03,1\n"
THIRD = b"day,temp\n2024-01-04,2\n"


@pytest.fixture
def weather(client, unique):
    """A dataset of two versions (2 and 3 rows) and its quoted name."""
    dataset = client.dataset_create(unique("Weather"))
    for data in (FIRST, SECOND):
        client.dataset_upload(dataset["id"], io.BytesIO(data), filename="weather.csv")
    return dataset["id"], '"' + dataset["name"] + '"'


def test_rows_inputs_and_pins(client, weather):
    dataset_id, table = weather
    result = client.query(f"SELECT * FROM {table} ORDER BY day", limit=2)
    assert result["columns"] == [
        {"name": "day", "type": "DATE"},
        {"name": "temp", "type": "BIGINT"},
    ]
    assert result["rows"] == [["2024-01-01", -3], ["2024-01-02", -5]]
    assert result["truncated"] is True
    [read] = result["inputs"]
    assert (read["dataset_id"], read["version"]) == (dataset_id, 2)
    assert result["pipeline"]["source_dataset_id"] == dataset_id

    client.dataset_upload(dataset_id, io.BytesIO(THIRD), filename="weather.csv")
    count = f"SELECT count(*) AS n FROM {table}"
    assert client.query(count)["rows"] == [[1]]  # the current version: 3
    assert client.query(count, pins=result["pins"])["rows"] == [[3]]  # the inputs again
    assert client.query(count, pins={dataset_id: 1})["rows"] == [[2]]
    assert client.query(count, pins=[(dataset_id, 2)])["inputs"][0]["version"] == 2
    at_one = client.query(f'SELECT count(*) FROM {table[:-1]}@1"')
    assert (at_one["rows"], at_one["inputs"][0]["version"]) == ([[2]], 1)


def test_whole_results_as_pandas_and_polars_frames(client, weather):
    dataset_id, table = weather
    sql = f"SELECT day, temp FROM {table} ORDER BY day"
    frame = client.query_frame(sql, engine="pandas")
    assert isinstance(frame, pandas.DataFrame)
    assert frame["temp"].tolist() == [-3, -5, 1]
    assert list(frame["day"]) == [datetime.date(2024, 1, d) for d in (1, 2, 3)]
    frame = client.query_frame(
        sql, engine="polars", pins=[{"dataset_id": dataset_id, "version": 1}]
    )
    assert isinstance(frame, polars.DataFrame)
    assert frame.schema == {"day": polars.Date, "temp": polars.Int64}
    assert frame["temp"].to_list() == [-3, -5]
    assert isinstance(client.query_frame(sql), pandas.DataFrame)  # pandas when installed
    # past the JSON answer's limit: the frame has every row
    many = client.query_frame("SELECT range AS n FROM range(20000)", engine="polars")
    assert many.height == 20000


def test_a_versions_file_as_a_frame(client, unique):
    dataset_id = client.dataset_create(unique("Files"))["id"]
    client.dataset_upload(dataset_id, io.BytesIO(b"a;b\n1;x\n2;y\n"), filename="semi.csv")
    parquet = io.BytesIO()
    client.query_export(
        "SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, 'y'", parquet, format="parquet"
    )
    parquet.seek(0)
    client.dataset_upload(dataset_id, parquet, filename="ab.parquet")
    lines = b'{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n'
    client.dataset_upload(dataset_id, io.BytesIO(lines), filename="ab.jsonl")
    for version in (1, 2, 3):
        frame = client.dataset_read(dataset_id, version=version, engine="pandas")
        assert frame.sort_values("a").values.tolist() == [[1, "x"], [2, "y"]], version
        frame = client.dataset_read(dataset_id, version, engine="polars")
        assert frame.sort("a").rows() == [(1, "x"), (2, "y")], version
    assert client.dataset_read(dataset_id).shape == (2, 2)  # the current version: 3
    client.dataset_upload(dataset_id, io.BytesIO(b"\x00\x01binary"), filename="x.bin")
    with pytest.raises(ValueError, match="binary"):
        client.dataset_read(dataset_id)


def test_a_missing_library_is_named(client, weather, monkeypatch):
    _, table = weather
    monkeypatch.setitem(sys.modules, "polars", None)  # as if not installed
    with pytest.raises(ModuleNotFoundError, match=r"polars is not installed.*\[polars\]"):
        client.query_frame(f"SELECT * FROM {table}", engine="polars")
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ModuleNotFoundError, match="neither pandas nor polars"):
        client.dataset_read(weather[0])
    with pytest.raises(ValueError, match="engine must be"):
        client.query_frame("SELECT 1", engine="spark")


def test_refusals_are_the_clients_errors(client, server, weather, unique):
    dataset_id, table = weather
    with pytest.raises(ValidationError) as error:
        client.query(f"DELETE FROM {table}")
    [item] = error.value.detail
    assert item["loc"] == ["body", "sql"]
    assert error.value.message.startswith("sql: ")
    expected = {
        "SELECT * FROM no_such_table": "Dataset not found: no_such_table",
        f"SELECT * FROM {table[:-1]}@9" + '"': f"Version not found: {table[1:-1]}@9",
        f"SELECT nope FROM {table}": "Query failed: Binder Error: ",
    }
    for sql, detail in expected.items():
        with pytest.raises(ValidationError) as error:
            client.query(sql)
        assert error.value.status == 422 and error.value.detail.startswith(detail), sql
    with pytest.raises(ValidationError, match="Version not found"):
        client.query_frame(f"SELECT * FROM {table}", pins={dataset_id: 9})
    # Another user's private dataset is not found, in the same words.
    _, bea = new_user(client, f"bea-{uuid.uuid4().hex[:8]}@example.com", "viewer")
    client.dataset_set_visibility(dataset_id, "private")
    with pytest.raises(ValidationError) as error:
        bea.query(f"SELECT * FROM {table}")
    assert error.value.detail == f"Dataset not found: {table[1:-1]}"
    # A read-only personal access token may query.
    reader = Client(server.url, token=client.tokens_create("query", scopes=["read"])["token"])
    assert reader.query(f"SELECT count(*) FROM {table}")["rows"] == [[3]]


def test_exports_to_files(client, weather, tmp_path):
    _, table = weather
    target = tmp_path / "weather.parquet"
    assert client.query_export(f"SELECT * FROM {table}", target) == str(target)
    assert pandas.read_parquet(target).shape == (3, 2)
    with pytest.raises(FileExistsError):
        client.query_export(f"SELECT * FROM {table}", target, overwrite=False)
    client.query_export(f"SELECT * FROM {table} LIMIT 1", tmp_path / "one.csv")
    assert (tmp_path / "one.csv").read_text() == "day,temp\n2024-01-01,-3\n"
    with pytest.raises(ValueError, match="format must be"):
        client.query_export("SELECT 1", tmp_path / "result.txt")
    with pytest.raises(ValidationError):  # nothing is left behind
        client.query_export("SELECT * FROM no_such_table", tmp_path / "none.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.csv", "weather.parquet"]


def test_the_command_prints_a_table_and_exports(datahub, weather, tmp_path):
    dataset_id, table = weather
    shown = datahub("query", f"SELECT * FROM {table} ORDER BY day", "--limit", "2")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines() == ["day         temp", "2024-01-01  -3", "2024-01-02  -5"]
    assert shown.stderr == (
        f"2 rows; more in the result (export it with --format); read {table[1:-1]}@2\n"
    )
    (tmp_path / "count.sql").write_text(f"SELECT count(*) AS n FROM {table}")
    pinned = datahub("query", "-f", str(tmp_path / "count.sql"), "--pin", f"{dataset_id}@1")
    assert (pinned.exit_code, pinned.stdout) == (0, "n\n2\n"), pinned.output
    piped = datahub("query", "-", "--json", input=f"SELECT max(temp) AS t FROM {table}")
    assert json.loads(piped.stdout)["rows"] == [[1]]
    stdin = datahub("query", "-f", "-", input="SELECT 1 AS one")
    assert stdin.stdout == "one\n1\n"

    csv = datahub("query", f"SELECT * FROM {table} ORDER BY day", "--format", "csv")
    assert csv.stdout == SECOND.decode()
    jsonl = datahub("query", f"SELECT * FROM {table} LIMIT 1", "--format", "jsonl")
    assert json.loads(jsonl.stdout) == {"day": "2024-01-01", "temp": -3}
    target = tmp_path / "all.parquet"
    saved = datahub("query", f"SELECT * FROM {table}", "-o", str(target))
    assert saved.exit_code == 0 and polars.read_parquet(target).height == 3
    again = datahub("query", f"SELECT * FROM {table}", "-o", str(target))
    assert again.exit_code == 1
    assert again.stderr == f"Error: {target} already exists (use --force to overwrite it)\n"
    forced = datahub("query", "SELECT 1 AS a", "-o", str(target), "--force")
    assert forced.exit_code == 0 and polars.read_parquet(target).rows() == [(1,)]


def test_the_commands_refusals(datahub, weather):
    _, table = weather
    usage = {
        ("query", "SELECT 1", "--format", "parquet"): "--format parquet needs --output FILE",
        ("query",): "give the SQL as an argument or with -f FILE",
        ("query", "SELECT 1", "--pin", "7"): "'7' is not DATASET_ID@VERSION",
        ("query", "SELECT 1", "-o", "x.txt"): "give --format (csv|parquet|jsonl) for x.txt",
        ("query", "SELECT 1", "--format", "csv", "--limit", "3"): "an export has every row",
    }
    for args, message in usage.items():
        result = datahub(*args)
        assert result.exit_code == 2 and message in result.stderr, (args, result.stderr)
    missing = datahub("query", "SELECT * FROM no_such_table")
    assert (missing.exit_code, missing.stderr) == (1, "Error: Dataset not found: no_such_table\n")
    invalid = datahub("query", f"DROP TABLE {table}")
    assert invalid.exit_code == 1 and invalid.stderr.startswith("Error: sql: ")
