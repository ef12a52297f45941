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
import contextlib
import csv
import datetime
import decimal
import io
import json
import math
import os
import uuid

import duckdb

from datahub.datasets.sql_check import NODE_KIND, json_nodes

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
        return sniff_format(handle.read(SNIFF_BYTES))


def sniff_format(head):
    """``csv``, ``parquet`` or ``jsonl`` for a file that begins with ``head`` (its first
    ``SNIFF_BYTES``); :class:`NotTabular` for an empty or binary file."""
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
    """The CSV header's column names and the delimiter to read the file with. Read from
    the first ``SNIFF_BYTES``, more (doubling) only while the header row goes on."""
    limit = max_line_size + 1
    with open(path, "rb") as handle:
        raw = handle.read(min(SNIFF_BYTES, limit))
        while True:
            try:
                text, header, complete = _first_row(raw)
            except csv.Error as exc:
                text, header, complete, error = None, None, False, exc
            if complete or len(raw) >= limit:
                break
            more = handle.read(min(len(raw), limit - len(raw)))
            if not more:
                break
            raw += more
    if header is None:
        raise NotTabular(f"the header row is not valid CSV ({error})") from None
    line = text.split("\n", 1)[0]
    if "\n" not in text and len(raw) > max_line_size:
        raise NotTabular(f"line 1 is longer than {max_line_size} bytes (PIPELINE_MAX_LINE_SIZE)")
    if not header or header == [""] and not line.strip():
        raise NotTabular("the file is empty (no header row)")
    if len(set(header)) != len(header):
        raise NotTabular("the file has duplicate column names")
    return header, delimiter_of(line)


def delimiter_of(line):
    """The one of ``DELIMITERS`` that occurs most often in the header line (``,`` at a tie)."""
    return max(DELIMITERS, key=lambda d: (line.count(d), d == ","))


def _first_row(raw):
    """``(text, header, complete)``: the start of a file decoded, its first CSV row, and
    whether that row ends within it (at a line's end)."""
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    rows = io.StringIO(text)
    header = next(csv.reader(rows, delimiter=delimiter_of(text.split("\n", 1)[0])), [])
    read = rows.tell()
    return text, header, read < len(text) or text.endswith("\n")


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


def table_of(path, max_line_size, max_columns=None):
    """``(format, sql, params)``: the file at ``path`` as a table expression
    (:func:`detect_format`, then :func:`source_sql`)."""
    fmt = detect_format(path)
    return (fmt, *source_sql(path, fmt, max_line_size, max_columns))


def literal(text):
    """``text`` as a DuckDB string literal (where a parameter cannot stand)."""
    return "'" + text.replace("'", "''") + "'"


NO_EXTENSIONS = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
_prepared = []  # the database prepare() made ahead, for this process's next connect()


def prepare():
    """Make a DuckDB database ahead, in a job's process waiting for its job (a warm spare,
    datahub.platform.isolation.child): its next :func:`connect` takes it and applies its
    settings and sandbox then, the same as a new one's."""
    _prepared.append(duckdb.connect(":memory:", config=dict(NO_EXTENSIONS)))


# What rows_scanned reads from a profile: tracked alone, no operator is timed.
PROFILED = ["operator.rows_scanned", "operator.extra_info", "operator.type"]


def connect(
    readable, writable=(), memory_limit="512MB", threads=None, temp_dir=None, profile=False
):
    """A DuckDB connection that can read only the files ``readable``, write only the files
    ``writable`` and spill only into ``temp_dir``; no extension can be installed or loaded,
    no database attached, and no setting changed (``lock_configuration``). ``profile``:
    its queries keep what :func:`rows_scanned` reads (and nothing more, from DuckDB 2.0)."""
    config = {"memory_limit": str(memory_limit)}
    if threads:
        config["threads"] = int(threads)
    if temp_dir:
        config["temp_directory"] = temp_dir
    prepared = _prepared.pop() if _prepared else None
    if prepared is None:
        con = duckdb.connect(":memory:", config={**NO_EXTENSIONS, **config})
    else:
        con = prepared
    try:
        for name, value in config.items() if prepared is not None else ():
            con.execute(f"SET {name} = ?", [value])
        con.execute("SET allowed_paths = ?", [sorted({*readable, *writable})])
        con.execute(
            "SET allowed_directories = ?", [[os.path.join(temp_dir, "")] if temp_dir else []]
        )
        con.execute("SET enable_external_access = false")
        if profile:
            with contextlib.suppress(duckdb.CatalogException):  # before 2.0: every metric
                con.execute("SET tracked_metrics = ?", [PROFILED])
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


def connect_job(args, readable, **options):
    """:func:`connect` bounded as an isolated job's ``args`` say: ``memory_limit``,
    ``threads`` and ``temp_dir``."""
    return connect(
        readable,
        memory_limit=args["memory_limit"],
        threads=args.get("threads"),
        temp_dir=args.get("temp_dir"),
        **options,
    )


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
    fmt, source, params = table_of(path, max_line_size)
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


def rows_scanned(con, path, fmt):
    """How many rows the last query read from the file ``path`` (DuckDB's profile); for
    Parquet, whose scan skips what a filter rules out, the file's row count."""
    if fmt == "parquet":
        row = con.execute("SELECT sum(num_rows) FROM parquet_file_metadata(?)", [path]).fetchone()
        return int(row[0] or 0)
    try:
        profile = json.loads(con.get_profiling_information(format="json"))
    except Exception:  # noqa: BLE001  (no profile: the count is unknown, not an error)
        return None
    counts = []
    for node in json_nodes(profile):  # the plan's operators, among other objects
        info = node.get("extra_info") or {}
        files = info.get("Filename(s)") or info.get("File Filters") or ""
        if node.get(NODE_KIND) == "TABLE_SCAN" and path in str(files):
            counts.append(int(node.get("rows_scanned") or node.get("operator_cardinality") or 0))
    return max(counts) if counts else 0  # no scan: the optimizer read nothing (limit 0)
