"""``datahub datasets preview`` and ``datahub pipelines preview``: the first rows of a
dataset's file, or of what a pipeline's steps make of it, as a table (one column per
column of the data; an empty cell is null)::

    datahub datasets preview 1 --limit 5
    datahub pipelines preview 1 --steps steps.json        # a JSON list of steps, or -
    datahub pipelines preview 1 --steps-json '[{"op": "limit", "count": 3}]'

``--json`` gives the service's answer (``format``, ``columns``, ``rows``, ``truncated``)."""

import json

import click

from datahub_client.cli_context import json_option, pass_context

limit_option = click.option(
    "--limit", type=click.IntRange(1), help="Rows to show (default: the service's, 50)."
)


def preview_rows(preview):
    """The table's rows: a null cell empty, any other as JSON writes it (text as is)."""
    return [
        [
            "" if cell is None else cell if isinstance(cell, str) else json.dumps(cell)
            for cell in row
        ]
        for row in preview["rows"]
    ]


def output_preview(context, preview):
    context.output(
        preview, [column["name"] for column in preview["columns"]], preview_rows(preview)
    )
    if not context.as_json:
        cut = "; long cells cut (…)" if preview["truncated"] else ""
        click.echo(f"{len(preview['rows'])} rows ({preview['format']}{cut})", err=True)


@click.command("preview")
@click.argument("dataset_id", type=int)
@click.option("--version", type=int, help="This version's file (default: the current one).")
@limit_option
@json_option
@pass_context
def datasets_preview(context, dataset_id, version, limit):
    """Show the first rows of DATASET_ID's file as a table."""
    context.require_session()
    output_preview(
        context, context.client.dataset_preview(dataset_id, limit=limit, version=version)
    )


def _steps(path, text):
    """The steps from ``--steps`` (a file, - for stdin) or ``--steps-json``: a JSON list."""
    if (path is None) == (text is None):
        raise click.UsageError("give the steps with --steps FILE or --steps-json TEXT (one)")
    where = "--steps-json" if text is not None else path.name
    try:
        steps = json.loads(text if text is not None else path.read())
    except ValueError as error:
        raise click.ClickException(f"{where} is not JSON: {error}") from None
    if not isinstance(steps, list):
        raise click.ClickException(f"{where} must be a JSON list of steps")
    return steps


@click.command("preview")
@click.argument("source_dataset_id", type=int)
@click.option(
    "--steps",
    "steps_file",
    type=click.File("r", encoding="utf-8"),
    help="A JSON file with the list of steps, as a pipeline's (- for stdin).",
)
@click.option("--steps-json", help="The list of steps as JSON text.")
@click.option("--version", type=int, help="Read this version of the source (default: current).")
@limit_option
@json_option
@pass_context
def pipelines_preview(context, source_dataset_id, steps_file, steps_json, version, limit):
    """Show the first rows of what the steps make of SOURCE_DATASET_ID, without making a
    pipeline: a table, as datahub datasets preview shows one."""
    steps = _steps(steps_file, steps_json)
    context.require_session()
    preview = context.client.pipeline_preview(
        source_dataset_id, steps, source_version=version, limit=limit
    )
    output_preview(context, preview)
