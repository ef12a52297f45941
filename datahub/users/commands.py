"""Operator commands: ``flask --app datahub users ...``."""
import functools

import click
from flask.cli import with_appcontext

from datahub.errors import APIError
from datahub.extensions import db
from datahub.identity.models import ROLES, User
from datahub.users import services


def _fail(error):
    detail = error.detail
    if isinstance(detail, list):
        detail = "; ".join(f"{item['loc'][-1]}: {item['msg']}" for item in detail)
    raise click.ClickException(detail)


def _reports_errors(command):
    """The service's errors end the command with their detail (exit status 1)."""

    @functools.wraps(command)
    def reporting(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except APIError as error:
            _fail(error)

    return reporting


_role_option = click.option(
    "--role", "roles", multiple=True, type=click.Choice(ROLES),
    help="A role (repeat for several).",
)
_password_option = click.option(
    "--password", envvar="DATAHUB_PASSWORD", prompt=True, hide_input=True,
    confirmation_prompt=True, help="Read from DATAHUB_PASSWORD or a prompt when not given.",
)


@click.group("users")
def users_cli():
    """Manage user accounts."""


def _user_command(name):
    """A command on the user whose email is its argument: ``function(user, **options)``."""

    def decorator(function):
        @users_cli.command(name)
        @click.argument("email")
        @with_appcontext
        @_reports_errors
        @functools.wraps(function)
        def command(email, **options):
            return function(services.get_by_email(email), **options)

        return command

    return decorator


@users_cli.command("create")
@click.option("--email", required=True)
@_password_option
@click.option("--name", default="")
@_role_option
@with_appcontext
@_reports_errors
def create(email, password, name, roles):
    """Create a local user (role viewer unless --role is given)."""
    user = services.create_user(email=email, password=password, name=name,
                                roles=list(roles) or ["viewer"])
    click.echo(f"Created {user.email} ({', '.join(user.roles)}) id={user.id}")


@users_cli.command("list")
@with_appcontext
def list_users():
    """List every user."""
    users = db.session.scalars(db.select(User).order_by(User.created_at, User.email)).all()
    click.echo(f"{'EMAIL':32} {'NAME':20} {'ROLES':22} {'ACTIVE':6} {'PROVIDER':8} CREATED")
    for user in users:
        click.echo(
            f"{user.email:32} {user.name[:20]:20} {','.join(user.roles):22} "
            f"{'yes' if user.is_active else 'no':6} {user.provider:8} "
            f"{user.created_at.isoformat(timespec='seconds')}"
        )


@_user_command("set-roles")
@click.option("--role", "roles", multiple=True, required=True, type=click.Choice(ROLES),
              help="A role (repeat for several).")
def set_roles(user, roles):
    """Replace a user's roles."""
    services.set_roles(user, roles)
    click.echo(f"{user.email}: {', '.join(user.roles)}")


@_user_command("deactivate")
def deactivate(user):
    """Deactivate a user and end their sessions."""
    services.set_active(user, False)
    click.echo(f"Deactivated {user.email}")


@_user_command("activate")
def activate(user):
    """Activate a user again."""
    services.set_active(user, True)
    click.echo(f"Activated {user.email}")


@_user_command("set-password")
@_password_option
def set_password(user, password):
    """Set a local user's password and end their sessions (a user of an identity
    provider, such as LDAP, changes it there)."""
    services.set_password(user, password)
    click.echo(f"Password changed for {user.email}; their sessions were ended")
