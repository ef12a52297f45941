"""``flask --app datahub search reindex``: rebuild the search index while the service runs."""

import click
from flask.cli import AppGroup

from datahub.search import documents

search_cli = AppGroup("search", help="The search index.")


@search_cli.command("reindex")
@click.option("--batch-size", default=1000, show_default=True, type=click.IntRange(1, 100000))
@click.option(
    "--workers",
    default=2,
    show_default=True,
    type=click.IntRange(1, 8),
    help="Batches written at once on PostgreSQL (SQLite writes one at a time).",
)
def reindex_command(batch_size, workers):
    """Rebuild the index of every dataset, collection and pipeline, in batches."""
    counts = {}

    def report(kind, count):
        counts[kind] = counts.get(kind, 0) + count

    documents.reindex(batch_size, report, workers)
    click.echo(
        "search: indexed "
        + ", ".join(f"{counts.get(kind, 0)} {kind}s" for kind in documents.MODELS)
    )
