"""The step engine: a pipeline's steps compiled into one DuckDB query over its source.

Each step wraps the query so far as a subquery. Identifiers are quoted by
:func:`~datahub.datasets.tabular.quote`; every value a user gave (a filter's value, a
limit) is a bound parameter, never pasted into the text. The columns and their inferred
types are known after each step, so a step naming a column that is not there fails the
run with the same message whatever executes it (``step 1 (sort): column 'age' does not
exist; the columns are: name``). Steps whose result types only DuckDB knows (cast,
aggregate, join, sql) are described by DuckDB as they are compiled; its binder errors are
reported against the step.
"""

import contextlib
import itertools
import uuid

import duckdb

from datahub.datasets.tabular import DATA_ERRORS, describe, literal, quote, unreadable
from datahub.pipelines import run_errors
from datahub.pipelines.csv_types import pin_csv_types
from datahub.pipelines.filters import NUMBER_TYPE, filter_condition

# Part of every run's fingerprint (datahub.pipelines.execute.fingerprint): raise it when
# the SQL the steps compile to changes, so that no run reuses an output made otherwise.
ENGINE_VERSION = 2
SHOWN_NAMES = 20  # column names quoted in an error message
SHOWN_NAME_CHARS = 100  # characters of one name quoted in an error message
ORDINAL = "__datahub_row"

CAST_TARGET = "type"  # a cast step's field: the type to cast to
CAST_TYPES = {
    "integer": "BIGINT",
    "float": "DOUBLE",
    "string": "VARCHAR",
    "boolean": "BOOLEAN",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
}


class PipelineError(Exception):
    """The run fails with this message as its ``error``."""


def names(columns):
    """The column names for an error message: at most ``SHOWN_NAMES``, each shortened."""
    shown = [
        name if len(name) <= SHOWN_NAME_CHARS else name[:SHOWN_NAME_CHARS] + "..."
        for name in itertools.islice(columns, SHOWN_NAMES)
    ]
    more = len(columns) - len(shown)
    return ", ".join(shown) + (f", ... ({len(columns)} columns)" if more > 0 else "") or "(none)"


class Query:
    """The query so far: ``sql`` with its ``params``, and its ``columns`` as
    ``{name: DuckDB type}`` in order. Each step's own text is on lines of its own:
    ``owners`` says whose each line is, so that an error DuckDB places on a line is the
    step's (:meth:`failure`). ``work`` says what executes it in error messages: a
    ``run`` or a ``preview``."""

    def __init__(self, con, source_sql, params, max_columns, paths, work="run", known=None):
        self.con, self.sql, self.params = con, f"SELECT * FROM {source_sql}", list(params)
        self.known = {} if known is None else known  # CSV types by path (pin_csv_types)
        self.max_columns, self.paths, self.work = max_columns, paths, work
        self.label = "the source file"  # whose text the next lines are
        self.owners = [self.label] * (self.sql.count("\n") + 1)
        self.names = set()  # every column name seen: the ones an error may name
        self.renamed = None  # (the query before renames in a row, its names, the one after)
        try:
            self._pin_types(source_sql, "the source file")
            self.columns = dict(self._describe("the source file"))
        except duckdb.Error as exc:
            if not unreadable(exc):
                raise
            raise PipelineError(
                f"the source file cannot be read as a table: {self.error_text(exc)}"
            ) from None

    def error_text(self, exc):
        """DuckDB's error ``exc`` without values from the data (datahub.pipelines.run_errors)."""
        return run_errors.message(exc, self.paths, self.names, self.work)

    def failure(self, exc):
        """The :class:`PipelineError` for a DuckDB error while the query executes."""
        line = run_errors.position(exc)
        failed = f"the {self.work} failed"
        where = self.owners[line - 1] if line and line <= len(self.owners) else failed
        return PipelineError(f"{where}: {self.error_text(exc)}")

    def _pin_types(self, source_sql, where):
        try:
            pinned, self.params = pin_csv_types(self.con, source_sql, self.params, self.known)
        except DATA_ERRORS as exc:
            raise PipelineError(f"{where}: {self.error_text(exc)}") from None
        self.sql = f"SELECT * FROM {pinned}"

    def _describe(self, where):
        try:
            described = describe(self.con, f"SELECT * FROM ({self.sql})", self.params)
        except DATA_ERRORS as exc:
            raise PipelineError(f"{where}: {self.error_text(exc)}") from None
        self.names.update(name for name, _ in described)
        found = [name for name, _ in described]
        if len(set(found)) != len(found):
            raise PipelineError(f"{where}: the result has duplicate column names: {names(found)}")
        if len(found) > self.max_columns:
            raise PipelineError(
                f"{where}: the result has {len(found)} columns; at most "
                f"{self.max_columns} are allowed (PIPELINE_MAX_COLUMNS)"
            )
        return described

    def wrap(self, make, params=(), columns=None, where=None):
        """The next step: ``make(inner)`` is its SQL around the query so far, and
        ``params`` are the values of the ``?`` it adds after it."""
        mark = f"\x00{uuid.uuid4().hex}\x00"
        prefix, suffix = make(mark).split(mark, 1)
        self.nest(prefix, " AS q" + suffix)
        self.params = self.params + list(params)
        if columns is not None:
            self.columns = columns
        else:
            self.columns = dict(self._describe(where))

    def nest(self, prefix, suffix):
        """The query so far becomes ``prefix(`` it ``)suffix``, on lines of its own."""
        self.sql = f"{prefix}(\n{self.sql}\n){suffix}"
        own = [self.label]
        self.owners = own * (prefix.count("\n") + 1) + self.owners + own * (suffix.count("\n") + 1)

    def column(self, name, position, op):
        if name not in self.columns:
            raise PipelineError(
                f"step {position} ({op}): column {name!r} does not exist; "
                f"the columns are: {names(list(self.columns))}"
            )
        return name


def compile_steps(
    con, source_sql, params, steps, joins, max_columns, paths, work="run", known=None
):
    """The query applying ``steps`` to the source: a :class:`Query` (for ``work``).

    ``joins`` maps a join step's dataset id to ``(sql, params)`` reading its file;
    ``paths`` maps file paths to names for error messages; ``known``, file paths to
    their CSV types where they are known (``csv_types.pin_csv_types``), given the rest.
    """
    query = Query(con, source_sql, params, max_columns, paths, work, known)
    for position, step in enumerate(steps):
        query.label = f"step {position} ({step['op']})"
        STEPS[step["op"]](query, position, step, joins)
    return query


def _select(query, position, step, joins):
    columns = [query.column(name, position, "select") for name in step["columns"]]
    seen = set()
    for name in columns:
        if name in seen:
            raise PipelineError(
                f"step {position} (select): column {name!r} is selected more than once"
            )
        seen.add(name)
    listed = ", ".join(map(quote, columns))
    query.wrap(
        lambda q: f"SELECT {listed} FROM {q}",
        columns={name: query.columns[name] for name in columns},
    )


def _rename(query, position, step, joins):
    """Renames are simultaneous: ``{"a": "b", "b": "a"}`` swaps."""
    moves = {query.column(old, position, "rename"): new for old, new in step["mapping"].items()}
    moves = {old: new for old, new in moves.items() if old != new}
    if not moves:
        return
    result = [moves.get(name, name) for name in query.columns]
    if len(set(result)) != len(result):
        raise PipelineError(
            f"step {position} (rename): the result has duplicate column names: {names(result)}"
        )
    # Renames in a row are one SELECT over the query before them (DuckDB binds many nested
    # ones slowly): each of its columns, by position, to its name now.
    if query.renamed is None or query.renamed[2] is not query.sql:
        query.renamed = ((query.sql, query.params, query.owners), list(query.columns), None)
    (query.sql, params, owners), before, _ = query.renamed
    query.params, query.owners = list(params), list(owners)
    columns = dict(zip(result, query.columns.values(), strict=True))
    moves = {old: new for old, new in zip(before, result, strict=True) if old != new}
    if moves:
        renames = ", ".join(f"{quote(old)} AS {quote(new)}" for old, new in moves.items())
        query.wrap(lambda q: f"SELECT * RENAME ({renames}) FROM {q}", columns=columns)
    query.columns, query.renamed = columns, (query.renamed[0], before, query.sql)


def _filter(query, position, step, joins):
    column = query.column(step["column"], position, "filter")
    condition, params = filter_condition(
        column, query.columns[column], step["operator"], step["value"]
    )
    query.wrap(lambda q: f"SELECT * FROM {q} WHERE {condition}", params, columns=query.columns)


def _sort(query, position, step, joins):
    keys = [query.column(name, position, "sort") for name in step["columns"]]
    direction = " DESC" if step.get("descending") else ""
    order = [f"{quote(name)}{direction}" for name in dict.fromkeys(keys)]
    order += [quote(name) for name in query.columns if name not in set(keys)]
    query.wrap(lambda q: f"SELECT * FROM {q} ORDER BY {', '.join(order)}", columns=query.columns)


def _ordinal(columns):
    name = ORDINAL
    while name in columns:
        name += "_"
    return quote(name)


def _dedupe(query, position, step, joins):
    """Keeps each first occurrence, in order: rows are numbered as they come."""
    keys = [query.column(name, position, "dedupe") for name in step.get("columns") or []] or list(
        query.columns
    )
    row = _ordinal(query.columns)
    partition = ", ".join(quote(name) for name in dict.fromkeys(keys))
    query.wrap(
        lambda q: (
            f"SELECT * EXCLUDE ({row}) FROM (SELECT *, row_number() OVER () "
            f"AS {row} FROM {q}) QUALIFY row_number() OVER (PARTITION BY {partition} "
            f"ORDER BY {row}) = 1 ORDER BY {row}"
        ),
        columns=query.columns,
    )


def _limit(query, position, step, joins):
    query.wrap(lambda q: f"SELECT * FROM {q} LIMIT ?", [step["count"]], columns=query.columns)


def _cast(query, position, step, joins):
    column = query.column(step["column"], position, "cast")
    kind = CAST_TYPES[step[CAST_TARGET]]
    query.wrap(
        lambda q: f"SELECT * REPLACE (CAST({quote(column)} AS {kind}) AS {quote(column)}) FROM {q}",
        columns={**query.columns, column: kind},
    )


def _aggregate(query, position, step, joins):
    where = f"step {position} (aggregate)"
    groups = [query.column(name, position, "aggregate") for name in step["group_by"]]
    selected = [quote(name) for name in dict.fromkeys(groups)]
    for spec in step["aggregates"]:
        function, column = spec["function"], spec.get("column")
        if column is None:
            expression, default = "count(*)", "count"
        else:
            query.column(column, position, "aggregate")
            kind = query.columns[column]
            if function in ("sum", "avg") and not NUMBER_TYPE.match(kind):
                raise PipelineError(
                    f"{where}: {function} needs a number column; {column!r} "
                    f"is {kind} (cast it first)"
                )
            expression, default = f"{function}({quote(column)})", f"{function}_{column}"
        selected.append(f"{expression} AS {quote(spec.get('as') or default)}")
    result = list(dict.fromkeys(groups)) + [
        spec.get("as")
        or (f"{spec['function']}_{spec['column']}" if spec.get("column") else "count")
        for spec in step["aggregates"]
    ]
    if len(set(result)) != len(result):
        raise PipelineError(f"{where}: the result has duplicate column names: {names(result)}")
    by = ", ".join(quote(name) for name in dict.fromkeys(groups))
    grouping = f" GROUP BY {by} ORDER BY {by}" if groups else ""
    query.wrap(lambda q: f"SELECT {', '.join(selected)} FROM {q}{grouping}", where=where)


def _join(query, position, step, joins):
    where = f"step {position} (join)"
    other_sql, other_params = joins[step["dataset_id"]]
    try:
        other_sql, other_params = pin_csv_types(query.con, other_sql, other_params, query.known)
        other = dict(describe(query.con, f"SELECT * FROM {other_sql}", other_params))
    except duckdb.Error as exc:
        if not isinstance(exc, DATA_ERRORS) and not unreadable(exc):
            raise
        raise PipelineError(
            f"{where}: dataset {step['dataset_id']}'s file cannot be read: {query.error_text(exc)}"
        ) from None
    keys = [query.column(name, position, "join") for name in dict.fromkeys(step["on"])]
    for name in keys:
        if name not in other:
            raise PipelineError(
                f"{where}: column {name!r} does not exist in dataset "
                f"{step['dataset_id']}; its columns are: {names(list(other))}"
            )
    both = [name for name in other if name in query.columns and name not in keys]
    if both:
        raise PipelineError(
            f"{where}: both sides have columns named {names(both)} that "
            "are not joined on; rename or drop them first"
        )
    kind = "LEFT" if step.get("how") == "left" else "INNER"
    using = ", ".join(map(quote, keys))
    query.wrap(
        lambda q: (
            f"SELECT * FROM {q} {kind} JOIN (SELECT * FROM {other_sql}) AS other USING ({using})"
        ),
        other_params,
        where=where,
    )


def _sql(query, position, step, joins):
    # The step's query was checked at creation (one SELECT over input, no table function);
    # the connection is sandboxed whatever it does.
    text = step["query"].rstrip()
    while text.endswith(";"):  # one statement may end with semicolons
        text = text[:-1].rstrip()
    query.nest('WITH "input" AS ', f" SELECT * FROM (\n{text}\n)")
    query.columns = dict(query._describe(f"step {position} (sql)"))


STEPS = {
    "select": _select,
    "rename": _rename,
    "filter": _filter,
    "sort": _sort,
    "dedupe": _dedupe,
    "limit": _limit,
    "cast": _cast,
    "aggregate": _aggregate,
    "join": _join,
    "sql": _sql,
}

COPY_OPTIONS = {"csv": "FORMAT csv, HEADER", "parquet": "FORMAT parquet", "jsonl": "FORMAT json"}


def write(query, path, fmt):
    """Execute the query into the file ``path`` in ``fmt``; the number of rows written."""
    with executing(query, path):
        row = query.con.execute(
            f"COPY ({query.sql}) TO {literal(path)} ({COPY_OPTIONS[fmt]})", query.params
        ).fetchone()
    return int(row[0]) if row else 0


@contextlib.contextmanager
def executing(query, output=None):
    """While the query executes: a value a step cannot take, or a damaged input found only
    now (a Parquet data page), fails with a :class:`PipelineError`. ``output`` is the file
    it writes, if any (not an input)."""
    try:
        yield
    except DATA_ERRORS as exc:
        raise query.failure(exc) from None
    except duckdb.Error as exc:
        if not unreadable(exc):
            raise
        inputs = [name for file, name in query.paths.items() if file != output]
        which = inputs[0] if len(inputs) == 1 else "an input file"
        raise PipelineError(f"{which} cannot be read as a table: {query.error_text(exc)}") from None
