"""The values of a dataset's columns, as read in an isolated process (datahub.platform.isolation)
for the search index (datahub.search.values): the first rows of the file, and per column
its most frequent values and, for text, further distinct short values; all of it bounded.

It knows no database and no storage: it is given a local path and answers
``{"columns": [{"name", "type", "values": [...]}], "unreadable": None or why}``. A file
that is not a table answers no columns (and why), not an error.
"""

import duckdb

from datahub.datasets import tabular
from datahub.platform.isolation import JobError

SCAN_ROWS = 10_000  # rows read from the start of the file, at most
SCAN_CELLS = 1_000_000  # rows × columns read at most (a wide file reads fewer rows)
MIN_ROWS = 100  # however wide the file
VALUE_COLUMNS = 500  # columns whose values are read; the others have their name only
TOP_VALUES = 20  # a column's most frequent values (cut to VALUE_CHARS)
TEXT_VALUES = 200  # a text column's further distinct values of at most VALUE_CHARS
VALUE_CHARS = 100
MAX_VALUE_BYTES = 64 * 1024  # the values' UTF-8 bytes (one more each) in all
UNREAD_TYPES = ("BLOB",)  # columns whose values say nothing a search could match


def column_values_job(args):
    """``args``: ``path``, ``name``, ``memory_limit``, ``threads``, ``temp_dir``,
    ``max_line_size``, ``max_columns``."""
    try:
        columns = read_columns(args)
    except tabular.NotTabular as exc:
        return {"columns": [], "unreadable": str(exc)}
    except FileNotFoundError:  # replaced or deleted since it was looked up
        raise JobError("missing") from None
    return {"columns": columns, "unreadable": None}


def read_columns(args):
    path = args["path"]
    _, source, params = tabular.table_of(path, int(args["max_line_size"]), int(args["max_columns"]))
    con = tabular.connect_job(args, [path])
    try:
        described = tabular.describe(con, f"SELECT * FROM {source}", params)
        if len(described) > int(args["max_columns"]):  # Parquet, JSON: a CSV's header says
            raise tabular.NotTabular(
                f"the file has {len(described)} columns; at most {args['max_columns']} "
                "are read (PIPELINE_MAX_COLUMNS)"
            )
        read = [
            (index, kind)
            for index, (_, kind) in enumerate(described[:VALUE_COLUMNS])
            if kind not in UNREAD_TYPES
        ]
        found = scan(con, source, params, described, read) if read else {}
    except (duckdb.InterruptException, duckdb.OutOfMemoryException):
        raise  # out of memory: the process reports it, the file is not unreadable
    except duckdb.Error as exc:  # whatever the reader raises (tabular.unreadable)
        raise tabular.NotTabular(
            tabular.clean_error(exc, {path: args.get("name", "the file")})
        ) from None
    finally:
        con.close()
    values = bounded([found.get(index, []) for index in range(len(described))], MAX_VALUE_BYTES)
    return [
        {"name": name, "type": kind, "values": kept}
        for (name, kind), kept in zip(described, values, strict=True)
    ]


def scan(con, source, params, described, read):
    """{column index: values} of the columns ``read`` ([(index, type)] of ``described``):
    the first rows copied once into a table of text cut to one character past
    VALUE_CHARS, then a query or two per column."""
    rows = min(SCAN_ROWS, max(MIN_ROWS, SCAN_CELLS // len(read)))
    cells = ", ".join(
        f"left(CAST({tabular.quote(described[index][0])} AS VARCHAR), {VALUE_CHARS + 1}) "
        f"AS c{index}"
        for index, _ in read
    )
    con.execute(
        f"CREATE TEMP TABLE scanned AS SELECT {cells} FROM {source} LIMIT ?", [*params, rows]
    )
    found = {}
    for index, kind in read:
        cell = f"c{index}"
        top = [
            value[:VALUE_CHARS]
            for (value,) in con.execute(
                f"SELECT {cell} FROM scanned WHERE {cell} IS NOT NULL GROUP BY {cell} "
                f"ORDER BY count(*) DESC, min(rowid) LIMIT {TOP_VALUES}"
            ).fetchall()
        ]
        more = []
        if kind == "VARCHAR":
            more = [
                value
                for (value,) in con.execute(
                    f"SELECT {cell} FROM scanned WHERE length({cell}) <= {VALUE_CHARS} "
                    f"GROUP BY {cell} ORDER BY count(*) DESC, min(rowid) "
                    f"LIMIT {TOP_VALUES + TEXT_VALUES}"
                ).fetchall()
            ]
        found[index] = list(dict.fromkeys(top + more))[: TOP_VALUES + TEXT_VALUES]
    return found


def size(value):
    return len(value.encode("utf-8")) + 1  # and the newline that joins it to the next


def bounded(columns, budget):
    """``columns`` (lists of values) cut to ``budget`` bytes in all, fairly: each column
    keeps its first values up to an equal share of what is left, the columns with
    fewer bytes than their share leaving the rest to the others."""
    kept = [[] for _ in columns]
    order = sorted(range(len(columns)), key=lambda i: sum(size(v) for v in columns[i]))
    left = budget
    for position, index in enumerate(order):
        share = left // (len(order) - position)
        used = 0
        for value in columns[index]:
            if used + size(value) > share:
                break
            kept[index].append(value)
            used += size(value)
        left -= used
    return kept
