"""A version's schema and profile, as computed in an isolated process
(datahub.platform.isolation) by a pipeline worker (datahub.datasets.profiles.profiler).

It knows no database and no storage: it is given a local path and answers
``{"schema": {"columns", "rows"}, "profile": {"rows", "partial", "columns"}}``, or
``{"unreadable": why}`` for a file that is not a table. The file is parsed once, into a
temporary table (spilled to ``temp_dir`` past the memory limit); the statistics are then
one aggregate over it, and a query per histogram and per label column.
"""

import datetime
import math

import duckdb

from datahub.datasets import tabular
from datahub.platform.isolation import JobError

TYPE = "type"  # a column's (and a check's) key: its kind
BINS = 20
TOP_VALUES = 10
VALUE_CHARS = 200  # text values (min, max, top values) are cut to this
EXACT_QUANTILE_ROWS = 1_000_000  # past this, quartiles are estimates (``partial``)
LABEL_INTEGERS = 20  # an integer column with at most this many values is a label
INTEGERS = {
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
    "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT",
}  # fmt: skip
FLOATS = {"FLOAT", "DOUBLE", "REAL"}
TIMES = {"DATE", "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS",
         "TIMESTAMP WITH TIME ZONE"}  # fmt: skip


def kind_of(duckdb_type):
    """``integer``, ``number``, ``time``, ``text``, ``boolean`` or ``other``."""
    if duckdb_type in INTEGERS:
        return "integer"
    if duckdb_type in FLOATS or duckdb_type.startswith("DECIMAL"):
        return "number"
    if duckdb_type in TIMES:
        return "time"
    if duckdb_type == "VARCHAR":
        return "text"
    if duckdb_type == "BOOLEAN":
        return "boolean"
    return "other"


def profile_job(args):
    """``args``: ``path``, ``name``, ``memory_limit``, ``threads``, ``temp_dir``,
    ``max_line_size``, ``max_columns``."""
    path = args["path"]
    try:
        fmt = tabular.detect_format(path)
        source, params = tabular.source_sql(
            path, fmt, int(args["max_line_size"]), int(args["max_columns"])
        )
        con = tabular.connect(
            [path],
            memory_limit=args["memory_limit"],
            threads=args.get("threads"),
            temp_dir=args.get("temp_dir"),
        )
    except tabular.NotTabular as exc:
        return {"unreadable": str(exc)}
    except FileNotFoundError:
        raise JobError("missing") from None
    try:
        return profile(con, source, params, int(args["max_columns"]))
    except tabular.NotTabular as exc:
        return {"unreadable": str(exc)}
    except (duckdb.InterruptException, duckdb.OutOfMemoryException):
        raise  # the process reports them: the file is not unreadable
    except duckdb.Error as exc:
        return {"unreadable": tabular.clean_error(exc, {path: args.get("name", "the file")})}
    finally:
        con.close()


def profile(con, source, params, max_columns):
    described = tabular.describe(con, f"SELECT * FROM {source}", params)
    if len(described) > max_columns:  # Parquet, JSON: a CSV's header said so before
        raise tabular.NotTabular(
            f"the file has {len(described)} columns; at most {max_columns} are read "
            "(PIPELINE_MAX_COLUMNS)"
        )
    con.execute(f"CREATE TEMP TABLE t AS SELECT * FROM {source}", params)
    rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
    exact = rows <= EXACT_QUANTILE_ROWS
    columns = [
        _column(name, kind, stats)
        for (name, kind), stats in zip(described, _aggregates(con, described, exact), strict=True)
    ]
    for column, (name, kind) in zip(columns, described, strict=True):
        column_kind = kind_of(kind)
        if column_kind in ("integer", "number", "time") and column["count"]:
            column["histogram"] = _histogram(con, name, column_kind, column)
        if column_kind in ("text", "boolean") or (
            column_kind == "integer" and (column["distinct"] or 0) <= LABEL_INTEGERS
        ):
            column["top_values"] = _top_values(con, name)
        column["nulls"] = rows - column["count"]
        column["null_fraction"] = column["nulls"] / rows if rows else 0.0
    schema = {
        "columns": [
            {"name": c["name"], "type": c[TYPE], "nullable": c["nulls"] > 0} for c in columns
        ],
        "rows": rows,
    }
    return {"schema": schema, "profile": {"rows": rows, "partial": not exact, "columns": columns}}


def _aggregates(con, described, exact):
    """Per column, its statistics from one aggregate over ``t``."""
    selects, shapes = [], []
    for name, kind in described:
        column, column_kind = tabular.quote(name), kind_of(kind)
        wanted = ["count", "distinct"]
        parts = [f"count({column})", f"approx_count_distinct({column})"]
        if column_kind in ("integer", "number", "time", "text"):
            wanted += ["min", "max"]
            if column_kind == "text":
                parts += [
                    f"min(left({column}, {VALUE_CHARS}))",
                    f"max(left({column}, {VALUE_CHARS}))",
                ]
            else:
                parts += [f"min({column})", f"max({column})"]
        if column_kind in ("integer", "number"):
            wanted += ["mean", "stddev", "quantiles"]
            quantile = "quantile_cont" if exact else "approx_quantile"
            parts += [
                f"avg({column})::DOUBLE",
                f"stddev_samp({column})::DOUBLE",
                f"{quantile}({column}, [0.25, 0.5, 0.75])::DOUBLE[]",
            ]
        if column_kind == "text":
            wanted += ["length"]
            parts += [f"min(length({column}))", f"max(length({column}))", f"avg(length({column}))"]
        selects += parts
        shapes.append(wanted)
    row = con.execute(f"SELECT {', '.join(selects)} FROM t").fetchone() if selects else ()
    position, found = 0, []
    for wanted in shapes:
        stats = {}
        for key in wanted:
            if key == "length":
                stats[key] = row[position : position + 3]
                position += 3
            else:
                stats[key] = row[position]
                position += 1
        found.append(stats)
    return found


def _column(name, kind, stats):
    quantiles = stats.get("quantiles")
    length = stats.get("length")
    return {
        "name": name,
        "type": kind,
        "count": int(stats["count"]),
        "nulls": 0,
        "null_fraction": 0.0,
        "distinct": int(stats["distinct"]) if stats["distinct"] is not None else None,
        "min": _value(stats.get("min")),
        "max": _value(stats.get("max")),
        "mean": _value(stats.get("mean")),
        "stddev": _value(stats.get("stddev")),
        "quantiles": (
            dict(zip(("p25", "p50", "p75"), (_value(q) for q in quantiles), strict=True))
            if quantiles is not None
            else None
        ),
        "histogram": None,
        "top_values": None,
        "length": (
            {"min": length[0], "max": length[1], "mean": _value(length[2])}
            if length is not None and length[0] is not None
            else None
        ),
    }


def _value(value):
    if isinstance(value, str):
        return value[:VALUE_CHARS]
    return tabular.json_value(value)


def _histogram(con, name, column_kind, column):
    """At most BINS bins of equal width between the column's min and max (integers and
    dates: no narrower than one, a day; times: over their epoch)."""
    column_sql = tabular.quote(name)
    step = 1.0 if column_kind == "integer" else None
    if column_kind == "time":
        value = f"epoch({column_sql})"
        low, high = con.execute(f"SELECT min({value}), max({value}) FROM t").fetchone()
        step = DAY if column[TYPE] == "DATE" else None
    else:
        value = f"{column_sql}::DOUBLE"
        low, high = column["min"], column["max"]
    if low is None:
        return None
    low, high = float(low), float(high)
    if step is not None:  # whole steps, the last one holding the largest value
        width = math.ceil((high - low + step) / BINS / step) * step
        bins = math.ceil((high - low + step) / width)
        high = low + bins * width
    else:
        bins = BINS if high > low else 1
        width = (high - low) / bins or 1.0
    counts = dict(
        con.execute(
            f"SELECT least(floor(({value} - ?) / ?)::BIGINT, ?) AS bin, count(*) FROM t "
            f"WHERE {column_sql} IS NOT NULL GROUP BY bin",
            [low, width, bins - 1],
        ).fetchall()
    )
    edges = [low + width * i for i in range(bins)] + [high]
    return [
        {
            "from": _edge(edges[i], column),
            "to": _edge(edges[i + 1], column),
            "count": int(counts.get(i, 0)),
        }
        for i in range(bins)
    ]


DAY = 86400.0


def _edge(value, column):
    """A bin's edge as the column's values are: a date, a time, an integer or a number."""
    if column[TYPE] == "DATE":
        moment = datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
        return moment.date().isoformat() if value % DAY == 0 else moment.isoformat()
    if kind_of(column[TYPE]) == "time":
        return datetime.datetime.fromtimestamp(value, datetime.timezone.utc).isoformat()
    if kind_of(column[TYPE]) == "integer" and float(value).is_integer():
        return int(value)
    return float(f"{value:.12g}")  # 5.95, not 5.949999999999999


def _top_values(con, name):
    column = tabular.quote(name)
    rows = con.execute(
        f"SELECT {column}, count(*) AS n FROM t WHERE {column} IS NOT NULL "
        f"GROUP BY {column} ORDER BY n DESC, {column} LIMIT {TOP_VALUES}"
    ).fetchall()
    return [{"value": _value(value), "count": int(count)} for value, count in rows]
