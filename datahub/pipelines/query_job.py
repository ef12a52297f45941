"""A run's query, as executed in an isolated process (datahub.platform.isolation): compile the steps
into one DuckDB query over the input files and ``COPY`` its result to the output file.
Answers ``{"rows_in", "rows_out"}`` and its phases' times; a problem the user can fix is a ``JobError`` of kind
``pipeline`` whose message the run shows, without values from the data
(datahub.pipelines.run_errors). It knows no database and no storage: the worker
(datahub.pipelines.execute) prepared the files and publishes the output."""

import contextlib
import time

import duckdb

from datahub.datasets import tabular
from datahub.pipelines import engine, run_errors
from datahub.pipelines.engine import PipelineError
from datahub.pipelines.timings import milliseconds
from datahub.platform.isolation import JobError

_LEFT_OPEN = []  # a run's DuckDB connection, left to the process's exit


def run_query_job(args):
    try:
        return _run(args)
    except PipelineError as exc:
        raise JobError("pipeline", str(exc)) from None
    except FileNotFoundError:
        raise JobError("pipeline", "an input dataset's file is missing from storage") from None


def _run(args):
    """The query's result: ``rows_in``, ``rows_out``, ``timings`` (milliseconds of the
    job's phases: datahub.pipelines.timings) and ``started`` and ``ended``
    (``time.monotonic()``, the same clock in every process of the host)."""
    started = time.monotonic()
    source, output = args["source"], args["output"]
    # Not closed: the process exits once it has answered (datahub.platform.isolation.child),
    # and closing would only wait for DuckDB to give back its memory first.
    connected = compiled(args, [output], args["spill"], close=False, profile=True)
    with connected as (query, source_format):
        # Kept past this function: dropping the last reference would close the connection,
        # DuckDB giving back its memory first (~20 ms after a 2M-row sort) before the answer.
        _LEFT_OPEN.append(query.con)
        compiled_at = time.monotonic()
        rows_out = engine.write(query, output, args["output_format"])
        written_at = time.monotonic()
        rows_in = tabular.rows_scanned(query.con, source, source_format)
        counted_at = time.monotonic()
    timings = {
        "compile": milliseconds(compiled_at - started),
        "query": milliseconds(written_at - compiled_at),
        "row_counts": milliseconds(counted_at - written_at),
    }
    return {
        "rows_in": rows_in,
        "rows_out": rows_out,
        "csv_types": sniffed(args, query),
        "timings": timings,
        "started": started,
        "ended": time.monotonic(),
    }


def sniffed(args, query):
    """The CSV types DuckDB inferred for input files whose types ``args`` did not give
    (``csv_types``, path → ``csv_types.sniff_csv_types``): for the asker to keep."""
    given = args.get("csv_types") or {}
    return {path: types for path, types in query.known.items() if path not in given}


@contextlib.contextmanager
def compiled(args, writable, spill, work="run", close=True, profile=False):
    """``(query, source format)``: the steps compiled over the input files (``args``'
    ``source``, ``joins``, ``names``, ``steps`` and bounds) on a sandboxed connection that
    may also write ``writable`` and spill into ``spill``; closed afterwards. DuckDB's
    errors, while it compiles or executes, as a :class:`PipelineError` about the ``work``
    (a ``run`` or a ``preview``). ``close``: False leaves the connection to the process's end; ``profile``: its queries
    are profiled for ``tabular.rows_scanned``. ``args``' ``csv_types`` are the types of
    input files known before (path → ``csv_types.sniff_csv_types``): not sampled again."""
    paths = dict(args["names"])  # input and output paths → what a user calls them
    source = args["source"]
    joined = {int(dataset_id): path for dataset_id, path in args["joins"].items()}
    max_line, max_columns = int(args["max_line_size"]), int(args["max_columns"])

    def read(path):
        """``(format, sql, params)`` of an input file."""
        try:
            return tabular.table_of(path, max_line, max_columns)
        except tabular.NotTabular as exc:
            raise PipelineError(f"{paths[path]} cannot be read as a table: {exc}") from None

    source_format, source_sql, params = read(source)
    joins = {dataset_id: read(path)[1:] for dataset_id, path in joined.items()}
    con = tabular.connect(
        [source, *joined.values()],
        writable,
        memory_limit=args["memory_limit"],
        threads=args.get("threads"),
        temp_dir=spill,
        profile=profile,
    )
    try:
        known = dict(args.get("csv_types") or {})
        query = engine.compile_steps(
            con, source_sql, params, args["steps"], joins, max_columns, paths, work, known
        )
        yield query, source_format
    except duckdb.IOException as exc:
        raise PipelineError(
            f"the {work} could not read or write a file: {tabular.clean_error(exc, paths)}"
        ) from None
    except tabular.DATA_ERRORS as exc:
        message = run_errors.message(exc, paths, work=work)
        raise PipelineError(f"the {work} failed: {message}") from None
    finally:
        if close:
            con.close()
