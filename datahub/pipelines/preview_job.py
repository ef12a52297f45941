"""A pipeline's preview, as executed in an isolated process (datahub.platform.isolation): the
steps compiled over the input files as a run compiles them (datahub.pipelines.query_job),
and the first rows of their result answered as a dataset's preview is
(datahub.datasets.previews_job: long cells cut, at most ``max_bytes`` of JSON). A problem
the user can fix is a ``JobError`` of kind ``pipeline`` without values from the data
(datahub.pipelines.run_errors). It knows no database and no storage."""

from datahub.datasets import tabular
from datahub.datasets.previews_job import CELL_CHARS, bounded
from datahub.pipelines import engine
from datahub.pipelines.engine import PipelineError
from datahub.pipelines.query_job import compiled, sniffed
from datahub.platform.isolation import JobError


def pipeline_preview_job(args):
    try:
        return _preview(args)
    except PipelineError as exc:
        raise JobError("pipeline", str(exc)) from None
    except FileNotFoundError:  # replaced or deleted since it was looked up
        raise JobError("missing") from None


def _preview(args):
    with compiled(args, [], args.get("spill"), work="preview") as (query, source_format):
        columns = list(query.columns.items())
        # Text cells come out at most one character longer than CELL_CHARS: enough to
        # tell which to cut (as a dataset's preview).
        shown = ", ".join(
            f"left({tabular.quote(name)}, {CELL_CHARS + 1}) AS {tabular.quote(name)}"
            if kind == "VARCHAR"
            else tabular.quote(name)
            for name, kind in columns
        )
        query.label = "the preview"
        query.wrap(
            lambda q: f"SELECT {shown} FROM {q} LIMIT ?", [int(args["limit"])], query.columns
        )
        with engine.executing(query):
            rows = query.con.execute(query.sql, query.params).fetchall()
        found = sniffed(args, query)
    table = {
        "format": source_format,
        "columns": [{"name": name, "type": kind} for name, kind in columns],
        "rows": [[tabular.json_value(value) for value in row] for row in rows],
    }
    return {"table": bounded(table, args["max_bytes"]), "csv_types": found}
