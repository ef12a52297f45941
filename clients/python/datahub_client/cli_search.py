"""Find data from a shell (the service's docs: "Search"):

datahub search rainfall norway                  # best first
datahub search '"daily rain" -oslo' --type dataset --format csv
datahub search --tag weather --sort -updated_at # everything tagged, newest first
datahub search --suggest trond                  # names, tags and columns as one types
"""

import click

from datahub_client.cli_context import json_option, pass_context

RESULT_COLUMNS = ["TYPE", "ID", "NAME", "OWNER", "MATCHED"]
SUGGEST_COLUMNS = ["KIND", "NAME", "OPENS"]
KINDS = ("dataset", "collection", "pipeline")


def _matched(item):
    """What matched besides the name, in a few words."""
    parts = [
        f"{column['name']}={column['value']}" if "value" in column else column["name"]
        for column in item["matched_columns"]
    ]
    parts += [field for field in ("description", "readme") if field in item["highlights"]]
    return ", ".join(parts)


@click.command("search")
@click.argument("words", nargs=-1)
@click.option(
    "--type", "types", multiple=True, type=click.Choice(KINDS), help="Only this kind (repeatable)."
)
@click.option("--tag", help="Only datasets carrying this tag.")
@click.option("--owner", help="Only what this user id owns (me: you).")
@click.option("--format", "format_", type=click.Choice(("csv", "parquet", "jsonl")))
@click.option("--visibility", type=click.Choice(("private", "internal")))
@click.option("--collection", type=int, help="Only datasets in this collection.")
@click.option("--sort", type=click.Choice(("relevance", "-updated_at", "name", "popular")))
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@click.option("--suggest", is_flag=True, help="Suggest names, tags and columns for WORDS.")
@json_option
@pass_context
def search(
    context, words, types, tag, owner, format_, visibility, collection, sort, limit, offset, suggest
):
    """Find datasets, collections and pipelines you may read by WORDS: names, tags,
    columns, descriptions, READMEs and values in the data. Web-search syntax: all words
    match, "a phrase", -word excludes, `or` between two."""
    context.require_session()
    q = " ".join(words)
    if suggest:
        items = context.client.search_suggest(q)
        rows = [[item["kind"], item["name"], f"{item['type']} {item['id']}"] for item in items]
        context.output({"items": items}, SUGGEST_COLUMNS, rows)
        return
    page = context.client.search(
        q or None,
        type=list(types) or None,
        tag=tag,
        owner=owner,
        format=format_,
        visibility=visibility,
        collection=collection,
        sort=sort,
        limit=limit,
        offset=offset,
    )
    rows = [
        [item["type"], item["id"], item["name"], item["owner"]["name"], _matched(item)]
        for item in page["items"]
    ]
    context.output(page, RESULT_COLUMNS, rows)
    if not context.as_json:
        shown = page["offset"] + len(page["items"])
        more = f"; next: --offset {shown}" if shown < page["total"] else ""
        click.echo(f"{len(page['items'])} of {page['total']}{more}", err=True)
