"""``datahub query``: one read-only SELECT over the datasets you may read (the service's
docs: "SQL console"), its first rows as a table, or the whole result as a file::

    datahub query 'SELECT * FROM "Oslo weather" WHERE temp < 0' --limit 20
    datahub query -f report.sql --pin 7@3              # the SQL from a file (- : stdin)
    datahub query - < report.sql                       # or SQL - for stdin
    datahub query 'SELECT ...' --format csv > all.csv  # csv and jsonl to stdout
    datahub query 'SELECT ...' -o all.parquet          # the format from the suffix

``--json`` gives the service's answer (``columns``, ``rows``, ``truncated``, ``inputs``...).
"""

import re
import sys

import click

from datahub_client.cli_context import json_option, pass_context
from datahub_client.cli_previews import preview_rows
from datahub_client.query import FORMATS, format_of

PIN = re.compile(r"(\d+)@(\d+)")


def _pin(_ctx, _param, values):
    pins = []
    for value in values:
        match = PIN.fullmatch(value.strip())
        if match is None:
            raise click.BadParameter(f"{value!r} is not DATASET_ID@VERSION (e.g. 7@3)")
        pins.append({"dataset_id": int(match[1]), "version": int(match[2])})
    return pins


def _sql(text, source):
    """The SQL: the argument (``-``: stdin) or ``-f FILE`` (``-``: stdin), one of them."""
    if (text is None) == (source is None):
        raise click.UsageError("give the SQL as an argument or with -f FILE (one of them)")
    sql = source.read() if source is not None else sys.stdin.read() if text == "-" else text
    if not sql.strip():
        raise click.UsageError("the SQL is empty")
    return sql


def _export_format(fmt, output):
    if output is None and fmt is None:
        return None
    if fmt is None:
        fmt = format_of(output)
        if fmt is None:
            raise click.UsageError(f"give --format ({'|'.join(FORMATS)}) for {output}")
    if fmt == "parquet" and output is None:
        raise click.UsageError("--format parquet needs --output FILE (it is binary)")
    return fmt


@click.command("query")
@click.argument("sql", required=False)
@click.option(
    "-f",
    "--file",
    "source",
    type=click.File("r", encoding="utf-8"),
    help="Read the SQL from this file (- : stdin).",
)
@click.option(
    "--limit",
    type=click.IntRange(1),
    help="Rows to show (default: the service's, 1,000; at most its QUERY_MAX_ROWS).",
)
@click.option(
    "--pin",
    "pins",
    multiple=True,
    callback=_pin,
    metavar="DATASET_ID@VERSION",
    help="Read this version of a dataset named without @N (repeatable).",
)
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), help="Write the whole result in this format."
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=False),
    help="Write the whole result to this file (format: --format, or its suffix).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing --output file.")
@json_option
@pass_context
def query(context, sql, source, limit, pins, fmt, output, force):
    """Run one read-only SELECT over the datasets you may read, named as tables
    ("Sales 2025", or "Sales 2025@3" for version 3), and show its first rows as a table;
    with --format or --output, write the whole result instead (csv or jsonl to stdout
    without --output)."""
    sql = _sql(sql, source)
    fmt = _export_format(fmt, output)
    if fmt is not None and limit is not None:
        raise click.UsageError("--limit is for the table: an export has every row")
    context.require_session()
    if fmt is None:
        _show(context, context.client.query(sql, limit=limit, pins=pins or None))
        return
    if output is None:
        with click.open_file("-", "wb") as stdout:
            context.client.query_export(sql, stdout, format=fmt, pins=pins or None)
        return
    try:
        context.client.query_export(sql, output, format=fmt, pins=pins or None, overwrite=force)
    except FileExistsError as error:
        raise click.ClickException(
            f"{error.filename} already exists (use --force to overwrite it)"
        ) from None
    if not context.as_json:
        click.echo(f"Saved the result as {fmt} to {output}", err=True)


def _show(context, result):
    context.output(result, [column["name"] for column in result["columns"]], preview_rows(result))
    if context.as_json:
        return
    read = ", ".join(f"{i['name']}@{i['version']}" for i in result["inputs"]) or "no dataset"
    more = "; more in the result (export it with --format)" if result["truncated"] else ""
    click.echo(f"{len(result['rows'])} rows{more}; read {read}", err=True)
