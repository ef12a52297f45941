"""``datahub datasets lineage``: which runs made a version of a dataset from which versions,
and what was made from it, one line per run::

    cities@1 -> run 3 (pipeline 2) -> oslo@1

A version is its dataset's name and its number (``dataset 7@1`` for a dataset without a
name); ``--json`` gives the graph's nodes (with their ids) and edges as the service does."""

import click

from datahub_client.cli_context import json_option, pass_context

DIRECTIONS = ("upstream", "downstream", "both")
MISSING = {"upstream": "made", "downstream": "read", "both": "made or read"}


def _version_label(node):
    return f"{node.get('name') or 'dataset ' + str(node['dataset_id'])}@{node['version']}"


def _run_number(node_id):
    return int(node_id.split(":", 1)[1])


def lineage_lines(graph):
    """One line per run of the graph, oldest run (the smallest id) first: the versions it
    read, the run and its pipeline, the version it made (``no new version`` for a run
    that failed, is still going or reused an earlier run's output)."""
    nodes = {node["id"]: node for node in graph["nodes"]}
    read, made = {}, {}
    for edge in graph["edges"]:
        if edge["to"].startswith("run:"):
            read.setdefault(edge["to"], []).append(edge["from"])
        else:
            made.setdefault(edge["from"], []).append(edge["to"])

    def order(version):
        return nodes[version]["dataset_id"], nodes[version]["version"]

    lines = []
    for run in sorted(set(read) | set(made), key=_run_number):
        pipeline = nodes.get(run, {}).get("pipeline_id")
        middle = f"run {_run_number(run)}" + (f" (pipeline {pipeline})" if pipeline else "")
        inputs = ", ".join(_version_label(nodes[v]) for v in sorted(read.get(run, []), key=order))
        outputs = ", ".join(_version_label(nodes[v]) for v in sorted(made.get(run, []), key=order))
        lines.append(
            " -> ".join(part for part in (inputs, middle, outputs or "no new version") if part)
        )
    return lines


@click.command("lineage")
@click.argument("dataset_id", type=int)
@click.option(
    "--direction",
    type=click.Choice(DIRECTIONS),
    default="both",
    show_default=True,
    help="upstream: the runs and versions it comes from; downstream: what was made from it.",
)
@click.option(
    "--depth",
    type=click.IntRange(1, 10),
    default=3,
    show_default=True,
    help="How many runs away.",
)
@click.option("--version", type=click.IntRange(1), help="This version (default: the current one).")
@json_option
@pass_context
def datasets_lineage(context, dataset_id, direction, depth, version):
    """The lineage of a version of DATASET_ID: the runs that made it and the versions they
    read, the runs that read it and the versions they made; one line per run."""
    context.require_session()
    graph = context.client.dataset_lineage(
        dataset_id, direction=direction, depth=depth, version=version
    )
    if context.as_json:
        context.output(graph)
    elif not graph["nodes"]:
        click.echo(f"Dataset {dataset_id} has no version: no lineage")
    elif not graph["edges"]:
        click.echo(f"No run {MISSING[direction]} {_version_label(graph['nodes'][0])}")
    else:
        for line in lineage_lines(graph):
            click.echo(line)
