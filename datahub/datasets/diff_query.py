"""The diff of two tabular files, as executed in an isolated process
(datahub.platform.isolation; docs/guides/versions.rst, "Diffs").

Both files are read with DuckDB in one sandboxed connection. The schema part compares the
columns by name: added, removed, and those whose type changed. Rows are compared on the
columns both files have (``columns``; one whose type changed is compared as text):

* with a key, rows are matched by the key columns in one full outer join: a row only in
  ``to`` is added, only in ``from`` removed, in both with another value in some compared
  column changed, else unchanged. A key value that occurs in both files and more than once
  in one is an error (its rows cannot be matched); one that occurs only in one file, even
  twice, is simply added or removed rows.
* without, the files are compared as multisets of rows: a row that occurs more often in
  ``to`` is added (as often as it occurs more), more often in ``from`` removed; nothing is
  changed.

Each file is read once, streaming into the join. Counts and samples come from one
aggregate over the join, and whether matched keys are unique from comparing its counts
with the rows DuckDB's profile says each scan read: ``arg_min(row, key, 20)`` keeps
the 20 samples of each kind with the smallest keys, so the samples are the same every time
and no row list grows with the files.
"""

import json

import duckdb

from datahub.datasets import tabular
from datahub.datasets.previews_job import cut
from datahub.platform.isolation import JobError

SAMPLE_ROWS = 20
ADDED, REMOVED, CHANGED, UNCHANGED = 1, 2, 3, 0


def diff_job(args):
    """The job: ``{"from", "to", "schema", "rows", "sample", "columns"}``, or a
    :class:`JobError` (``not_tabular``, ``missing``, ``bad_key``, ``duplicate_keys``,
    ``too_large``)."""
    paths = {args["from_path"]: args["from_name"], args["to_path"]: args["to_name"]}
    try:
        result = diff_files(
            args["from_path"],
            args["to_path"],
            args.get("key") or [],
            memory_limit=args["memory_limit"],
            threads=args.get("threads"),
            temp_dir=args.get("temp_dir"),
            max_line_size=args["max_line_size"],
        )
    except tabular.NotTabular as exc:
        raise JobError("not_tabular", str(exc)) from None
    except FileNotFoundError:
        raise JobError("missing") from None
    except (duckdb.InterruptException, duckdb.OutOfMemoryException):
        raise
    except duckdb.Error as exc:
        raise JobError("not_tabular", tabular.clean_error(exc, paths)) from None
    result["from"], result["to"] = args["from_version"], args["to_version"]
    if len(json.dumps(result, allow_nan=False).encode("utf-8")) > int(args["max_bytes"]):
        raise JobError("too_large")
    return result


def diff_files(from_path, to_path, key, **connection):
    max_line_size = connection.pop("max_line_size")
    sources, formats = [], []
    for path in (from_path, to_path):
        fmt, *source = tabular.table_of(path, max_line_size)
        sources.append(source)
        formats.append((path, fmt))
    con = tabular.connect([from_path, to_path], profile=True, **connection)
    try:
        before = tabular.describe(con, f"SELECT * FROM {sources[0][0]}", sources[0][1])
        after = tabular.describe(con, f"SELECT * FROM {sources[1][0]}", sources[1][1])
        schema, columns = compare_schemas(before, after)
        missing = [name for name in key if name not in columns]
        if missing:
            raise JobError("bad_key", f"Key column {missing[0]!r} is not a column of both versions")
        if len(set(key)) != len(key):
            raise JobError("bad_key", "Key columns must not repeat")
        changed_types = {change["name"] for change in schema["changed"]}
        # Each file is read once, streaming into the join (only the compared columns).
        picked = ", ".join(tabular.quote(name) for name in columns) or "NULL AS c0"
        with_sources = (
            f"WITH a AS (SELECT {picked} FROM {sources[0][0]}), "
            f"b AS (SELECT {picked} FROM {sources[1][0]}) "
        )
        params = [*sources[0][1], *sources[1][1]]
        if key:
            row = con.execute(
                with_sources + _keyed_sql(columns, key, changed_types), params
            ).fetchone()
            sizes = [tabular.rows_scanned(con, path, fmt) for path, fmt in formats]
            if None in sizes:  # no profile: count the distinct matched keys instead
                sizes = None
                row = con.execute(
                    with_sources + _keyed_sql(columns, key, changed_types, distinct=True), params
                ).fetchone()
            _check_unique(row, sizes)
        else:
            row = con.execute(
                with_sources + _multiset_sql(columns, changed_types), params
            ).fetchone()
    finally:
        con.close()
    return _result(schema, columns, row)


def compare_schemas(before, after):
    """The schema part, and the compared columns (both files', in ``to``'s order)."""
    old, new = dict(before), dict(after)
    schema = {
        "added": [{"name": name, "type": kind} for name, kind in after if name not in old],
        "removed": [{"name": name, "type": kind} for name, kind in before if name not in new],
        "changed": [
            {"name": name, "from": old[name], "to": kind}
            for name, kind in after
            if name in old and old[name] != kind
        ],
    }
    return schema, [name for name, _ in after if name in old]


def _value(side, name, changed_types):
    column = f"{side}.{tabular.quote(name)}"
    return f"CAST({column} AS VARCHAR)" if name in changed_types else column


def _row(side, columns):
    """A row of one side as a struct (fields c0, c1, ... in ``columns``' order)."""
    fields = ", ".join(
        f"c{number} := {side}.{tabular.quote(name)}" for number, name in enumerate(columns)
    )
    return f"struct_pack({fields})" if columns else "struct_pack(c0 := NULL)"


def _check_unique(row, sizes):
    """A key value in both versions and more than once in one joins more than one pair.
    With the files' row counts (``sizes``, from DuckDB's profile of the join's own scans):
    then the rows of one file that the join holds (matched pairs, and those only in that
    file) outnumber the file's rows. Without: the matched pairs outnumber the distinct
    keys among them (the query's last column)."""
    added, removed, changed, unchanged = row[:4]
    pairs = changed + unchanged
    if sizes is None:
        unique = pairs == row[7]
    else:
        unique = pairs + removed == sizes[0] and pairs + added == sizes[1]
    if not unique:
        raise JobError(
            "duplicate_keys", "Key values repeat: a key must identify one row in each version"
        )


def _keyed_sql(columns, key, changed_types, distinct=False):
    matched = " AND ".join(
        f"{_value('a', name, changed_types)} IS NOT DISTINCT FROM "
        f"{_value('b', name, changed_types)}"
        for name in key
    )
    others = [name for name in columns if name not in key]
    differs = (
        " OR ".join(
            f"{_value('a', name, changed_types)} IS DISTINCT FROM "
            f"{_value('b', name, changed_types)}"
            for name in others
        )
        or "false"
    )
    key_of = {
        side: "struct_pack("
        + ", ".join(f"k{number} := {side}.{tabular.quote(name)}" for number, name in enumerate(key))
        + ")"
        for side in ("a", "b")
    }
    distinct_keys = (
        f", count(DISTINCT old_key) FILTER (WHERE kind IN ({CHANGED}, {UNCHANGED}))"
        if distinct
        else ""
    )
    return f"""
        , joined AS (
            SELECT CASE WHEN a.__in_a IS NULL THEN {ADDED} WHEN b.__in_b IS NULL THEN {REMOVED}
                        WHEN {differs} THEN {CHANGED} ELSE {UNCHANGED} END AS kind,
                   {_row("a", columns)} AS old_row, {_row("b", columns)} AS new_row,
                   {key_of["a"]} AS old_key, {key_of["b"]} AS new_key
            FROM (SELECT *, true AS __in_a FROM a) a
            FULL OUTER JOIN (SELECT *, true AS __in_b FROM b) b ON {matched}
        )
        SELECT count(*) FILTER (WHERE kind = {ADDED}),
               count(*) FILTER (WHERE kind = {REMOVED}),
               count(*) FILTER (WHERE kind = {CHANGED}),
               count(*) FILTER (WHERE kind = {UNCHANGED}),
               arg_min(new_row, new_key, {SAMPLE_ROWS}) FILTER (WHERE kind = {ADDED}),
               arg_min(old_row, old_key, {SAMPLE_ROWS}) FILTER (WHERE kind = {REMOVED}),
               arg_min(struct_pack(k := old_key, o := old_row, n := new_row), old_key,
                       {SAMPLE_ROWS}) FILTER (WHERE kind = {CHANGED}){distinct_keys}
        FROM joined
    """


def _multiset_sql(columns, changed_types):
    values = ", ".join(
        f"{_value('x', name, changed_types)} AS c{number}" for number, name in enumerate(columns)
    )
    names = [f"c{number}" for number in range(len(columns))] or ["c0"]
    values = values or "NULL AS c0"
    matched = " AND ".join(f"ca.{name} IS NOT DISTINCT FROM cb.{name}" for name in names)
    row = {
        side: "struct_pack(" + ", ".join(f"{name} := {side}.{name}" for name in names) + ")"
        for side in ("ca", "cb")
    }
    return f"""
        , ca AS (SELECT {values}, count(*) AS n FROM a x GROUP BY ALL),
          cb AS (SELECT {values}, count(*) AS n FROM b x GROUP BY ALL),
          joined AS (
            SELECT coalesce(ca.n, 0) AS n_a, coalesce(cb.n, 0) AS n_b,
                   {row["ca"]} AS old_row, {row["cb"]} AS new_row
            FROM ca FULL OUTER JOIN cb ON {matched}
        )
        SELECT coalesce(sum(greatest(n_b - n_a, 0)), 0),
               coalesce(sum(greatest(n_a - n_b, 0)), 0),
               0,
               coalesce(sum(least(n_a, n_b)), 0),
               min(new_row, {SAMPLE_ROWS}) FILTER (WHERE n_b > n_a),
               min(old_row, {SAMPLE_ROWS}) FILTER (WHERE n_a > n_b),
               []
        FROM joined
    """


def _values(row, columns):
    """A sample row (a struct of c0, c1, ...) as a list of JSON values, long cells cut."""
    if row is None:
        return None
    return [cut(tabular.json_value(row[f"c{number}"]))[0] for number in range(len(columns))]


def _result(schema, columns, row):
    added, removed, changed, unchanged, added_rows, removed_rows, changed_rows = row[:7]
    return {
        "schema": schema,
        "rows": {
            "added": int(added),
            "removed": int(removed),
            "changed": int(changed),
            "unchanged": int(unchanged),
        },
        "sample": {
            "added": [_values(item, columns) for item in added_rows or []],
            "removed": [_values(item, columns) for item in removed_rows or []],
            "changed": [
                {
                    "key": [cut(tabular.json_value(value))[0] for value in item["k"].values()],
                    "from": _values(item["o"], columns),
                    "to": _values(item["n"], columns),
                }
                for item in changed_rows or []
            ],
        },
        "columns": columns,
    }
