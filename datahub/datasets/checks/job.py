"""A version's checks, as run in an isolated process (datahub.platform.isolation) by a worker
(datahub.datasets.checks.auditor) or by the run that made the version.

It knows no database and no storage: it is given the version's local ``path``, the
``checks`` and, for ``row_count_change``, the rows of the previous published version; it
answers ``{"rows", "results": [{"name", "type", "severity", "status", "failing_rows",
"message", "sample"}]}``. A text file is parsed once into a temporary table (Parquet is
read where it is); each check is a query over it. A check that cannot be run (a missing column, a query that does not bind)
is ``error``; a file that is not a table fails every check with ``error``.
"""

import datetime

import duckdb

from datahub.datasets import tabular
from datahub.datasets.checks.schemas import DURATION
from datahub.platform.isolation import JobError

TYPE = "type"  # a column's (and a check's) key: its kind
SAMPLE = 10


class CheckProblem(Exception):
    """The check cannot be run on this version: the message says why."""


def checks_job(args):
    """``args``: ``path``, ``name``, ``checks``, ``previous_rows`` (or None), ``now`` (ISO
    8601), ``memory_limit``, ``threads``, ``temp_dir``, ``max_line_size``, ``max_columns``."""
    path = args["path"]
    try:
        fmt, source, params = tabular.table_of(
            path, int(args["max_line_size"]), int(args["max_columns"])
        )
        previous = args.get("previous_path")
        con = tabular.connect_job(args, [path, *([previous] if previous else [])])
    except tabular.NotTabular as exc:
        return _unreadable(args["checks"], str(exc))
    except FileNotFoundError:
        raise JobError("missing") from None
    try:
        # A text file is parsed once, into a table; Parquet is read where it is, each
        # check reading only its columns.
        try:
            if fmt == "parquet":  # a view takes no parameter: the path as a literal
                parquet = f"read_parquet({tabular.literal(path)})"
                con.execute(f"CREATE TEMP VIEW t AS SELECT * FROM {parquet}")
            else:
                con.execute(f"CREATE TEMP TABLE t AS SELECT * FROM {source}", params)
        except (duckdb.InterruptException, duckdb.OutOfMemoryException):
            raise
        except duckdb.Error as exc:
            return _unreadable(args["checks"], tabular.clean_error(exc, {path: args["name"]}))
        rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
        if previous:
            args["previous_rows"] = _count(con, previous, args)
        columns = dict(tabular.describe(con, "SELECT * FROM t", []))
        context = {"rows": rows, "columns": columns, "args": args}
        return {"rows": rows, "results": [_run(con, check, context) for check in args["checks"]]}
    finally:
        con.close()


def _count(con, path, args):
    """The rows of the previous version's file (None if it cannot be read)."""
    try:
        _, source, params = tabular.table_of(
            path, int(args["max_line_size"]), int(args["max_columns"])
        )
        return con.execute(f"SELECT count(*) FROM {source}", params).fetchone()[0]
    except (duckdb.InterruptException, duckdb.OutOfMemoryException):
        raise
    except (tabular.NotTabular, duckdb.Error):
        return None


def _unreadable(checks, why):
    return {
        "rows": None,
        "results": [
            _result(check, "error", None, f"The file cannot be read as a table: {why}")
            for check in checks
        ],
    }


def _result(check, status, failing_rows, message, sample=()):
    if status == "failed" and check.get("severity", "error") == "warn":
        status = "warned"
    return {
        "name": check["name"],
        "type": check[TYPE],
        "severity": check.get("severity", "error"),
        "status": status,
        "failing_rows": failing_rows,
        "message": message,
        "sample": [[tabular.json_value(value) for value in row] for row in sample],
    }


def _run(con, check, context):
    try:
        return RUNNERS[check[TYPE]](con, check, context)
    except CheckProblem as exc:
        return _result(check, "error", None, str(exc))
    except (duckdb.InterruptException, duckdb.OutOfMemoryException):
        raise
    except duckdb.Error as exc:
        return _result(check, "error", None, tabular.clean_error(exc, {}))


def _column(check, context, key="column"):
    name = check[key]
    if name not in context["columns"]:
        raise CheckProblem(f"Column not found: {name}")
    return tabular.quote(name)


def _failing(con, check, where, params=()):
    """The rows of ``t`` that match ``where``: the check's result."""
    count = con.execute(f"SELECT count(*) FROM t WHERE {where}", list(params)).fetchone()[0]
    if not count:
        return _result(check, "passed", 0, "Every row passes")
    sample = con.execute(f"SELECT * FROM t WHERE {where} LIMIT {SAMPLE}", list(params)).fetchall()
    return _result(check, "failed", count, f"{count:,} row(s) fail", sample)


def _not_null(con, check, context):
    return _failing(con, check, f"{_column(check, context)} IS NULL")


def _unique(con, check, context):
    columns = ", ".join(_column({"c": name}, context, "c") for name in check["columns"])
    repeated = f"SELECT {columns}, count(*) AS n FROM t GROUP BY ALL HAVING count(*) > 1"
    count = con.execute(f"SELECT coalesce(sum(n), 0) FROM ({repeated})").fetchone()[0]
    if not count:
        return _result(check, "passed", 0, "No two rows share a key")
    keys = con.execute(f"{repeated} ORDER BY n DESC LIMIT {SAMPLE}").fetchall()
    return _result(check, "failed", int(count), f"{int(count):,} row(s) share a key", keys)


def _accepted_values(con, check, context):
    column = _column(check, context)
    values = [_as_text(value) for value in check["values"]]
    marks = ", ".join("?" for _ in values)
    return _failing(
        con, check, f"{column} IS NOT NULL AND {column}::VARCHAR NOT IN ({marks})", values
    )


def _as_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _range(con, check, context):
    column = _column(check, context)
    kind = context["columns"][check["column"]]
    tests, params = [], []
    for key, operator in (("min", "<"), ("max", ">")):
        if check.get(key) is not None:
            tests.append(f"{column} {operator} CAST(? AS {kind})")
            params.append(check[key])
    return _failing(con, check, f"{column} IS NOT NULL AND ({' OR '.join(tests)})", params)


def _regex(con, check, context):
    column = _column(check, context)
    return _failing(
        con,
        check,
        f"{column} IS NOT NULL AND NOT regexp_full_match({column}::VARCHAR, ?)",
        [check["pattern"]],
    )


def _row_count(con, check, context):
    rows = context["rows"]
    low, high = check.get("min"), check.get("max")
    if (low is not None and rows < low) or (high is not None and rows > high):
        wanted = " and ".join(
            text
            for text in (
                f"at least {low:,}" if low is not None else "",
                f"at most {high:,}" if high is not None else "",
            )
            if text
        )
        return _result(check, "failed", None, f"{rows:,} rows; {wanted} expected")
    return _result(check, "passed", None, f"{rows:,} rows")


def _row_count_change(con, check, context):
    rows, before = context["rows"], context["args"].get("previous_rows")
    if before is None:
        return _result(check, "passed", None, "No previous published version to compare with")
    change = (rows - before) / before if before else (0.0 if rows == 0 else float("inf"))
    drop, growth = check.get("max_drop_fraction"), check.get("max_growth_fraction")
    said = f"{before:,} → {rows:,} rows"
    if drop is not None and change < -drop:
        return _result(check, "failed", None, f"{said}: fell by {-change:.1%}, at most {drop:.1%}")
    if growth is not None and change > growth:
        return _result(check, "failed", None, f"{said}: grew by more than {growth:.1%}")
    return _result(check, "passed", None, said)


def _schema(con, check, context):
    problems = []
    for wanted in check["columns"]:
        found = context["columns"].get(wanted["name"])
        if found is None:
            problems.append(f"missing column {wanted['name']}")
        elif wanted.get(TYPE) and found.upper() != wanted[TYPE].upper():
            problems.append(f"{wanted['name']} is {found}, not {wanted[TYPE]}")
    if problems:
        return _result(check, "failed", None, "; ".join(problems))
    return _result(check, "passed", None, "Every column is there")


def max_age_seconds(text):
    weeks, days, hours, minutes, seconds = (
        int(part or 0) for part in DURATION.fullmatch(text).groups()
    )
    return (((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds


def _freshness(con, check, context):
    column = _column(check, context)
    kind = context["columns"][check["column"]]
    if not (kind == "DATE" or kind.startswith("TIMESTAMP")):
        raise CheckProblem(f"Column {check['column']} is {kind}, not a date or time")
    newest = con.execute(f"SELECT max(epoch({column})) FROM t").fetchone()[0]
    now = datetime.datetime.fromisoformat(context["args"]["now"]).timestamp()
    oldest_allowed = now - max_age_seconds(check["max_age"])
    if newest is None:
        return _result(check, "failed", None, "The column has no value")
    newest_text = datetime.datetime.fromtimestamp(newest, datetime.timezone.utc).isoformat()
    if newest < oldest_allowed:
        return _result(
            check,
            "failed",
            None,
            f"The newest value is {newest_text}: older than {check['max_age']}",
        )
    return _result(check, "passed", None, f"The newest value is {newest_text}")


def _sql(con, check, context):
    text = check["query"].rstrip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    query = f'WITH "input" AS (SELECT * FROM t) SELECT * FROM (\n{text}\n)'
    count = con.execute(f"SELECT count(*) FROM ({query})").fetchone()[0]
    if not count:
        return _result(check, "passed", 0, "The query found no row")
    sample = con.execute(f"SELECT * FROM ({query}) LIMIT {SAMPLE}").fetchall()
    return _result(check, "failed", count, f"The query found {count:,} row(s)", sample)


RUNNERS = {
    "not_null": _not_null,
    "unique": _unique,
    "accepted_values": _accepted_values,
    "range": _range,
    "regex": _regex,
    "row_count": _row_count,
    "row_count_change": _row_count_change,
    "schema": _schema,
    "freshness": _freshness,
    "sql": _sql,
}
