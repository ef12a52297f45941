"""Operator commands: ``flask --app datahub groups ...``."""

import click
from flask.cli import with_appcontext

from datahub.app.extensions import db
from datahub.identity.group_models import GROUP_SOURCES
from datahub.identity.groups import services
from datahub.identity.users.commands import reports_errors
from datahub.identity.users.services import get_by_email


@click.group("groups")
def groups_cli():
    """Manage groups of users."""


@groups_cli.command("create")
@click.argument("name")
@click.option("--description", default="")
@click.option(
    "--source",
    type=click.Choice(GROUP_SOURCES),
    default="local",
    show_default=True,
    help="Who keeps the members: admins (local), or each LDAP or OIDC login.",
)
@with_appcontext
@reports_errors
def create(name, description, source):
    """Create a group."""
    group = services.create_group(name=name, description=description, source=source)
    click.echo(f"Created group {group.name} ({group.source}) id={group.id}")


@groups_cli.command("list")
@with_appcontext
def list_groups():
    """List every group."""
    groups = db.session.scalars(services.groups_query({})).all()
    click.echo(f"{'ID':>6} {'NAME':32} {'SOURCE':6} {'MEMBERS':>7} DESCRIPTION")
    for group in groups:
        click.echo(
            f"{group.id:>6} {group.name[:32]:32} {group.source:6} "
            f"{len(group.member_ids):>7} {group.description[:60]}"
        )


@groups_cli.command("delete")
@click.argument("name")
@with_appcontext
@reports_errors
def delete(name):
    """Delete a group, with its memberships and the grants to it."""
    group = services.get_by_name(name)
    services.delete_group(group)
    click.echo(f"Deleted group {group.name}")


@groups_cli.command("add-member")
@click.argument("name")
@click.argument("email")
@with_appcontext
@reports_errors
def add_member(name, email):
    """Add a user to a local group (idempotent)."""
    group = services.get_by_name(name)
    user = get_by_email(email)
    services.add_member(group, user.id)
    click.echo(f"{user.email} is a member of {group.name}")


@groups_cli.command("remove-member")
@click.argument("name")
@click.argument("email")
@with_appcontext
@reports_errors
def remove_member(name, email):
    """Remove a user from a local group (idempotent)."""
    group = services.get_by_name(name)
    user = get_by_email(email)
    services.remove_member(group, user.id)
    click.echo(f"{user.email} is not a member of {group.name}")
