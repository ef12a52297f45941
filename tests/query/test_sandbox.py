"""The SQL console's two layers hold, as the sql step's do (tests/pipelines/test_sandbox.py):
``check_console_select`` refuses at validation (422 at ``["body", "sql"]``) whatever is not
one read-only SELECT over datasets by name, a bare name is a dataset's (never a system
view's), and the job's DuckDB connection reads only the files of the datasets the query
names, writes nothing but its result and changes no setting, whatever text reaches it. No
answer names a server path."""

import os
import shutil

import pytest

from datahub.app.extensions import db
from datahub.datasets.models import Dataset
from datahub.platform.isolation import JobError
from datahub.query import services
from datahub.query.job import query_job
from tests.pipelines.helpers import source
from tests.query.test_api import QUERY, ok, query
from tests.resources import create_dataset, upload, validation_error

SECRET = "TOP-SECRET-MARKER-4711"
ONLY_SELECT = "the query must be a single SELECT statement"
NO_TABLE_FUNCTIONS = (
    "the query must not call table functions other than range and generate_series; it can "
    "read only datasets"
)
NO_SHOW = "the query must not SHOW or DESCRIBE tables"
NO_PARAMETERS = "the query must not have parameters (? or $1); write values in it"


def qualified(name):
    return (
        f"the query must not name a schema or database ({name!r}); quote a dataset's name "
        'as one identifier: "My data.csv"'
    )


def denied(function):
    return f"the query must not call {function}()"


def bare(function):
    return (
        f"the query must not call {function} (for a column of that name, write "
        f"the_table.{function})"
    )


def system_view(name):
    return f"the query must not name a WITH table {name!r} (a system view)"


REFUSED = [
    # table functions that read files, settings or other queries
    ("SELECT * FROM read_csv('/etc/passwd')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM read_csv_auto('/etc/passwd')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM read_text('/etc/hostname')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM read_blob('/etc/hostname')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM read_parquet('/tmp/x.parquet')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM read_json('/tmp/x.json')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM glob('/*')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM query('SELECT 1')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM query_table('sales')", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM duckdb_settings()", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM duckdb_extensions()", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM duckdb_temporary_files()", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM pragma_version()", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM (FROM duckdb_settings())", NO_TABLE_FUNCTIONS),
    ("SELECT * FROM sales, LATERAL unnest([1, 2]) AS t(x)", NO_TABLE_FUNCTIONS),
    (
        "SELECT * FROM sales WHERE region IN (SELECT content FROM read_text('/etc/passwd'))",
        NO_TABLE_FUNCTIONS,
    ),
    ("WITH x AS (SELECT * FROM read_csv('/etc/passwd')) SELECT * FROM x", NO_TABLE_FUNCTIONS),
    # names with a schema or a catalog
    ("SELECT * FROM main.x", qualified("main.x")),
    ("SELECT * FROM system.main.duckdb_settings", qualified("system.main.duckdb_settings")),
    ("SELECT * FROM information_schema.tables", qualified("information_schema.tables")),
    ("SELECT * FROM pg_catalog.pg_settings", qualified("pg_catalog.pg_settings")),
    ("SELECT * FROM temp.main.x", qualified("temp.main.x")),
    ('SELECT * FROM "Sales 2025"."x"', qualified("Sales 2025.x")),
    ("SELECT * FROM sales WHERE region IN (SELECT 1 FROM main.sales)", qualified("main.sales")),
    # SHOW, DESCRIBE, SUMMARIZE
    ("SHOW tables", NO_SHOW),
    ("SHOW pg_settings", NO_SHOW),
    ("DESCRIBE sales", NO_SHOW),
    ("SUMMARIZE sales", NO_SHOW),
    ("SELECT * FROM sales, (DESCRIBE sales)", NO_SHOW),
    # anything but one SELECT
    ("COPY sales TO '/tmp/x.csv'", ONLY_SELECT),
    ("COPY (SELECT 1) TO '/tmp/x.csv'", ONLY_SELECT),
    ("SELECT * FROM sales; COPY sales TO '/tmp/leak.csv'", ONLY_SELECT),
    ("SELECT 1; SELECT 2", ONLY_SELECT),
    ("INSTALL httpfs", ONLY_SELECT),
    ("LOAD httpfs", ONLY_SELECT),
    ("ATTACH '/tmp/x.db' AS x", ONLY_SELECT),
    ("DETACH x", ONLY_SELECT),
    ("SET memory_limit='10GB'", ONLY_SELECT),
    ("SET enable_external_access = true", ONLY_SELECT),
    ("RESET lock_configuration", ONLY_SELECT),
    ("PRAGMA version", ONLY_SELECT),
    ("CALL pragma_version()", ONLY_SELECT),
    ("CREATE TABLE t AS SELECT 1", ONLY_SELECT),
    ("CREATE SECRET (TYPE s3, KEY_ID 'k', SECRET 's')", ONLY_SELECT),
    ("EXPLAIN SELECT 1", ONLY_SELECT),
    ("EXPORT DATABASE '/tmp/x'", ONLY_SELECT),
    ("PIVOT sales ON region", ONLY_SELECT),
    ("DELETE FROM sales", ONLY_SELECT),
    # functions that tell about the server
    ("SELECT current_setting('allowed_paths')", denied("current_setting")),
    (
        "SELECT * FROM sales WHERE region <> CURRENT_SETTING('temp_directory')",
        denied("current_setting"),
    ),
    ("SELECT getvariable('x')", denied("getvariable")),
    ("SELECT getenv('HOME')", denied("getenv")),
    ("SELECT current_query()", denied("current_query")),
    ("SELECT version()", denied("version")),
    ("SELECT current_connection_id()", denied("current_connection_id")),
    ("SELECT current_query_id()", denied("current_query_id")),
    ("SELECT current_transaction_id()", denied("current_transaction_id")),
    ("SELECT txid_current()", denied("txid_current")),
    ("SELECT current_database()", denied("current_database")),
    ("SELECT current_catalog()", denied("current_catalog")),
    ("SELECT current_schema()", denied("current_schema")),
    ("SELECT current_schemas(true)", denied("current_schemas")),
    ("SELECT in_search_path('main', 'main')", denied("in_search_path")),
    ("SELECT get_block_size('memory')", denied("get_block_size")),
    ("SELECT pg_get_viewdef(1)", denied("pg_get_viewdef")),
    ("SELECT pg_get_constraintdef(1)", denied("pg_get_constraintdef")),
    ("SELECT format_type(1, 1)", denied("format_type")),
    ("SELECT json_serialize_plan('SELECT 1')", denied("json_serialize_plan")),
    ("SELECT current_catalog", bare("current_catalog")),
    ("SELECT current_schema", bare("current_schema")),
    ("SELECT region FROM sales ORDER BY getenv(region)", denied("getenv")),
    ("WITH x AS (SELECT version() AS v) SELECT * FROM x", denied("version")),
    ("SELECT (SELECT current_setting('threads')) AS t", denied("current_setting")),
    # parameters
    ("SELECT * FROM sales WHERE region = ?", NO_PARAMETERS),
    ("SELECT * FROM sales WHERE region = $1", NO_PARAMETERS),
    ("SELECT $name", NO_PARAMETERS),
    # WITH names that are system views (another scope would read the view)
    ("WITH pg_settings AS (SELECT 1) SELECT * FROM pg_settings", system_view("pg_settings")),
    ("WITH duckdb_tables AS (SELECT 1) SELECT 1", system_view("duckdb_tables")),
    ("WITH SQLITE_MASTER AS (SELECT 1) SELECT 1", system_view("sqlite_master")),
    (
        "SELECT b.* FROM (WITH pg_settings AS (SELECT 1 AS x) SELECT * FROM pg_settings) AS a, "
        "(SELECT name, setting FROM pg_settings WHERE name = 'allowed_paths') AS b",
        system_view("pg_settings"),
    ),
    # text that does not parse
    ("SELEC nonsense", 'the query does not parse: syntax error at or near "SELEC"'),
    ("SELECT * FROM sales /*", 'the query does not parse: unterminated /* comment at or near "/*"'),
    (
        "SELECT * FROM sales)); SELECT * FROM ((SELECT 1",
        'the query does not parse: syntax error at or near ")"',
    ),
]


@pytest.fixture
def editor(actors):
    return actors["editor"].headers


@pytest.mark.parametrize("sql, msg", REFUSED)
def test_refused_at_validation(client, editor, sql, msg):
    response = query(client, editor, sql)
    assert response.status_code == 422, response.get_json()
    assert response.get_json() == {
        "detail": [validation_error(["body", "sql"], msg, "value_error.sql")]
    }


def test_nul_is_refused_as_every_request_string(client, editor):
    response = query(client, editor, "SELECT 1\x00")
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            validation_error(
                ["body", "sql"], "string contains a NUL character", "value_error.str.nul"
            )
        ]
    }


def not_found(response, name):
    assert (response.status_code, response.get_json()) == (
        422,
        {"detail": f"Dataset not found: {name}"},
    )


@pytest.mark.parametrize(
    "sql, name",
    [
        ("SELECT * FROM '/etc/passwd'", "/etc/passwd"),
        ('SELECT * FROM "/etc/passwd"', "/etc/passwd"),
        ("FROM 'data.csv'", "data.csv"),
        ("SELECT * FROM read_csv", "read_csv"),
    ],
)
def test_a_quoted_path_is_a_dataset_name(client, editor, sql, name):
    not_found(query(client, editor, sql), name)


SYSTEM_VIEWS = [
    "pg_settings",
    "duckdb_settings",
    "sqlite_master",
    "duckdb_tables",
    "duckdb_views",
    "duckdb_columns",
    "duckdb_databases",
    "pg_class",
    "pragma_database_list",
]


@pytest.mark.parametrize("name", SYSTEM_VIEWS)
def test_a_system_view_name_is_a_dataset_name(client, editor, name):
    not_found(query(client, editor, f"SELECT * FROM {name}"), name)
    not_found(query(client, editor, f"SELECT * FROM {name.upper()}"), name.upper())
    sales = source(client, editor, "region\nnorth\n", "sales")
    assert sales["id"]
    not_found(
        query(client, editor, f"SELECT * FROM sales WHERE region IN (SELECT 1 FROM {name})"),
        name,
    )


@pytest.mark.parametrize("name", ["pg_settings", "duckdb_tables", "sqlite_master"])
def test_a_dataset_named_as_a_system_view_reads_the_dataset(client, editor, name):
    dataset = source(client, editor, "x\r\n42\r\n", name)
    answer = ok(query(client, editor, f"SELECT * FROM {name}"))
    assert answer["rows"] == [[42]]
    assert answer["inputs"] == [{"dataset_id": dataset["id"], "name": name, "version": 1}]
    upper = ok(query(client, editor, f'SELECT x + 1 AS y FROM "{name.upper()}"'))
    assert upper["rows"] == [[43]]


def test_a_with_name_of_another_scope_reads_no_file(client, editor, actors):
    """A bare name outside the scope of its WITH is no dataset to the check, and DuckDB
    finds no table of that name: neither a file nor another user's dataset."""
    other = actors["other_editor"].headers
    hidden = create_dataset(client, other, "hidden", visibility="private")
    assert upload(client, other, hidden["id"], f"s\n{SECRET}\n".encode()).status_code == 200
    answers = {}
    for name in ("/etc/passwd", "hidden", "nothing"):
        quoted = '"' + name + '"'
        sql = (
            f"SELECT * FROM (WITH {quoted} AS (SELECT 1 AS x) SELECT * FROM {quoted}) a, {quoted} b"
        )
        response = query(client, editor, sql)
        assert response.status_code == 422
        answers[name] = response.get_json()["detail"]
        assert SECRET not in answers[name] and "root:" not in answers[name]
    assert (
        answers["hidden"]
        == "Query failed: Invalid Input Error: Table with name hidden does not exist!"
    )
    assert answers["nothing"] == answers["hidden"].replace("hidden", "nothing")
    assert answers["/etc/passwd"] == answers["hidden"].replace("hidden", "/etc/passwd")


def test_a_with_name_in_a_subquery_leaves_the_dataset_of_that_name_readable(client, editor):
    """A WITH table's name applies to its own scope: the same name outside it is the
    dataset."""
    source(client, editor, "region,amount\nnorth,10\nsouth,5\n", "sales")
    sql = (
        "SELECT region, amount FROM sales WHERE region IN "
        "(WITH sales AS (SELECT 'north' AS region) SELECT region FROM sales)"
    )
    answer = ok(query(client, editor, sql))
    assert answer["rows"] == [["north", 10]]
    assert [i["name"] for i in answer["inputs"]] == ["sales"]


@pytest.mark.parametrize(
    "sql", ["SELECT 1; -- done", "SELECT 1;\n-- done\n", "SELECT 1; /* done */", "SELECT 1 -- x"]
)
def test_what_passes_the_check_runs(client, editor, sql):
    """A statement ended by a semicolon and a comment is one SELECT to the check: it runs."""
    assert ok(query(client, editor, sql))["rows"] == [[1]]


def test_one_dataset_named_in_two_cases_is_one_table(client, editor):
    """Names are compared case-insensitively, letters beyond ASCII too."""
    dataset = source(client, editor, "x\n1\n", "Ärger")
    for sql in ('SELECT * FROM "ärger"', 'SELECT * FROM "Ärger" a, "ärger" b'):
        answer = ok(query(client, editor, sql))
        assert answer["inputs"] == [{"dataset_id": dataset["id"], "name": "Ärger", "version": 1}]


# -- No answer names a server path ------------------------------------------------------


def stored_key(app, dataset_id):
    with app.app_context():
        return db.session.get(Dataset, dataset_id).file_key


def no_server_path(app, text, *keys):
    assert app.config["STORAGE_PATH"] not in text
    assert "/tmp/" not in text and "datahub-query" not in text
    for key in keys:
        assert key not in text


BROKEN_JSON = '{"a": 1}\n{"a": 2\n'
DRIFTING_JSON = "".join(f'{{"a": {i}}}\n' for i in range(30000)) + '{"a": "x"}\n'
LATE_CSV = "n\n" + "".join(f"{i}\n" for i in range(30000))


@pytest.mark.parametrize(
    "text, sql, detail",
    [
        pytest.param(
            BROKEN_JSON,
            "SELECT * FROM events",
            'Query failed: Invalid Input Error: Malformed JSON in file "events@1", at byte 9 '
            "in line 3: unexpected end of data.",
            id="malformed-json",
        ),
        pytest.param(
            DRIFTING_JSON,
            "SELECT sum(a) FROM events",
            'Query failed: Invalid Input Error: JSON transform error in file "events@1", in '
            'line 30001: Failed to cast value to numerical: "x"',
            id="json-type-drift",
        ),
        pytest.param(
            LATE_CSV + "abc\n",
            "SELECT sum(n) FROM events",
            "Query failed: Conversion Error: CSV Error on Line: 30002 Original Line: abc Error "
            'when converting column "n". Could not convert string "abc" to \'BIGINT\'',
            id="csv-late-conversion",
        ),
        pytest.param(
            LATE_CSV + "1,2\n",
            "SELECT sum(n) FROM events",
            "Query failed: Invalid Input Error: CSV Error on Line: 30002 Original Line: 1,2 "
            "Expected Number of Columns: 1 Found: 2",
            id="csv-late-extra-field",
        ),
        pytest.param(
            "n\n1\n",
            "SELECT filename FROM events",
            'Query failed: Binder Error: Referenced column "filename" not found in FROM clause!',
            id="no-filename-column",
        ),
    ],
)
def test_errors_of_the_data_name_the_dataset_not_its_file(app, client, editor, text, sql, detail):
    dataset = source(client, editor, text, "events")
    key = stored_key(app, dataset["id"])
    for path in (QUERY, f"{QUERY}?format=csv"):
        response = query(client, editor, sql, path=path)
        assert (response.status_code, response.get_json()) == (422, {"detail": detail})
        no_server_path(app, response.get_data(as_text=True), key)


def test_an_error_names_the_version_read(app, client, editor):
    dataset = source(client, editor, BROKEN_JSON, "events")
    first = stored_key(app, dataset["id"])
    assert upload(client, editor, dataset["id"], BROKEN_JSON.encode() + b"\n").status_code == 200
    keys = (first, stored_key(app, dataset["id"]))
    for sql, version in (("SELECT * FROM events", 2), ('SELECT * FROM "events@1"', 1)):
        response = query(client, editor, sql)
        assert response.get_json()["detail"].startswith(
            f'Query failed: Invalid Input Error: Malformed JSON in file "events@{version}"'
        )
        no_server_path(app, response.get_data(as_text=True), *keys)


def test_a_denied_file_read_names_only_what_the_query_wrote(app, client, editor):
    """The other-scope trick reaches DuckDB with a stored file's path: DuckDB knows no such
    table, and the answer shows only the text the caller sent."""
    dataset = source(client, editor, "n\n1\n", "events")
    path = os.path.join(app.config["STORAGE_PATH"], stored_key(app, dataset["id"]))
    quoted = "'" + path + "'"
    sql = f"SELECT * FROM (WITH {quoted} AS (SELECT 1) SELECT 1) a, {quoted} b"
    response = query(client, editor, sql)
    assert response.get_json() == {
        "detail": f"Query failed: Invalid Input Error: Table with name {path} does not exist!"
    }


# -- Run time: the job refuses whatever text reaches it ---------------------------------

# ``{secret}`` is a file the query does not name, ``{source}`` the file of its table
# ``people``, ``{leak}`` a file it tries to write. The job wraps the text as
# ``SELECT * FROM (WITH ... SELECT * FROM (<text>)) LIMIT n``: ``))`` closes both.
ESCAPES = [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM read_csv('{secret}')",
    "SELECT * FROM read_text('{secret}')",
    "SELECT * FROM read_blob('{secret}')",
    "SELECT * FROM '{secret}'",
    "SELECT name FROM people UNION ALL SELECT content FROM read_text('{secret}')",
    "SELECT * FROM people WHERE name IN (SELECT content FROM read_text('{secret}'))",
    "SELECT * FROM read_csv('{source}/../{secret_name}')",
    "SELECT * FROM people; COPY people TO '{leak}'",
    "SELECT * FROM people)); COPY (SELECT 'x') TO '{leak}'; SELECT * FROM ((SELECT 1",
    "SELECT 1)); COPY (SELECT 'x') TO '{leak}'; SELECT * FROM ((SELECT 1",
    "SELECT 1)); COPY (SELECT 'x') TO '{source}'; SELECT * FROM ((SELECT 1",
    "SELECT 1)); SELECT * FROM read_csv('{secret}'); SELECT * FROM ((SELECT 1",
    "COPY people TO '{leak}'",
    "LOAD httpfs",
    "INSTALL httpfs",
    "SELECT 1)); LOAD httpfs; SELECT * FROM ((SELECT 1",
    "SELECT 1)); INSTALL httpfs; SELECT * FROM ((SELECT 1",
    "SET memory_limit='10GB'",
    "SELECT 1)); SET memory_limit='10GB'; SELECT * FROM ((SELECT 1",
    "SELECT 1)); SET enable_external_access=true; SELECT * FROM ((FROM read_csv('{secret}')",
    "SELECT 1)); SET allowed_paths=['{secret}']; SELECT * FROM ((FROM read_csv('{secret}')",
    "SELECT 1)); RESET lock_configuration; SELECT * FROM ((SELECT 1",
    "ATTACH '{leak}' AS x",
    "SELECT 1)); ATTACH '{leak}' AS x; SELECT * FROM ((SELECT 1",
    "SELECT 1)); CREATE SECRET (TYPE s3, KEY_ID 'k', SECRET 's'); SELECT * FROM ((SELECT 1",
]
PEOPLE = "name,age\nAnn,34\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "store").mkdir()
    people = tmp_path / "store" / ("a" * 32)
    people.write_text(PEOPLE)
    secret = tmp_path / "store" / ("b" * 32)
    secret.write_text(f"secret\n{SECRET}\n")
    return {
        "source": str(people),
        "secret": str(secret),
        "secret_name": secret.name,
        "leak": str(tmp_path / "leak.csv"),
        "out": str(tmp_path / "out" / "result.csv"),
        "work": str(tmp_path / "work"),
        "dir": str(tmp_path),
    }


def job_args(app, files, sql, with_table=True, export=False):
    """The job's arguments, as datahub.query.services builds them for ``sql`` over the
    dataset ``people`` (version 1, at ``files["source"]``) or over none."""
    key = os.path.basename(files["source"])
    tables = [services.Table("people", 1, "people", 1, key)] if with_table else []
    shutil.rmtree(files["work"], ignore_errors=True)
    os.makedirs(files["work"])
    args = services._job_args(
        sql, tables, [], {key: files["source"]}, 10, app.config, files["work"]
    )
    if export:
        os.makedirs(os.path.dirname(files["out"]), exist_ok=True)
        args.update(output=files["out"], format="csv")
    return args


def test_the_job_reads_its_table(app, files):
    answer = query_job(job_args(app, files, "SELECT * FROM people"))
    assert answer["rows"] == [["Ann", 34]]
    assert query_job(job_args(app, files, "SELECT 1", with_table=False))["rows"] == [[1]]
    assert query_job(job_args(app, files, "SELECT * FROM people", export=True)) == {"rows": 1}


@pytest.mark.parametrize("export", [False, True], ids=["rows", "export"])
@pytest.mark.parametrize("with_table", [True, False], ids=["people", "no-dataset"])
@pytest.mark.parametrize("escape", ESCAPES)
def test_the_job_refuses_every_escape(app, files, escape, with_table, export):
    sql = escape.format(**files)
    args = job_args(app, files, sql, with_table, export)
    with pytest.raises(JobError) as raised:
        query_job(args)
    error = raised.value
    assert error.kind == "query"
    assert error.message.startswith("Query failed: ")
    assert SECRET not in error.message and "root:" not in error.message
    assert not os.path.exists(files["leak"])
    with open(files["source"]) as stored:
        assert stored.read() == PEOPLE
    assert sorted(os.listdir(files["dir"])) == sorted(
        ["store", "work"] + (["out"] if export else [])
    )
    assert sorted(os.listdir(os.path.dirname(files["source"]))) == ["a" * 32, "b" * 32]
    if export and os.path.exists(files["out"]):
        with open(files["out"]) as out:
            assert SECRET not in out.read()
