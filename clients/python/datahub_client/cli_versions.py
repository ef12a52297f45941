"""``datahub datasets versions|pin|unpin|restore|diff``: a dataset's versions from a shell.
Every upload (``datahub datasets upload ID PATH --message ...``), run output and restore is
a new, numbered version; ``datahub datasets download ID --version N`` fetches an older
one, ``datahub datasets diff ID FROM TO`` says what changed between two."""

import json
from datetime import datetime, timezone

import click

from datahub_client.cli_context import json_option, pass_context, print_table

VERSION_COLUMNS = ["VERSION", "CREATED", "FILE", "SIZE", "RUN", "PINNED", "STATE", "MESSAGE"]


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
            v.get("state", "published"),
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


def _key_columns(_ctx, _param, value):
    """``--key a,b`` as ["a", "b"]; an empty name is a usage error."""
    if value is None:
        return None
    columns = [name.strip() for name in value.split(",")]
    if not all(columns):
        raise click.BadParameter(f"{value!r} has an empty column name")
    return columns


def _cell(value):
    """A sample's value in a table: text as it is, unless empty or with a line break or a
    tab; null, true, false, lists and objects as JSON."""
    if isinstance(value, str):
        plain = value and not any(c in value for c in "\n\r\t")
        return value if plain else json.dumps(value, ensure_ascii=False)
    if value is None or isinstance(value, (bool, list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _rows_title(kind, shown, count):
    more = f" (the first {shown} of {count})" if shown < count else ""
    return f"{kind} rows{more}:"


def _print_diff(dataset_id, diff, key):
    match = f"rows matched by {', '.join(key)}" if key else "rows compared whole, no key"
    click.echo(f"Dataset {dataset_id}, version {diff['from']} -> version {diff['to']} ({match})")
    schema = diff["schema"]
    for kind in ("added", "removed"):
        if schema[kind]:
            names = ", ".join(f"{c['name']} ({c['type']})" for c in schema[kind])
            click.echo(f"Columns {kind}: {names}")
    if schema["changed"]:
        names = ", ".join(f"{c['name']} ({c['from']} -> {c['to']})" for c in schema["changed"])
        click.echo(f"Columns retyped: {names}")
    if not any(schema.values()):
        click.echo("Columns: no changes")
    counts = diff["rows"]
    click.echo(
        "Rows: "
        + ", ".join(f"{counts[k]} {k}" for k in ("added", "removed", "changed", "unchanged"))
    )
    columns, sample = diff["columns"], diff["sample"]
    for kind in ("added", "removed"):
        if sample[kind]:
            click.echo(f"\n{_rows_title(kind.capitalize(), len(sample[kind]), counts[kind])}")
            print_table(columns, [[_cell(v) for v in row] for row in sample[kind]])
    if sample["changed"]:
        click.echo(f"\n{_rows_title('Changed', len(sample['changed']), counts['changed'])}")
        rows = []
        for change in sample["changed"]:
            rows.append(["from"] + [_cell(v) for v in change["from"]])
            rows.append(["to"] + [_cell(v) for v in change["to"]])
        print_table(["", *columns], rows)
    _print_drift(diff.get("profile"))


def _print_drift(drift):
    """The columns whose statistics changed (the profiles' drift), if both are read."""
    if drift is None:
        click.echo("\nDrift: not known yet (a version is not profiled yet)")
        return
    rows = []
    for column in drift:
        changes = [
            f"{measure} {_measure(column[measure]['from'])} -> {_measure(column[measure]['to'])}"
            for measure in ("null_fraction", "distinct", "mean")
            if column[measure]["from"] != column[measure]["to"]
        ]
        changes += [f"new: {_cell(v)}" for v in column["new_values"][:3]]
        changes += [f"gone: {_cell(v)}" for v in column["missing_values"][:3]]
        if changes:
            rows.append([column["name"], "; ".join(changes)])
    click.echo("\nDrift:" if rows else "\nDrift: none")
    if rows:
        print_table(["COLUMN", "CHANGES"], rows)


def _measure(value):
    return f"{value:.4g}" if isinstance(value, float) else ("-" if value is None else str(value))


@click.command("diff")
@click.argument("dataset_id", type=int)
@click.argument("from_version", metavar="FROM", type=int)
@click.argument("to_version", metavar="TO", type=int)
@click.option(
    "--key",
    callback=_key_columns,
    help="Match rows by these columns (comma-separated: date,city); without, rows are "
    "compared whole.",
)
@json_option
@pass_context
def datasets_diff(context, dataset_id, from_version, to_version, key):
    """What changed from version FROM to version TO of DATASET_ID (a table): the columns
    added, removed and retyped, how many rows were added, removed, changed and unchanged,
    and up to 20 rows of each kind."""
    context.require_session()
    diff = context.client.dataset_diff(dataset_id, from_version, to_version, key=key)
    if context.as_json:
        context.output(diff)
    else:
        _print_diff(dataset_id, diff, key)


VERSION_COMMANDS = (
    datasets_versions,
    datasets_pin,
    datasets_unpin,
    datasets_restore,
    datasets_diff,
)
