"""The ``datahub`` command: the service's resources from a shell, on ``datahub_client``.

    datahub login --email ann@example.com        # password from a prompt or DATAHUB_PASSWORD
    datahub login --token < token.txt            # or DATAHUB_TOKEN=dhp_... in the environment
    datahub tokens create ci --read-only --days 90  # prints the secret, once
    datahub datasets create "Oslo weather" --tag weather
    datahub datasets upload 1 weather.csv --message "first readings"
    datahub datasets download 1 copy.csv --force    # an existing file is kept without --force
    datahub datasets preview 1 --limit 5            # the first rows as a table
    datahub datasets versions 1                     # every upload is a version
    datahub datasets diff 1 1 2 --key date          # what changed from version 1 to 2
    datahub datasets lineage 2                      # the runs it comes from and leads to
    datahub datasets share 1 --group analysts --permission read
    datahub datasets visibility 1 internal          # every user may read it
    datahub pipelines preview 1 --steps steps.json  # what steps make of dataset 1
    datahub query 'SELECT * FROM "Oslo weather"'    # SQL over datasets (-o out.parquet)
    datahub --json datasets list

Between runs only the refresh cookie (or the personal access token of ``login --token``)
is kept, in ``~/.config/datahub/session.json`` (or ``$DATAHUB_SESSION_FILE``), mode 0600,
rewritten after every rotation; ``$DATAHUB_TOKEN``, when set, is used before it. Every failure is one
``Error: ...`` line on stderr and exit status 1; progress is drawn only on a terminal.
"""

import os
import sys
from urllib.parse import urlsplit

import click

from datahub_client.cli_access import access_commands, groups, users, visibility_option
from datahub_client.cli_auth import AUTH_COMMANDS
from datahub_client.cli_columns import COLUMN_COMMANDS
from datahub_client.cli_context import Context, Main, pass_context
from datahub_client.cli_events import events, pipelines_trigger, webhooks
from datahub_client.cli_lineage import datasets_lineage
from datahub_client.cli_previews import datasets_preview, pipelines_preview
from datahub_client.cli_profiles import PROFILE_COMMANDS
from datahub_client.cli_query import query
from datahub_client.cli_search import search
from datahub_client.cli_versions import VERSION_COMMANDS

DEFAULT_URL = "http://127.0.0.1:8000"
SORTS = ("name", "-name", "created_at", "-created_at", "updated_at", "-updated_at")
sort_option = click.option(
    "--sort",
    type=click.Choice(SORTS),
    help="The order ('-': descending; names in any case); default: oldest first.",
)


@click.group(cls=Main, name="datahub")
@click.option(
    "--url",
    envvar="DATAHUB_URL",
    default=DEFAULT_URL,
    show_default=True,
    help="The service (also DATAHUB_URL).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
@click.pass_context
def cli(ctx, url, as_json):
    """Command-line client of a datahub service."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise click.BadParameter(
            f"{url!r} is not an http:// or https:// URL", param_hint="'--url' / DATAHUB_URL"
        )
    ctx.obj = Context(url, as_json)


for command in AUTH_COMMANDS:  # login, logout, whoami, tokens (cli_auth.py)
    cli.add_command(command)
cli.add_command(groups)  # cli_access.py
cli.add_command(users)
cli.add_command(events)  # cli_events.py
cli.add_command(webhooks)
cli.add_command(search)  # cli_search.py
cli.add_command(query)  # cli_query.py


# -- datasets -----------------------------------------------------------------------------


def _size(file):
    return "-" if not file else f"{file['size_bytes']} B"


def _dataset_rows(items):
    return [
        [
            d["id"],
            d["name"],
            ",".join(d["tags"]) or "-",
            d["file"]["filename"] if d["file"] else "-",
            _size(d["file"]),
        ]
        for d in items
    ]


DATASET_COLUMNS = ["ID", "NAME", "TAGS", "FILE", "SIZE"]


@cli.group()
def datasets():
    """List, create, upload, download, preview and delete datasets; list, pin, restore
    and compare their versions; show their lineage; share them and set their visibility."""


@datasets.command("list")
@click.option("--q", help="Name contains (any case).")
@click.option("--tag", help="Carries this tag.")
@click.option("--owner", help='A user id, or "me".')
@sort_option
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@pass_context
def datasets_list(context, q, tag, owner, sort, limit, offset):
    """List datasets."""
    context.require_session()
    page = context.client.datasets_list(
        q=q, tag=tag, owner=owner, sort=sort, limit=limit, offset=offset
    )
    context.output(page, DATASET_COLUMNS, _dataset_rows(page["items"]))
    if not context.as_json:
        click.echo(f"{len(page['items'])} of {page['total']} (offset {page['offset']})", err=True)


@datasets.command("create")
@click.argument("name")
@click.option("--description", help="What it is.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@visibility_option
@pass_context
def datasets_create(context, name, description, tags, visibility):
    """Create a dataset called NAME."""
    context.require_session()
    dataset = context.client.dataset_create(
        name, description=description, tags=list(tags) if tags else None, visibility=visibility
    )
    context.output(dataset, DATASET_COLUMNS, _dataset_rows([dataset]))


@datasets.command("upload")
@click.argument("dataset_id", type=int)
# readable=False: an unreadable file is open()'s one line, "Error: PATH: Permission denied".
@click.argument("path", type=click.Path(exists=True, dir_okay=False, readable=False))
@click.option("--content-type", help="Default: guessed from the file name.")
@click.option("--filename", help="The name to store (default: the file's).")
@click.option("--message", help="A note kept with the new version.")
@pass_context
def datasets_upload(context, dataset_id, path, content_type, filename, message):
    """Upload PATH as the file of DATASET_ID: its new, current version (the previous
    ones are kept; see: datahub datasets versions)."""
    context.require_session()
    with context.progress("Uploading", os.path.getsize(path)) as progress:
        dataset = context.client.dataset_upload(
            dataset_id,
            path,
            filename=filename,
            content_type=content_type,
            progress=progress,
            message=message,
        )
    context.output(
        dataset,
        DATASET_COLUMNS + ["VERSION", "SHA256"],
        [_dataset_rows([dataset])[0] + [dataset["current_version"], dataset["file"]["sha256"]]],
    )


@datasets.command("download")
@click.argument("dataset_id", type=int)
@click.argument("destination", type=click.Path(), default=".")
@click.option("-f", "--force", is_flag=True, help="Overwrite an existing file.")
@click.option("--version", type=int, help="This version's file (default: the current one).")
@pass_context
def datasets_download(context, dataset_id, destination, force, version):
    """Download the file of DATASET_ID to DESTINATION (a file, or a folder: default .).
    An existing file is kept unless --force; a failed download leaves nothing behind."""
    context.require_session()
    try:
        with context.progress("Downloading", None) as progress:
            path = context.client.dataset_download(
                dataset_id, destination, progress=progress, overwrite=force, version=version
            )
    except FileExistsError as error:
        raise click.ClickException(
            f"{error.filename} already exists (use --force to overwrite it)"
        ) from None
    result = {"dataset_id": dataset_id, "path": path, "size_bytes": os.path.getsize(path)}
    if version is not None:
        result["version"] = version
    context.output(result)
    if not context.as_json:
        click.echo(f"Saved {result['size_bytes']} bytes to {path}")


@datasets.command("delete")
@click.argument("dataset_id", type=int)
@pass_context
def datasets_delete(context, dataset_id):
    """Delete DATASET_ID and every version of its file."""
    context.require_session()
    context.client.dataset_delete(dataset_id)
    context.output({"deleted": dataset_id})
    if not context.as_json:
        click.echo(f"Deleted dataset {dataset_id}")


for command in VERSION_COMMANDS:  # versions, pin, unpin, restore, diff (cli_versions.py)
    datasets.add_command(command)
datasets.add_command(datasets_lineage)  # cli_lineage.py
datasets.add_command(datasets_preview)  # cli_previews.py
for command in COLUMN_COMMANDS:  # readme, columns, describe-column (cli_columns.py)
    datasets.add_command(command)
for command in PROFILE_COMMANDS:  # schema, profile, datapackage (cli_profiles.py)
    datasets.add_command(command)
for command in access_commands("dataset"):  # grants, share, unshare, visibility
    datasets.add_command(command)


# -- collections --------------------------------------------------------------------------

COLLECTION_COLUMNS = ["ID", "NAME", "DATASETS", "DESCRIPTION"]


def _collection_rows(items):
    return [
        [
            c["id"],
            c["name"],
            ",".join(str(i) for i in c["dataset_ids"]) or "-",
            c["description"] or "-",
        ]
        for c in items
    ]


@cli.group()
def collections():
    """List and create collections; add and remove their datasets; share them."""


@collections.command("list")
@click.option("--q", help="Name contains (any case).")
@click.option("--owner", help='A user id, or "me".')
@sort_option
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@pass_context
def collections_list(context, q, owner, sort, limit, offset):
    """List collections."""
    context.require_session()
    page = context.client.collections_list(q=q, owner=owner, sort=sort, limit=limit, offset=offset)
    context.output(page, COLLECTION_COLUMNS, _collection_rows(page["items"]))


@collections.command("create")
@click.argument("name")
@click.option("--description", help="What it groups.")
@visibility_option
@pass_context
def collections_create(context, name, description, visibility):
    """Create a collection called NAME."""
    context.require_session()
    collection = context.client.collection_create(
        name, description=description, visibility=visibility
    )
    context.output(collection, COLLECTION_COLUMNS, _collection_rows([collection]))


@collections.command("add")
@click.argument("collection_id", type=int)
@click.argument("dataset_id", type=int)
@pass_context
def collections_add(context, collection_id, dataset_id):
    """Put DATASET_ID into COLLECTION_ID."""
    context.require_session()
    collection = context.client.collection_add(collection_id, dataset_id)
    context.output(collection, COLLECTION_COLUMNS, _collection_rows([collection]))


@collections.command("remove")
@click.argument("collection_id", type=int)
@click.argument("dataset_id", type=int)
@pass_context
def collections_remove(context, collection_id, dataset_id):
    """Take DATASET_ID out of COLLECTION_ID (the dataset stays)."""
    context.require_session()
    collection = context.client.collection_remove(collection_id, dataset_id)
    context.output(collection, COLLECTION_COLUMNS, _collection_rows([collection]))


for command in access_commands("collection"):  # grants, share, unshare, visibility
    collections.add_command(command)


# -- pipelines ----------------------------------------------------------------------------

RUN_COLUMNS = ["RUN", "PIPELINE", "STATUS", "ROWS IN", "ROWS OUT", "OUTPUT", "ERROR"]


def _run_rows(run):
    return [
        [
            run["id"],
            run["pipeline_id"],
            run["status"],
            run["rows_in"] or "-",
            run["rows_out"] or "-",
            run["output_dataset_id"] or "-",
            run["error"] or "-",
        ]
    ]


@cli.group()
def pipelines():
    """List pipelines, preview steps and run pipelines; share them."""


@pipelines.command("list")
@click.option("--q", help="Name contains (any case).")
@sort_option
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@pass_context
def pipelines_list(context, q, sort, limit, offset):
    """List pipelines."""
    context.require_session()
    page = context.client.pipelines_list(q=q, sort=sort, limit=limit, offset=offset)
    context.output(
        page,
        ["ID", "NAME", "SOURCE", "OUTPUT NAME", "STEPS"],
        [
            [
                p["id"],
                p["name"],
                p["source_dataset_id"] or "-",
                p["output_dataset_name"],
                len(p["steps"]),
            ]
            for p in page["items"]
        ],
    )


@pipelines.command("run")
@click.argument("pipeline_id", type=int)
@click.option("--wait", is_flag=True, help="Wait until the run has finished.")
@click.option(
    "--poll",
    type=click.FloatRange(0.1),
    default=1.0,
    show_default=True,
    help="Seconds between checks while waiting.",
)
@pass_context
def pipelines_run(context, pipeline_id, wait, poll):
    """Start a run of PIPELINE_ID. With --wait, exit 0 only if it succeeded."""
    context.require_session()
    run = context.client.pipeline_run(pipeline_id)
    if wait:
        with click.progressbar(
            length=1,
            label=f"run {run['id']}",
            file=sys.stderr,
            hidden=not context.show_progress,
            item_show_func=lambda r: r and r["status"],
        ) as bar:
            run = context.client.run_wait(
                pipeline_id, run["id"], poll=poll, on_poll=lambda r: bar.update(0, r)
            )
            bar.update(1, run)
    context.output(run, RUN_COLUMNS, _run_rows(run))
    if wait and run["status"] != "succeeded":
        click.echo(f"Error: run {run['id']} {run['status']}: {run['error'] or '-'}", err=True)
        sys.exit(1)


for command in access_commands("pipeline"):  # grants, share, unshare, visibility
    pipelines.add_command(command)
pipelines.add_command(pipelines_trigger)  # cli_events.py
pipelines.add_command(pipelines_preview)  # cli_previews.py


main = cli  # the console script ``datahub`` (the entry point in pyproject.toml)
