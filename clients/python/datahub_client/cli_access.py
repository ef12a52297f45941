"""Who may see and change a dataset, collection or pipeline, from a shell:

    datahub datasets visibility 7 internal          # every user may read it
    datahub datasets share 7 --user bob@example.com --permission write
    datahub datasets share 7 --group analysts       # read, by default
    datahub datasets grants 7                       # who besides its owner
    datahub datasets unshare 7 12                   # revoke grant 12

and the same under ``collections`` and ``pipelines``; ``datahub groups list``. Only the
owner (an editor) or an admin sees and changes grants and visibility."""

import re

import click

from datahub_client.access import PERMISSIONS, VISIBILITIES, group_principal, user_principal
from datahub_client.cli_context import json_option, pass_context
from datahub_client.cli_versions import _when

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
GRANT_COLUMNS = ["ID", "PRINCIPAL", "PERMISSION", "CREATED"]

visibility_option = click.option(
    "--visibility",
    type=click.Choice(VISIBILITIES),
    help="private: its owner, grantees and admins; internal: every user (default: the service's).",
)


def _grant_rows(items):
    return [[g["id"], g["principal"], g["permission"], _when(g["created_at"])] for g in items]


def user_principal_of(client, user):
    """A user's principal from ``user``: an id, ``me``, or an email (the service keeps
    the user's id in the grant)."""
    if UUID.match(user):
        return user_principal(user.lower())
    if user == "me":
        return user_principal(client.me()["id"])
    return user_principal(user.strip())


def group_id_of(client, group):
    """A group's id from ``group``: its id or its name."""
    if group.isdigit():
        return int(group)
    found = [g for g in client.groups_iter() if g["name"] == group]
    if not found:
        raise click.ClickException(f"No group {group}")
    return found[0]["id"]


def access_commands(kind):
    """``grants``, ``share``, ``unshare`` and ``visibility`` for ``kind`` (``dataset``,
    ``collection`` or ``pipeline``), to add to its group."""
    id_name = f"{kind}_id"
    id_arg = click.argument(id_name, type=int)
    shown = id_name.upper()

    @click.command("grants")
    @id_arg
    @click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
    @click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
    @json_option
    @pass_context
    def grants(context, limit, offset, **ids):
        context.require_session()
        page = context.client.grants_list(kind, ids[id_name], limit=limit, offset=offset)
        context.output(page, GRANT_COLUMNS, _grant_rows(page["items"]))

    grants.help = f"List who besides its owner may read or change {shown} (its grants)."

    @click.command("share")
    @id_arg
    @click.option("--user", help='A user\'s email, id, or "me".')
    @click.option("--group", help="A group's name or id.")
    @click.option(
        "--permission",
        type=click.Choice(PERMISSIONS),
        default="read",
        show_default=True,
        help="read: get, list, download; write: read and change.",
    )
    @json_option
    @pass_context
    def share(context, user, group, permission, **ids):
        if (user is None) == (group is None):
            raise click.UsageError("Give one of --user or --group")
        context.require_session()
        client = context.client
        principal = (
            user_principal_of(client, user)
            if user is not None
            else group_principal(group_id_of(client, group))
        )
        grant = client.grant_add(kind, ids[id_name], principal, permission)
        context.output(grant, GRANT_COLUMNS, _grant_rows([grant]))

    share.help = (
        f"Let a user or every member of a group read (or, with --permission write, also "
        f"change) {shown}. A principal holds one grant: unshare it to change it."
    )

    @click.command("unshare")
    @id_arg
    @click.argument("grant_id", type=int)
    @json_option
    @pass_context
    def unshare(context, grant_id, **ids):
        context.require_session()
        context.client.grant_remove(kind, ids[id_name], grant_id)
        context.output({"revoked": grant_id, id_name: ids[id_name]})
        if not context.as_json:
            click.echo(f"Revoked grant {grant_id} of {kind} {ids[id_name]}")

    unshare.help = f"Revoke GRANT_ID (see: grants {shown}) of {shown}."

    @click.command("visibility")
    @id_arg
    @click.argument("visibility", type=click.Choice(VISIBILITIES))
    @json_option
    @pass_context
    def visibility(context, visibility, **ids):
        context.require_session()
        row = context.client.visibility_set(kind, ids[id_name], visibility)
        context.output(row)
        if not context.as_json:
            click.echo(f"{kind.capitalize()} {row['id']} is {row['visibility']}")

    visibility.help = (
        f"Make {shown} private (its owner, grantees and admins) or internal (every user)."
    )

    return [grants, share, unshare, visibility]


@click.group()
def groups():
    """The groups (to share with: datahub datasets share ID --group NAME)."""


@groups.command("list")
@json_option
@pass_context
def groups_list(context):
    """List every group."""
    context.require_session()
    items = list(context.client.groups_iter())
    context.output(
        {"items": items, "total": len(items)},
        ["ID", "NAME", "MEMBERS", "SOURCE", "DESCRIPTION"],
        [
            [g["id"], g["name"], len(g["member_ids"]), g["source"], g["description"] or "-"]
            for g in items
        ],
    )


@click.group()
def users():
    """Other users: who they are (to share with: datahub datasets share ID --user EMAIL)."""


@users.command("find")
@click.argument("text")
@click.option("--limit", type=click.IntRange(1, 20), default=20, show_default=True)
@json_option
@pass_context
def users_find(context, text, limit):
    """Active users whose name or email contains TEXT (those that start with it first)."""
    page = context.client.users_find(text, limit=limit)
    context.output(
        page, ["ID", "NAME", "EMAIL"], [[u["id"], u["name"], u["email"]] for u in page["items"]]
    )
