"""A console query, as executed in an isolated process (datahub.platform.isolation): the
caller's SELECT over the datasets' files, each file a WITH table named as the query names
it, on the sql step's sandboxed connection. Answers the first rows as JSON (at most
``limit`` rows and ``max_bytes`` of JSON), or writes the whole result to ``output`` in
``format``. A problem with the query or the data is a ``JobError`` of kind ``query`` with
DuckDB's words (file paths replaced by the datasets' names). It knows no database and no
storage: datahub.query.services resolved the names and prepared the files."""

import json

import duckdb

from datahub.datasets import tabular
from datahub.datasets.sql_check import statement_text
from datahub.pipelines.engine import COPY_OPTIONS
from datahub.platform.isolation import JobError


def query_job(args):
    names = args["names"]  # file path → what a user calls it
    try:
        con, sql, params = _prepared(args)
    except tabular.NotTabular as exc:
        raise JobError("query", str(exc)) from None
    except FileNotFoundError:  # deleted by retention since it was looked up
        raise JobError("missing") from None
    try:
        if args.get("output"):
            return _export(con, sql, params, args["output"], args["format"])
        return _rows(con, sql, params, int(args["limit"]), int(args["max_bytes"]))
    except duckdb.Error as exc:
        if isinstance(exc, duckdb.OutOfMemoryException):
            raise JobError("memory") from None
        raise JobError("query", f"Query failed: {tabular.clean_error(exc, names)}") from None
    finally:
        con.close()


def _prepared(args):
    """``(connection, sql, params)``: the query with a WITH table per dataset it reads."""
    max_line, max_columns = int(args["max_line_size"]), int(args["max_columns"])
    tables, params = [], []
    for name, path in args["tables"].items():
        try:
            _, source, source_params = tabular.table_of(path, max_line, max_columns)
        except tabular.NotTabular as exc:
            raise tabular.NotTabular(
                f"Dataset {args['names'][path]} cannot be read as a table: {exc}"
            ) from None
        tables.append(f"{tabular.quote(name)} AS (SELECT * FROM {source})")
        params += source_params
    for name in args.get("unbound", ()):
        # Every table the query names is one of these WITH tables, never a file DuckDB
        # would look for: a name that is only the query's own WITH name, used outside its
        # scope, fails as DuckDB says of a table that does not exist.
        tables.append(f"{tabular.quote(name)} AS (SELECT error(?) AS missing)")
        params.append(f"Table with name {name} does not exist!")
    sql = f"SELECT * FROM (\n{statement_text(args['sql'])}\n)"
    if tables:
        sql = f"WITH {', '.join(tables)} {sql}"
    output = [args["output"]] if args.get("output") else []
    con = tabular.connect(
        list(args["tables"].values()),
        output,
        memory_limit=args["memory_limit"],
        threads=args.get("threads"),
        temp_dir=args.get("spill"),
    )
    return con, sql, params


def _rows(con, sql, params, limit, max_bytes):
    """The first ``limit`` rows, as many as fit in ``max_bytes`` of JSON; ``truncated``
    when there were more."""
    cursor = con.execute(f"SELECT * FROM ({sql}) LIMIT {limit + 1}", params)
    columns = [{"name": name, "type": str(kind)} for name, kind, *_ in cursor.description]
    size = len(json.dumps(columns)) + 200
    rows, truncated = [], False
    while True:
        row = cursor.fetchone()
        if row is None:
            break
        if len(rows) == limit:
            truncated = True
            break
        values = [tabular.json_value(value) for value in row]
        size += len(json.dumps(values, allow_nan=False).encode("utf-8")) + 1
        if size > max_bytes:
            if not rows:
                raise JobError("too_large")
            truncated = True
            break
        rows.append(values)
    return {"columns": columns, "rows": rows, "truncated": truncated}


def _export(con, sql, params, output, fmt):
    copy = f"COPY ({sql}) TO {tabular.literal(output)} ({COPY_OPTIONS[fmt]})"
    row = con.execute(copy, params).fetchone()
    return {"rows": int(row[0]) if row else 0}
