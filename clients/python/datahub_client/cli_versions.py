"""``datahub datasets versions|pin|unpin|restore``: a dataset's versions from a shell. Every
upload (``datahub datasets upload ID PATH --message ...``), run output and restore is a new,
numbered version; ``datahub datasets download ID --version N`` fetches an older one."""

from datetime import datetime, timezone

import click

from datahub_client.cli_context import pass_context

VERSION_COLUMNS = ["VERSION", "CREATED", "FILE", "SIZE", "RUN", "PINNED", "MESSAGE"]


def _when(text):
    """An ISO 8601 time with its zone as UTC to the second (2026-11-25T18:00:00Z); any
    other text as it is."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is None:
        return text
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _version_rows(items):
    return [
        [
            v["version"],
            _when(v["created_at"]),
            v["filename"],
            f"{v['size_bytes']} B",
            v["run_id"] or "-",
            "yes" if v["pinned"] else "-",
            v["message"] or "-",
        ]
        for v in items
    ]


@click.command("versions")
@click.argument("dataset_id", type=int)
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@pass_context
def datasets_versions(context, dataset_id, limit, offset):
    """List the versions of DATASET_ID, newest (the current one) first."""
    context.require_session()
    page = context.client.dataset_versions_list(dataset_id, limit=limit, offset=offset)
    context.output(page, VERSION_COLUMNS, _version_rows(page["items"]))
    if not context.as_json:
        click.echo(f"{len(page['items'])} of {page['total']} (offset {page['offset']})", err=True)


def _set_pinned(context, dataset_id, version, pinned, message):
    context.require_session()
    changes = {"pinned": pinned}
    if message is not None:
        changes["message"] = message
    row = context.client.dataset_version_update(dataset_id, version, **changes)
    context.output(row, VERSION_COLUMNS, _version_rows([row]))


@click.command("pin")
@click.argument("dataset_id", type=int)
@click.argument("version", type=int)
@click.option("--message", help="Also set the version's note.")
@pass_context
def datasets_pin(context, dataset_id, version, message):
    """Pin VERSION of DATASET_ID: retention (VERSIONS_KEEP) keeps it."""
    _set_pinned(context, dataset_id, version, True, message)


@click.command("unpin")
@click.argument("dataset_id", type=int)
@click.argument("version", type=int)
@click.option("--message", help="Also set the version's note.")
@pass_context
def datasets_unpin(context, dataset_id, version, message):
    """Unpin VERSION of DATASET_ID: retention may remove it again."""
    _set_pinned(context, dataset_id, version, False, message)


@click.command("restore")
@click.argument("dataset_id", type=int)
@click.argument("version", type=int)
@click.option("--message", help='The new version\'s note (default: "Restored from version N").')
@pass_context
def datasets_restore(context, dataset_id, version, message):
    """Make VERSION of DATASET_ID current again: a new version with its content (no bytes
    are copied); the versions in between are kept."""
    context.require_session()
    row = context.client.dataset_version_restore(dataset_id, version, message=message)
    context.output(row, VERSION_COLUMNS, _version_rows([row]))


VERSION_COMMANDS = (datasets_versions, datasets_pin, datasets_unpin, datasets_restore)
