"""A dataset's documentation from a shell (the service's docs: "Datasets"):

datahub datasets readme 7 README.md             # its README, from a file (- : stdin)
datahub datasets columns 7                      # columns, types and descriptions
datahub datasets describe-column 7 temp "Mean temperature, °C"
"""

import click

from datahub_client.cli_context import json_option, pass_context

COLUMN_COLUMNS = ["NAME", "TYPE", "DESCRIPTION"]


def _column_rows(answer):
    return [[c["name"], c["type"], c["description"]] for c in answer["columns"]]


@click.command("readme")
@click.argument("dataset_id", type=int)
@click.argument("source", type=click.File("r", encoding="utf-8"))
@json_option
@pass_context
def datasets_readme(context, dataset_id, source):
    """Set DATASET_ID's README (Markdown, at most 100 KB) from SOURCE, a file or - for
    standard input."""
    context.require_session()
    dataset = context.client.dataset_update(dataset_id, readme=source.read())
    context.output(dataset)
    if not context.as_json:
        click.echo(f"README of dataset {dataset_id}: {len(dataset['readme'].encode())} bytes")


@click.command("columns")
@click.argument("dataset_id", type=int)
@json_option
@pass_context
def datasets_columns(context, dataset_id):
    """The columns of DATASET_ID's current version, their types and descriptions."""
    context.require_session()
    answer = context.client.dataset_columns(dataset_id)
    context.output(answer, COLUMN_COLUMNS, _column_rows(answer))


@click.command("describe-column")
@click.argument("dataset_id", type=int)
@click.argument("name")
@click.argument("text")
@json_option
@pass_context
def datasets_describe_column(context, dataset_id, name, text):
    """Say what column NAME of DATASET_ID means ("" removes the description)."""
    context.require_session()
    answer = context.client.dataset_columns_update(dataset_id, {name: text})
    context.output(answer, COLUMN_COLUMNS, _column_rows(answer))


COLUMN_COMMANDS = (datasets_readme, datasets_columns, datasets_describe_column)
