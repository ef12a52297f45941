"""The guide "Query and read data from scripts" (docs/guides/query.rst), run as written
after the quickstart's login against a real gunicorn: the SQL console with curl, the
``datahub`` command and the Python client, and pandas, Polars and DuckDB reading a
version's file over HTTP with a read-only personal access token. And what the guide says
of the libraries that do not send the token by themselves."""

import shutil

import duckdb
import fsspec
import polars
import pytest

from tests.e2e.docs_examples import named_block, run_bash, script

pytestmark = pytest.mark.e2e

BLOCKS = (
    ("bash", "quickstart-login"),
    ("bash", "curl-query"),
    ("bash", "command-query"),
    ("python", "python-query"),
    ("python", "python-read-http"),
)


def run_guide(server, work):
    blocks = [(language, name, named_block(name)) for language, name in BLOCKS]
    text = script(server.url, blocks) + 'echo "$READINGS $DATAHUB_TOKEN"\n'
    return run_bash(text, work, work, server.admin_password())


def test_the_query_guide_runs(gunicorn_server, tmp_path):
    for tool in ("curl", "bash", "python3"):
        assert shutil.which(tool), f"{tool} is needed for this test"
    result = run_guide(gunicorn_server, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    # curl: the first rows and inputs, version 2 made from a Parquet export, then the
    # current version's count and version 1's, named and pinned.
    assert lines[:6] == [
        "([{'name': 'station', 'type': 'VARCHAR'}, {'name': 'warmest', 'type': 'DOUBLE'}], "
        "[['Bergen', 4.5], ['Tromso', -6.5]], [('Harbour temperatures', 1)])",
        "2",
        "(4, 2)",
        "(3, 1)",
        "(3, 1)",
        "station  mean",
    ]
    # The command: a table, a pinned count, the CSV export, JSON lines.
    assert lines[6:16] == [
        "Bergen   3.75",
        "Tromso   -7.25",
        "readings",
        "3",
        "station,day,temp",
        "Bergen,2024-01-01,4.5",
        "Bergen,2024-01-02,3.0",
        "Tromso,2024-01-01,-6.5",
        "Tromso,2024-01-02,-8.0",
        '{"station":"Bergen","day":"2024-01-01","temp":4.5}',
    ]
    assert polars.read_parquet(tmp_path / "harbour-all.parquet").height == 4
    assert "1 rows; read Harbour temperatures@1" in result.stderr.splitlines()
    # The Python client: rows and inputs, DataFrames, a version's file, a refusal.
    assert lines[19:24] == [
        "[['Bergen', 3.0], ['Tromso', -8.0]] [('Harbour temperatures', 2)]",
        "pandas (4, 3) [4.5, 3.0, -6.5, -8.0]",
        "2 {'station': String, 'day': Date, 'temp': Float64}",
        "3 ['station', 'day', 'temp']",
        "422 Dataset not found: Harbor temperatures",
    ]
    # pandas, Polars and DuckDB over HTTP with the read token.
    assert lines[24:27] == [
        "(3, 3) (4, 3)",
        "3 4",
        "[('Bergen', 2), ('Tromso', 2)]",
    ]
    assert lines[27] == "[(4.5,)]"
    dataset_id, token = lines[28].split()
    assert token.startswith("dhp_")
    check_what_polars_and_duckdb_need(f"{gunicorn_server.url}/api/v1", dataset_id, token)


def check_what_polars_and_duckdb_need(base, dataset_id, token):
    """As the guide says: Polars' own HTTP reader sends no header of ours; DuckDB reading
    through fsspec's registered HTTP file system fails; both read fsspec's file objects."""
    headers = {"Authorization": f"Bearer {token}"}
    url = f"{base}/datasets/{dataset_id}/versions/1/file"
    with pytest.raises(PermissionError, match="authentication credentials"):
        polars.read_csv(url, storage_options=headers)
    http = fsspec.filesystem("http", headers=headers)
    connection = duckdb.connect()
    connection.register_filesystem(http)
    with pytest.raises(duckdb.NotImplementedException, match="modified"):
        connection.sql(f"SELECT count(*) FROM read_csv('{url}')").fetchall()
    with http.open(url) as csv_file:
        assert polars.read_csv(csv_file).height == 3
    with http.open(url) as csv_file:
        assert duckdb.read_csv(csv_file, connection=connection).fetchall()[0][0] == "Bergen"
