"""Tabular dataset files read with DuckDB: which format a stored file is, a sandboxed
connection that can read only the given files, the SQL that reads one, and previews.

The format is recognised from the stored bytes, not from the name or the content type a
client sent: Parquet by its ``PAR1`` magic, JSON lines by a first ``{`` (or a JSON array
by ``[``), CSV otherwise unless the start of the file has NUL bytes (binary: not tabular).

A CSV file always has a header row. Its delimiter is the one of ``,`` ``;`` tab ``|`` that
occurs most often in the header line (``,`` when none does); DuckDB infers the columns'
types from the rows. The header is read here, with Python's csv module, so that an empty
file, duplicate column names and ragged rows are errors instead of DuckDB's fallbacks
(renaming ``a`` to ``a_1``, or taking the file for one column).
"""

import base64
import csv
import datetime
import decimal
import io
import itertools
import json
import math
import os
import re
import uuid

import duckdb

FORMATS = ("csv", "parquet", "jsonl")
CONTENT_TYPES = {
    "csv": "text/csv",
    "parquet": "application/vnd.apache.parquet",
    "jsonl": "application/x-ndjson",
}
SUFFIXES = {"csv": ".csv", "parquet": ".parquet", "jsonl": ".jsonl"}
DELIMITERS = (",", ";", "\t", "|")
SNIFF_BYTES = 65536

# DuckDB exceptions that mean "this input (file or query) cannot be processed", as
# opposed to a fault of ours.
DATA_ERRORS = (
    duckdb.InvalidInputException,
    duckdb.ConversionException,
    duckdb.BinderException,
    duckdb.ParserException,
    duckdb.CatalogException,
    duckdb.OutOfRangeException,
    duckdb.TypeMismatchException,
    duckdb.NotImplementedException,
    duckdb.SyntaxException,
    duckdb.PermissionException,
)


def unreadable(exc):
    """Whether the DuckDB error ``exc`` means a file cannot be read although it is none of
    ``DATA_ERRORS``: the Parquet reader's own errors on a damaged file (Thrift's
    ``TProtocolException``, ``don't know what type``, corrupt metadata) come as a bare
    ``duckdb.Error``, and one may trip an internal check. Interrupts, running out of memory
    and I/O errors have their own messages."""
    return isinstance(exc, duckdb.Error) and not isinstance(
        exc,
        (*DATA_ERRORS, duckdb.InterruptException, duckdb.OutOfMemoryException, duckdb.IOException),
    )


class NotTabular(Exception):
    """The file cannot be read as a table; the message says why."""


def detect_format(path):
    """``csv``, ``parquet`` or ``jsonl`` for the file at ``path``; :class:`NotTabular`
    for an empty or binary file."""
    with open(path, "rb") as handle:
        head = handle.read(SNIFF_BYTES)
    if head.startswith(b"PAR1"):
        return "parquet"
    if not head:
        raise NotTabular("the file is empty (no header row)")
    if b"\x00" in head:
        raise NotTabular("the file is binary, not CSV, Parquet or JSON lines")
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] in (b"{", b"["):
        return "jsonl"
    return "csv"


def read_header(path, max_line_size):
    """The CSV header's column names and the delimiter to read the file with."""
    with open(path, "rb") as handle:
        raw = handle.read(max_line_size + 1)
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    line = text.split("\n", 1)[0]
    if "\n" not in text and len(raw) > max_line_size:
        raise NotTabular(f"line 1 is longer than {max_line_size} bytes (PIPELINE_MAX_LINE_SIZE)")
    delimiter = max(DELIMITERS, key=lambda d: (line.count(d), d == ","))
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=delimiter), [])
    except csv.Error as exc:
        raise NotTabular(f"the header row is not valid CSV ({exc})") from None
    if not header or header == [""] and not line.strip():
        raise NotTabular("the file is empty (no header row)")
    if len(set(header)) != len(header):
        raise NotTabular("the file has duplicate column names")
    return header, delimiter


def source_sql(path, fmt, max_line_size, max_columns=None):
    """``(sql, params)``: a table expression reading the file at ``path``. A CSV header
    with more than ``max_columns`` names is :class:`NotTabular` before DuckDB reads it."""
    if fmt == "parquet":
        return "read_parquet(?)", [path]
    if fmt == "jsonl":
        return "read_json(?, format = 'auto')", [path]
    header, delimiter = read_header(path, max_line_size)
    if max_columns is not None and len(header) > max_columns:
        raise NotTabular(
            f"the file has {len(header)} columns; at most {max_columns} are "
            "allowed (PIPELINE_MAX_COLUMNS)"
        )
    # The header is the first line (skip=0) and every row has its fields (strict_mode,
    # no null_padding); types are inferred from the rows.
    # DuckDB reads in buffers of 16 lines' worth by default (64 MiB for 4 MiB lines), from
    # the memory limit; four lines' worth (at least 8 MiB) keeps small limits usable.
    buffer_size = max(4 * max_line_size, 8 * 2**20)
    return (
        "read_csv(?, header = true, skip = 0, delim = ?, quote = '\"', escape = '\"', "
        "strict_mode = true, null_padding = false, max_line_size = ?, buffer_size = ?)",
        [path, delimiter, max_line_size, buffer_size],
    )


def connect(readable, writable=(), memory_limit="512MB", threads=None, temp_dir=None):
    """A DuckDB connection that can read only the files ``readable``, write only the files
    ``writable`` and spill only into ``temp_dir``; no extension can be installed or loaded,
    no database attached, and no setting changed (``lock_configuration``)."""
    config = {
        "memory_limit": str(memory_limit),
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
    }
    if threads:
        config["threads"] = int(threads)
    if temp_dir:
        config["temp_directory"] = temp_dir
    con = duckdb.connect(":memory:", config=config)
    try:
        con.execute("SET allowed_paths = ?", [sorted({*readable, *writable})])
        con.execute(
            "SET allowed_directories = ?", [[os.path.join(temp_dir, "")] if temp_dir else []]
        )
        con.execute("SET enable_external_access = false")
        con.execute("PRAGMA enable_profiling = 'no_output'")
        # Type pushdown reads a CSV column cast to a number straight from its text, which
        # rounds otherwise than casting the column's inferred type ('2.5' → 3, but
        # 2.5::DOUBLE → 2): a CAST must give the same whatever the file's format.
        con.execute("SET disabled_optimizers = 'type_pushdown'")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def quote(name):
    """``name`` as a DuckDB identifier."""
    return '"' + name.replace('"', '""') + '"'


def describe(con, sql, params):
    """``[(name, type), ...]`` of the query ``sql``."""
    return [(row[0], row[1]) for row in con.execute(f"DESCRIBE {sql}", params).fetchall()]


RAGGED = "It was not possible to automatically detect the CSV parsing dialect"
# Lines of DuckDB's longer messages worth showing after its first line.
TELLING = (
    "Expected Number of Columns",
    "Could not convert",
    "Maximum line size",
    "Error when converting column",
    "Original Line",
)


def clean_error(exc, paths):
    """DuckDB's message for a user: its first line and the lines that say what was
    wrong, file paths replaced by names."""
    text = str(exc).strip()
    if RAGGED in text:
        return (
            "the rows do not all have as many fields as the header row, or a quoted "
            "field is not closed"
        )
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    shown = lines[:1] + [line[:200] for line in lines[1:] if line.startswith(TELLING)]
    message = " ".join(shown)
    for path, name in paths.items():
        message = message.replace(path, name)
    return message[:500]


def json_value(value):
    """A DuckDB value as JSON: dates ISO 8601, decimals and non-finite floats as text,
    bytes as base64."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(key): json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(item) for item in value]
    return str(value)


def preview(
    path,
    limit,
    memory_limit="512MB",
    threads=None,
    temp_dir=None,
    max_line_size=4194304,
    name="the file",
    cell_chars=None,
):
    """``{"columns": [{"name", "type"}], "rows": [[...]]}``: the first ``limit`` rows of
    the file at ``path``; :class:`NotTabular` if it cannot be read as a table. With
    ``cell_chars``, text cells come out of DuckDB at most one character longer than that
    (so that the caller can tell which were cut)."""
    fmt = detect_format(path)
    source, params = source_sql(path, fmt, max_line_size)
    con = connect([path], memory_limit=memory_limit, threads=threads, temp_dir=temp_dir)
    try:
        query = f"SELECT * FROM {source}"
        columns = describe(con, query, params)
        if cell_chars is not None:
            query = (
                "SELECT "
                + ", ".join(
                    f"left({quote(column)}, {int(cell_chars) + 1}) AS {quote(column)}"
                    if kind == "VARCHAR"
                    else quote(column)
                    for column, kind in columns
                )
                + f" FROM {source}"
            )
        rows = con.execute(f"{query} LIMIT ?", [*params, int(limit)]).fetchall()
    except (duckdb.InterruptException, duckdb.OutOfMemoryException):
        raise  # out of memory: the preview is too large, not the file unreadable
    except duckdb.Error as exc:  # whatever the reader raises (see unreadable)
        raise NotTabular(clean_error(exc, {path: name})) from None
    finally:
        con.close()
    return {
        "format": fmt,
        "columns": [{"name": column, "type": kind} for column, kind in columns],
        "rows": [[json_value(value) for value in row] for row in rows],
    }


# Functions a sql step may not call (docs/reference/pipelines.rst, "Steps"): they tell about the server, not
# the data.
DENIED_FUNCTIONS = frozenset(
    {
        # settings (which name server paths), variables, the environment
        "current_setting",
        "getvariable",
        "getenv",
        # the query's own text, which names the run's files and folders
        "current_query",
        # the engine: its version, and its process's counters of connections, queries and
        # transactions (how much else it ran)
        "version",
        "current_connection_id",
        "current_query_id",
        "current_transaction_id",
        "txid_current",
        # the databases and their catalog (macros that read the catalog's table functions
        # included); json_serialize_plan binds a query given as text, past this check
        "current_database",
        "current_catalog",
        "current_schema",
        "current_schemas",
        "in_search_path",
        "get_block_size",
        "pg_get_viewdef",
        "pg_get_constraintdef",
        "format_type",
        "json_serialize_plan",
    }
)
# Of those, the ones an unqualified name without parentheses calls when no column has it.
BARE_FUNCTIONS = frozenset({"current_catalog", "current_schema"})
# The table functions a sql step may call: they generate rows and read nothing.
GENERATORS = frozenset({"range", "generate_series"})
# How deep a query's parse tree (as JSON) may nest: deeper, json.loads would recurse past
# Python's limit. 300 levels hold about 100 nested function calls or 90 nested subqueries.
MAX_TREE_DEPTH = 300
TOO_DEEP = (
    "the query nests too deeply (parentheses, function calls, CASE or subqueries within each other)"
)
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]")


def json_depth(text):
    """How deeply the JSON ``text`` nests, found without recursion."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(itertools.accumulate(1 if char in "[{" else -1 for char in brackets), default=0)


def check_select(query):
    """Why ``query`` is not one read-only SELECT over ``input`` (a message), or None.

    DuckDB's own parser decides what the query is: exactly one statement, a SELECT (a
    set operation of SELECTs included), whose tables are ``input`` or the query's own
    common table expressions, and which calls no table function but ``GENERATORS`` and
    none of ``DENIED_FUNCTIONS``. The run's connection is sandboxed as well.
    """
    if "\x00" in query:
        return "the query must not contain NUL characters"
    con = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    try:
        text = con.execute("SELECT json_serialize_sql(?)", [query]).fetchone()[0]
    finally:
        con.close()
    if json_depth(text) > MAX_TREE_DEPTH:
        return TOO_DEEP
    parsed = json.loads(text)
    if parsed.get("error"):
        message = str(parsed.get("error_message", ""))
        if "Only SELECT statements" in message:
            return "the query must be a single SELECT statement"
        if "Max expression depth" in message:
            return TOO_DEEP
        return f"the query does not parse: {message.splitlines()[0][:300] if message else ''}"
    statements = parsed.get("statements", [])
    if len(statements) != 1:
        return "the query must be a single SELECT statement"
    ctes = {name.lower() for name in _cte_names(statements[0])}
    # A WITH name applies to its own scope only; one that is also a system view's name
    # (pg_settings, duckdb_settings, ...) would let another scope read that view.
    shadowed = sorted(ctes & system_views())
    if shadowed:
        return f"the query must not name a WITH table {shadowed[0]!r} (a system view)"
    for node in json_nodes(statements[0]):
        problem = _check_node(node, ctes)
        if problem:
            return problem
    return None


def _check_node(node, ctes):
    kind = node.get(NODE_KIND)
    if kind == "SHOW_REF":
        return "the query must not SHOW or DESCRIBE tables"
    if kind == "TABLE_FUNCTION":
        function = node.get("function") or {}
        if str(function.get("function_name", "")).lower() not in GENERATORS:
            return (
                "the query must not call table functions other than range and "
                "generate_series; it can read only input"
            )
    if kind == "BASE_TABLE":
        table = str(node.get("table_name", "")).lower()
        if (
            node.get("schema_name")
            or node.get("catalog_name")
            or (table != "input" and table not in ctes)
        ):
            return (
                f"the query can read only the table input (and its own WITH "
                f"names), not {node.get('table_name')!r}"
            )
    if node.get("class") == "PARAMETER" or kind == "VALUE_PARAMETER":
        return "the query must not have parameters (? or $1); write values in it"
    if (
        node.get("class") == "FUNCTION"
        and str(node.get("function_name", "")).lower() in DENIED_FUNCTIONS
    ):
        return f"the query must not call {node.get('function_name')}()"
    if node.get("class") == "COLUMN_REF":
        names = node.get("column_names") or []
        if len(names) == 1 and str(names[0]).lower() in BARE_FUNCTIONS:
            return (
                f"the query must not call {names[0]} (for a column of that name, "
                f"write input.{names[0]})"
            )
    return None


# A parse-tree node's kind, in json_serialize_sql's output.
NODE_KIND = "type"

_system_views = None


def system_views():
    """The lower-cased names of the views and tables of an empty DuckDB database."""
    global _system_views
    if _system_views is None:
        con = duckdb.connect(":memory:")
        try:
            _system_views = frozenset(
                name.lower()
                for (name,) in con.execute(
                    "SELECT view_name FROM duckdb_views() UNION SELECT table_name FROM "
                    "duckdb_tables()"
                ).fetchall()
            )
        finally:
            con.close()
    return _system_views


def json_nodes(tree):
    """Every JSON object in ``tree``, depth first."""
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _cte_names(tree):
    for node in json_nodes(tree):
        for entry in (node.get("cte_map") or {}).get("map") or []:
            if isinstance(entry, dict) and "key" in entry:
                yield str(entry["key"])
