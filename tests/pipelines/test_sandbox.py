"""The sql step's two layers hold: ``check_select`` refuses at creation (422) whatever is
not one read-only SELECT over ``input``, and the run's DuckDB connection
(``tabular.connect``) reads only the run's input files, writes only its output file and
changes no setting, whatever query reaches it. Every escape fails without leaking data.
The other steps quote identifiers and bind values."""

import os

import duckdb
import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets import tabular
from datahub.datasets.models import Dataset
from datahub.pipelines.models import Pipeline
from tests.pipelines.helpers import PIPELINES, create_pipeline, output_rows, run_now, source
from tests.resources import validation_error

SECRET = "TOP-SECRET-MARKER-4711"
ONLY_SELECT = "the query must be a single SELECT statement"
NO_TABLE_FUNCTIONS = (
    "the query must not call table functions other than range and "
    "generate_series; it can read only input"
)


def only_input(name):
    return f"the query can read only the table input (and its own WITH names), not {name!r}"


REFUSED = [
    ("SELECT * FROM read_csv('/etc/passwd')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM '/etc/passwd'", only_input("/etc/passwd")),
    ("SELECT * FROM read_text('/etc/hostname')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM read_blob('/etc/hostname')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM glob('/*')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM duckdb_settings()", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM query('SELECT 1')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM users", only_input("users")),
    ("SELECT * FROM pg_settings", only_input("pg_settings")),
    ("SHOW pg_settings", "the query must not SHOW or DESCRIBE tables"),
    ("SELECT * FROM input, (SHOW pg_settings)", "the query must not SHOW or DESCRIBE tables"),
    ("SELECT * FROM main.input", only_input("input")),
    ("COPY input TO '/tmp/x.csv'", ONLY_SELECT),
    ("SELECT * FROM input; COPY input TO '/tmp/leak.csv'", ONLY_SELECT),
    ("SELECT 1; SELECT 2", ONLY_SELECT),
    ("INSTALL httpfs", ONLY_SELECT),
    ("LOAD httpfs", ONLY_SELECT),
    ("ATTACH '/tmp/x.db' AS x", ONLY_SELECT),
    ("SET memory_limit='10GB'", ONLY_SELECT),
    ("RESET lock_configuration", ONLY_SELECT),
    ("PRAGMA version", ONLY_SELECT),
    ("CREATE TABLE t AS SELECT * FROM input", ONLY_SELECT),
    ("SELECT current_setting('allowed_paths')", "the query must not call current_setting()"),
    (
        "SELECT name FROM input WHERE city <> CURRENT_SETTING('temp_directory')",
        "the query must not call current_setting()",
    ),
    ("SELECT getvariable('x')", "the query must not call getvariable()"),
    (
        "SELECT * FROM input WHERE name = ?",
        "the query must not have parameters (? or $1); write values in it",
    ),
    (
        "SELECT * FROM input WHERE name = $1",
        "the query must not have parameters (? or $1); write values in it",
    ),
    ("SELEC nonsense", 'the query does not parse: syntax error at or near "SELEC"'),
    ("SELECT * FROM input /*", 'the query does not parse: unterminated /* comment at or near "/*"'),
    (
        "SELECT * FROM input)); SELECT * FROM ((SELECT 1",
        'the query does not parse: syntax error at or near ")"',
    ),
    (
        "SELECT * FROM input, LATERAL (SELECT * FROM read_csv('/etc/passwd')) AS t",
        NO_TABLE_FUNCTIONS,
    ),
    ("SELECT * FROM input, LATERAL unnest([1, 2]) AS t(x)", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM input WHERE name IN (SELECT name FROM datasets)", only_input("datasets")),
    ("SELECT * FROM input WHERE name IN (FROM '/etc/passwd')", only_input("/etc/passwd")),
    ("SELECT (SELECT count(*) FROM read_text('/etc/passwd')) AS n FROM input", NO_TABLE_FUNCTIONS),
    ("WITH x AS (SELECT * FROM read_csv('/etc/passwd')) SELECT * FROM x", NO_TABLE_FUNCTIONS),
    ("WITH input AS (SELECT * FROM '/etc/passwd') SELECT * FROM input", only_input("/etc/passwd")),
]


def store_steps(app, pipeline_id, steps):
    """Write ``steps`` into the pipeline's row, past the API's validation."""
    with app.app_context():
        db.session.execute(
            sa.update(Pipeline).where(Pipeline.id == pipeline_id).values(steps=steps)
        )
        db.session.commit()


def file_path(app, dataset_id):
    with app.app_context():
        key = db.session.get(Dataset, dataset_id).file_key
    return os.path.join(app.config["STORAGE_PATH"], key)


def dataset_names(client, headers):
    return sorted(
        d["name"] for d in client.get("/api/v1/datasets/", headers=headers).get_json()["items"]
    )


@pytest.mark.parametrize("query, msg", REFUSED)
def test_refused_at_creation(client, actors, query, msg):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    body = {
        "name": "p",
        "source_dataset_id": dataset["id"],
        "output_dataset_name": "out",
        "steps": [{"op": "sql", "query": query}],
    }
    response = client.post(PIPELINES, json=body, headers=editor)
    assert response.status_code == 422, response.get_json()
    assert response.get_json() == {
        "detail": [validation_error(["body", "steps", 0, "query"], msg, "value_error.sql")]
    }
    assert client.get(PIPELINES, headers=editor).get_json()["items"] == []


def test_refused_at_patch(client, actors):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    response = client.patch(
        f"{PIPELINES}{pipeline['id']}",
        headers=editor,
        json={
            "steps": [
                {"op": "limit", "count": 1},
                {"op": "sql", "query": "SELECT * FROM read_csv('/etc/passwd')"},
            ]
        },
    )
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            validation_error(["body", "steps", 1, "query"], NO_TABLE_FUNCTIONS, "value_error.sql")
        ]
    }
    assert client.get(f"{PIPELINES}{pipeline['id']}", headers=editor).get_json()["steps"] == []


def test_with_name_of_another_scope_does_not_unlock_a_table(app, client, actors):
    editor = actors["editor"].headers
    query = (
        "SELECT b.* FROM (WITH pg_settings AS (SELECT 1 AS x) SELECT * FROM pg_settings) "
        "AS a, (SELECT name, setting FROM pg_settings WHERE name = 'allowed_paths') AS b"
    )
    body = {
        "name": "p",
        "source_dataset_id": source(client, editor)["id"],
        "output_dataset_name": "out",
        "steps": [{"op": "sql", "query": query}],
    }
    response = client.post(PIPELINES, json=body, headers=editor)
    if response.status_code == 201:  # show what the run then reveals
        run = run_now(app, client, editor, response.get_json()["id"])
        assert app.config["STORAGE_PATH"] not in str(output_rows(client, editor, run))
    assert response.status_code == 422


def test_trailing_semicolon_is_refused_or_runs(app, client, actors):
    editor = actors["editor"].headers
    body = {
        "name": "p",
        "source_dataset_id": source(client, editor)["id"],
        "output_dataset_name": "out",
        "steps": [{"op": "sql", "query": "SELECT name FROM input;"}],
    }
    response = client.post(PIPELINES, json=body, headers=editor)
    if response.status_code == 201:
        run = run_now(app, client, editor, response.get_json()["id"])
        assert run["status"] == "succeeded", run
    else:
        assert response.status_code == 422


@pytest.mark.parametrize(
    "query, expected",
    [
        (
            "SELECT name, age * 2 AS double FROM input WHERE age > 10 ORDER BY name",
            [["name", "double"], ["Ann", "68"], ["Ann", "68"], ["Cid", "200"], ["Dee", "68"]],
        ),
        (
            "WITH oslo AS (SELECT * FROM input WHERE city = 'Oslo') "
            "SELECT name, count(*) AS n FROM oslo GROUP BY name ORDER BY name",
            [["name", "n"], ["Ann", "2"], ["Cid", "1"]],
        ),
        (
            "SELECT name FROM input WHERE age = 9 UNION ALL SELECT name FROM input WHERE age = 9",
            [["name"], ["Bob"], ["Bob"]],
        ),
        ("SELECT name FROM input WHERE age = 9 -- a comment", [["name"], ["Bob"]]),
    ],
)
def test_valid_queries_create_and_run(app, client, actors, query, expected):
    editor = actors["editor"].headers
    pipeline = create_pipeline(
        client, editor, source(client, editor)["id"], [{"op": "sql", "query": query}]
    )
    assert pipeline["steps"] == [{"op": "sql", "query": query}]
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "succeeded", run
    assert output_rows(client, editor, run) == expected


# Run time: queries stored past validation. ``{secret}`` is another dataset's stored file,
# ``{leak}`` a file the query tries to write.
ESCAPES = [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM read_csv('{secret}')",
    "SELECT * FROM read_text('{secret}')",
    "SELECT * FROM read_blob('{secret}')",
    "SELECT * FROM '{secret}'",
    "SELECT name FROM input UNION ALL SELECT * FROM read_text('{secret}')",
    "SELECT * FROM input WHERE name IN (SELECT content FROM read_text('{secret}'))",
    "SELECT * FROM read_csv('{source}/../{secret_name}')",
    "SELECT * FROM input; COPY input TO '{leak}'",
    "SELECT * FROM input)); COPY (SELECT 'x') TO '{leak}'; SELECT * FROM ((SELECT 1",
    "COPY input TO '{leak}'",
    "LOAD httpfs",
    "INSTALL httpfs",
    "SELECT * FROM input)); LOAD httpfs; SELECT * FROM ((SELECT 1",
    "SET memory_limit='10GB'",
    "SELECT * FROM input)); SET memory_limit='10GB'; SELECT * FROM ((SELECT 1",
    "SELECT * FROM input)); SET enable_external_access=true; SELECT * FROM ((SELECT 1",
    "ATTACH '{leak}' AS x",
    "SELECT * FROM input)); ATTACH '{leak}' AS x; SELECT * FROM ((SELECT 1",
]


@pytest.mark.parametrize("query", ESCAPES)
def test_sandbox_at_run_time(app, client, actors, tmp_path, query):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    secret = source(
        client, actors["other_editor"].headers, f"secret\r\n{SECRET}\r\n", name="secret"
    )
    secret_path = file_path(app, secret["id"])
    leak = str(tmp_path / "leak.csv")
    pipeline = create_pipeline(client, editor, dataset["id"], output="escape")
    text = query.format(
        secret=secret_path,
        leak=leak,
        source=file_path(app, dataset["id"]),
        secret_name=os.path.basename(secret_path),
    )
    store_steps(app, pipeline["id"], [{"op": "sql", "query": text}])

    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "failed", run
    assert run["error"]
    assert SECRET not in run["error"] and "root:" not in run["error"]
    assert run["output_dataset_id"] is None
    assert run["rows_out"] is None
    assert dataset_names(client, editor) == ["people", "secret"]  # no output dataset
    assert not os.path.exists(leak)
    assert sorted(os.listdir(tmp_path)) == []


def test_sandbox_error_is_reported_to_the_user(app, client, actors):
    """A refused file read fails the run with DuckDB's reason, not an internal error."""
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    store_steps(
        app, pipeline["id"], [{"op": "sql", "query": "SELECT * FROM read_csv('/etc/passwd')"}]
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "failed"
    assert run["error"] == (
        'step 0 (sql): Permission Error: Cannot access file "/etc/passwd" '
        "- file system operations are disabled by configuration"
    )


# Direct: the connection itself. ``{a}`` is readable, ``{out}`` writable, ``{other}`` and
# ``{leak}`` neither.
DENIED = [
    ("SELECT * FROM read_csv('{other}')", duckdb.PermissionException),
    ("SELECT * FROM '{other}'", duckdb.PermissionException),
    ("SELECT * FROM read_text('{other}')", duckdb.PermissionException),
    ("SELECT * FROM read_blob('{other}')", duckdb.PermissionException),
    ("SELECT * FROM read_csv('{a}/../other.csv')", duckdb.PermissionException),
    ("SELECT * FROM read_text('/etc/passwd')", duckdb.PermissionException),
    ("SELECT * FROM glob('/*')", duckdb.PermissionException),
    ("COPY (SELECT 1) TO '{leak}'", duckdb.PermissionException),
    ("COPY (SELECT 1) TO '{other}'", duckdb.PermissionException),
    ("COPY (SELECT 1) TO '{a}'", duckdb.PermissionException),
    ("EXPORT DATABASE '{dir}/export'", duckdb.PermissionException),
    ("INSTALL httpfs", duckdb.PermissionException),
    ("LOAD httpfs", duckdb.PermissionException),
    ("ATTACH '{leak}' AS x", duckdb.PermissionException),
    ("CREATE SECRET (TYPE s3, KEY_ID 'k', SECRET 's')", duckdb.PermissionException),
    ("SET memory_limit='10GB'", duckdb.InvalidInputException),
    ("SET threads=64", duckdb.InvalidInputException),
    ("SET enable_external_access=true", duckdb.InvalidInputException),
    ("SET allowed_paths=['/etc/passwd']", duckdb.InvalidInputException),
    ("SET allowed_directories=['/']", duckdb.InvalidInputException),
    ("SET temp_directory='/tmp'", duckdb.InvalidInputException),
    ("SET autoinstall_known_extensions=true", duckdb.InvalidInputException),
    ("SET lock_configuration=false", duckdb.InvalidInputException),
    ("RESET lock_configuration", duckdb.InvalidInputException),
    ("PRAGMA disable_profiling", duckdb.InvalidInputException),
    ("SET profiling_output='{leak}'", duckdb.InvalidInputException),
]


@pytest.fixture
def files(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("name,age\nAnn,34\n")
    (tmp_path / "other.csv").write_text(f"secret\n{SECRET}\n")
    spill = tmp_path / "spill"
    spill.mkdir()
    return {
        "a": str(a),
        "other": str(tmp_path / "other.csv"),
        "out": str(tmp_path / "out.csv"),
        "leak": str(tmp_path / "leak.csv"),
        "spill": str(spill),
        "dir": str(tmp_path),
    }


@pytest.mark.parametrize("statement, error", DENIED)
def test_connect_denies(files, statement, error):
    con = tabular.connect([files["a"]], [files["out"]], temp_dir=files["spill"])
    try:
        with pytest.raises(error) as raised:
            con.execute(statement.format(**files)).fetchall()
        assert SECRET not in str(raised.value)
        # the connection is still sandboxed, and still usable, afterwards
        assert con.execute(
            "SELECT current_setting('enable_external_access'), "
            "current_setting('lock_configuration')"
        ).fetchone() == (False, True)
    finally:
        con.close()
    assert isinstance(raised.value, duckdb.Error)
    assert not os.path.exists(files["leak"])
    assert not os.path.exists(files["out"])
    assert sorted(os.listdir(files["dir"])) == ["a.csv", "other.csv", "spill"]


def test_connect_reads_allowed_and_writes_output(files):
    con = tabular.connect([files["a"]], [files["out"]], temp_dir=files["spill"])
    try:
        assert con.execute("SELECT * FROM read_csv(?)", [files["a"]]).fetchall() == [("Ann", 34)]
        con.execute(
            f"COPY (SELECT * FROM read_csv('{files['a']}')) TO '{files['out']}' "
            "(FORMAT csv, HEADER)"
        )
    finally:
        con.close()
    with open(files["out"]) as handle:
        assert handle.read().splitlines() == ["name,age", "Ann,34"]


def test_connect_settings(files):
    con = tabular.connect(
        [files["a"]], [files["out"]], memory_limit="64MB", threads=1, temp_dir=files["spill"]
    )
    try:
        settings = dict(
            con.execute(
                "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', "
                "'lock_configuration', 'autoinstall_known_extensions', "
                "'autoload_known_extensions', 'threads')"
            ).fetchall()
        )
    finally:
        con.close()
    assert settings == {
        "enable_external_access": "false",
        "lock_configuration": "true",
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
        "threads": "1",
    }


ODD = ['a"b', "x) FROM q; --", "{q}", "name with space"]
ODD_CSV = (
    '"a""b",x) FROM q; --,{q},name with space\r\n'
    "1,one,p,Zed\r\n"
    "2,two,q,Amy\r\n"
    "3,one,r,Amy\r\n"
    "4,two,s,Bea\r\n"
)


@pytest.mark.parametrize(
    "steps, expected",
    [
        (
            [{"op": "select", "columns": ["name with space", "{q}", 'a"b', "x) FROM q; --"]}],
            [
                ["name with space", "{q}", 'a"b', "x) FROM q; --"],
                ["Zed", "p", "1", "one"],
                ["Amy", "q", "2", "two"],
                ["Amy", "r", "3", "one"],
                ["Bea", "s", "4", "two"],
            ],
        ),
        (
            [
                {
                    "op": "rename",
                    "mapping": {'a"b': 'c"d', "{q}": "x) FROM q; --", "x) FROM q; --": "{q}"},
                }
            ],
            [
                ['c"d', "{q}", "x) FROM q; --", "name with space"],
                ["1", "one", "p", "Zed"],
                ["2", "two", "q", "Amy"],
                ["3", "one", "r", "Amy"],
                ["4", "two", "s", "Bea"],
            ],
        ),
        (
            [{"op": "filter", "column": "x) FROM q; --", "operator": "eq", "value": "one"}],
            [ODD, ["1", "one", "p", "Zed"], ["3", "one", "r", "Amy"]],
        ),
        (
            [{"op": "filter", "column": 'a"b', "operator": "ge", "value": 3}],
            [ODD, ["3", "one", "r", "Amy"], ["4", "two", "s", "Bea"]],
        ),
        (
            [{"op": "sort", "columns": ["name with space", "{q}"], "descending": True}],
            [
                ODD,
                ["1", "one", "p", "Zed"],
                ["4", "two", "s", "Bea"],
                ["3", "one", "r", "Amy"],
                ["2", "two", "q", "Amy"],
            ],
        ),
        (
            [{"op": "dedupe", "columns": ["x) FROM q; --"]}],
            [ODD, ["1", "one", "p", "Zed"], ["2", "two", "q", "Amy"]],
        ),
        (
            [
                {"op": "dedupe", "columns": ["name with space"]},
                {"op": "select", "columns": ['a"b']},
            ],
            [['a"b'], ["1"], ["2"], ["4"]],
        ),
    ],
)
def test_identifiers_are_quoted(app, client, actors, steps, expected):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor, ODD_CSV)["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "succeeded", run
    assert output_rows(client, editor, run) == expected


@pytest.mark.parametrize(
    "operator, value",
    [
        ("eq", "x' OR 1=1 --"),
        ("ne", "x' OR 1=1 --"),
        ("contains", "' OR ''='"),
        ("eq", "Ann') OR (1=1"),
    ],
)
def test_filter_values_are_bound(app, client, actors, operator, value):
    editor = actors["editor"].headers
    steps = [{"op": "filter", "column": "name", "operator": operator, "value": value}]
    pipeline = create_pipeline(client, editor, source(client, editor)["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert run["status"] == "succeeded", run
    rows = output_rows(client, editor, run)
    if operator == "ne":  # every name differs from the text: all rows, none lost
        assert len(rows) == 6 and run["rows_out"] == 5
    else:
        assert rows == [["name", "city", "age"]]
        assert run["rows_out"] == 0
