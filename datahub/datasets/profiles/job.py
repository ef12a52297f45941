"""A version's schema and profile, as computed in an isolated process
(datahub.platform.isolation) by a pipeline worker (datahub.datasets.profiles.profiler).

It knows no database and no storage: it is given a local path and answers
``{"schema": {"columns", "rows"}, "profile": {"rows", "partial", "columns"}}``, or
``{"unreadable": why}`` for a file that is not a table. The file is parsed once, into a
temporary table (spilled to ``temp_dir`` past the memory limit); the statistics are then
one aggregate over it, and a query per histogram and per label column.

Quartiles are exact up to ``SAMPLE_ROWS`` rows; past that (or when the memory limit is
too small to hold that many values per column) they come from a fixed pseudo-random
sample of the rows (``partial``). Every other statistic is exact, but ``distinct``
(HyperLogLog). Histograms count the finite values (not NaN, infinities).
"""

import datetime
import math

import duckdb

from datahub.datasets import tabular
from datahub.platform.isolation import JobError, parse_size

TYPE = "type"  # a column's (and a check's) key: its kind
BINS = 20
TOP_VALUES = 10
VALUE_CHARS = 200  # text values (min, max, top values) are cut to this
SAMPLE_ROWS = 1_000_000  # quartiles past this many rows come from a sample (``partial``)
QUANTILE_MEMORY_SHARE = 0.5  # of the memory limit, for the values quartiles are taken of
QUANTILE_VALUE_BYTES = 32  # what DuckDB holds per value (measured: ~24, two threads)
LABEL_INTEGERS = 20  # an integer column with at most this many values is a label
INTEGERS = {
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
    "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT",
}  # fmt: skip
FLOATS = {"FLOAT", "DOUBLE", "REAL"}
TIMES = {"DATE", "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS",
         "TIMESTAMP WITH TIME ZONE"}  # fmt: skip
DAY = 86400.0


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
        _, source, params = tabular.table_of(
            path, int(args["max_line_size"]), int(args["max_columns"])
        )
        con = tabular.connect_job(args, [path])
    except tabular.NotTabular as exc:
        return {"unreadable": str(exc)}
    except FileNotFoundError:  # replaced or deleted since it was looked up
        raise JobError("missing") from None
    budget = int(parse_size(args["memory_limit"]) * QUANTILE_MEMORY_SHARE)
    try:
        return profile(con, source, params, int(args["max_columns"]), budget)
    except tabular.NotTabular as exc:
        return {"unreadable": str(exc)}
    except (duckdb.InterruptException, duckdb.OutOfMemoryException):
        raise  # the process reports them: the file is not unreadable
    except duckdb.Error as exc:  # whatever the reader raises (tabular.unreadable)
        return {"unreadable": tabular.clean_error(exc, {path: args.get("name", "the file")})}
    finally:
        con.close()


def profile(con, source, params, max_columns, quantile_budget):
    """The schema and profile of ``source``; quartiles' values held in at most
    ``quantile_budget`` bytes at a time."""
    described = tabular.describe(con, f"SELECT * FROM {source}", params)
    if len(described) > max_columns:  # Parquet, JSON: a CSV's header said so before
        raise tabular.NotTabular(
            f"the file has {len(described)} columns; at most {max_columns} are read "
            "(PIPELINE_MAX_COLUMNS)"
        )
    con.execute(f"CREATE TEMP TABLE t AS SELECT * FROM {source}", params)
    rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
    sample = min(rows, SAMPLE_ROWS, max(1, quantile_budget // QUANTILE_VALUE_BYTES))
    numeric = [name for name, kind in described if kind_of(kind) in ("integer", "number")]
    per_pass = max(1, quantile_budget // (max(sample, 1) * QUANTILE_VALUE_BYTES))
    batches = [numeric[i : i + per_pass] for i in range(0, len(numeric), per_pass)]
    found = _aggregates(con, described, batches[0] if batches else [], rows, sample)
    for batch in batches[1:]:
        for name, quantiles in _quantiles(con, batch, rows, sample).items():
            found[name]["quantiles"] = quantiles
    columns = []
    for name, kind in described:
        column = _column(name, kind, found[name], rows)
        column_kind = kind_of(kind)
        if column_kind in ("integer", "number", "time"):
            column["histogram"] = _histogram(con, name, column_kind, column, found[name])
        if column_kind in ("text", "boolean") or (
            column_kind == "integer" and (column["distinct"] or 0) <= LABEL_INTEGERS
        ):
            column["top_values"] = _top_values(con, name) if column["count"] else []
        columns.append(column)
    schema = {
        "columns": [
            {"name": c["name"], "type": c[TYPE], "nullable": c["nulls"] > 0} for c in columns
        ],
        "rows": rows,
    }
    partial = sample < rows and bool(numeric)
    return {"schema": schema, "profile": {"rows": rows, "partial": partial, "columns": columns}}


def _sampled(rows, sample):
    """The filter that keeps about ``sample`` of ``rows`` rows, the same ones every time."""
    if sample >= rows:
        return ""
    return f" FILTER (WHERE hash(rowid) % {int(rows)} < {int(sample)})"


def _quantile_sql(column, rows, sample):
    # Of doubles: a decimal's would be interpolated in its own scale (0.4375 → 0.43).
    return f"quantile_cont({column}::DOUBLE, [0.25, 0.5, 0.75]){_sampled(rows, sample)}"


def _aggregates(con, described, quantiled, rows, sample):
    """``{name: {statistic: value}}`` from one aggregate over ``t``; quartiles for the
    columns ``quantiled`` only."""
    selects, keys = [], []
    for name, kind in described:
        column, column_kind = tabular.quote(name), kind_of(kind)
        wanted = {"count": f"count({column})", "distinct": f"approx_count_distinct({column})"}
        if column_kind in ("integer", "number", "time", "text"):
            wanted.update(min=f"min({column})", max=f"max({column})")
        if column_kind in ("number", "time"):  # the histogram's range: finite values
            value, finite = _finite(column, column_kind)
            wanted.update(low=f"min({value}){finite}", high=f"max({value}){finite}")
        if column_kind in ("integer", "number"):
            wanted.update(mean=f"avg({column})::DOUBLE", stddev=f"stddev_samp({column})::DOUBLE")
            if name in quantiled:
                wanted["quantiles"] = _quantile_sql(column, rows, sample)
        if column_kind == "text":
            length = f"length({column})"
            wanted.update(
                length_min=f"min({length})",
                length_max=f"max({length})",
                length_mean=f"avg({length})",
            )
        selects += wanted.values()
        keys += [(name, key) for key in wanted]
    row = con.execute(f"SELECT {', '.join(selects)} FROM t").fetchone()
    found = {name: {} for name, _ in described}
    for (name, key), value in zip(keys, row, strict=True):
        found[name][key] = value
    return found


def _finite(column, column_kind):
    """``(expression, filter)``: the column as a number of which the filter keeps the
    finite ones (``epoch`` is null for infinite dates and times)."""
    if column_kind == "time":
        return f"epoch({column})", ""
    return f"{column}::DOUBLE", f" FILTER (WHERE isfinite({column}::DOUBLE))"


def _quantiles(con, names, rows, sample):
    """``{name: [p25, p50, p75]}`` of the columns ``names``, in one pass."""
    selects = [_quantile_sql(tabular.quote(name), rows, sample) for name in names]
    row = con.execute(f"SELECT {', '.join(selects)} FROM t").fetchone()
    return dict(zip(names, row, strict=True))


def _column(name, kind, stats, rows):
    quantiles = stats.get("quantiles")
    count = int(stats["count"])
    return {
        "name": name,
        "type": kind,
        "count": count,
        "nulls": rows - count,
        "null_fraction": (rows - count) / rows if rows else 0.0,
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
            {
                "min": stats["length_min"],
                "max": stats["length_max"],
                "mean": _value(stats["length_mean"]),
            }
            if stats.get("length_min") is not None
            else None
        ),
    }


def _value(value):
    if isinstance(value, str):
        return value[:VALUE_CHARS]
    return tabular.json_value(value)


def _histogram(con, name, column_kind, column, stats):
    """At most BINS bins of equal width between the column's finite min and max (integers
    and dates: no narrower than one, a day; times: over their epoch); None without values."""
    column_sql = tabular.quote(name)
    if column_kind == "integer":
        value, where, step = f"{column_sql}::DOUBLE", f"{column_sql} IS NOT NULL", 1.0
        low, high = stats["min"], stats["max"]
    else:
        value, _ = _finite(column_sql, column_kind)
        where = f"isfinite({value})"  # not null either
        step = DAY if column[TYPE] == "DATE" else None
        low, high = stats["low"], stats["high"]
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
    try:
        edges = [_edge(low + width * i, column) for i in range(bins)] + [_edge(high, column)]
    except (OverflowError, ValueError, OSError):  # a date Python cannot hold
        return None
    counts = dict(
        con.execute(
            f"SELECT least(floor(({value} - ?) / ?)::BIGINT, ?) AS bin, count(*) FROM t "
            f"WHERE {where} GROUP BY bin",
            [low, width, bins - 1],
        ).fetchall()
    )
    return [
        {"from": edges[i], "to": edges[i + 1], "count": int(counts.get(i, 0))} for i in range(bins)
    ]


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
