"""Operator commands: ``flask --app datahub users ...``."""

import functools
import os

import click
from flask.cli import with_appcontext

from datahub.app.extensions import db
from datahub.identity.models import ROLES, User
from datahub.identity.users import services
from datahub.platform.errors import DomainError, InvalidValues
from datahub.web.validation import pydantic_errors


def _fail(error):
    detail = error.message
    if isinstance(error, InvalidValues):
        detail = "; ".join(
            f"{item['loc'][-1]}: {item['msg']}" for item in pydantic_errors(error.messages)
        )
    raise click.ClickException(detail)


def reports_errors(command):
    """The service's errors end the command with their detail (exit status 1)."""

    @functools.wraps(command)
    def reporting(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except DomainError as error:
            _fail(error)

    return reporting


_role_option = click.option(
    "--role",
    "roles",
    multiple=True,
    type=click.Choice(ROLES),
    help="A role (repeat for several).",
)
# Read only when --password-from-env asks for it: the client CLI (``datahub login``) takes
# its password from this variable too, and one exported for it must not silently become
# the password of every user created or changed here.
PASSWORD_ENV = "DATAHUB_PASSWORD"


def _takes_password(command):
    """``--password``, ``--password-from-env`` or else a hidden prompt (asked twice): the
    command receives ``password``."""

    @click.option("--password", help="The password (else a hidden prompt asks for it).")
    @click.option(
        "--password-from-env",
        is_flag=True,
        help=f"Read the password from the {PASSWORD_ENV} environment variable.",
    )
    @functools.wraps(command)
    def reading(*args, password, password_from_env, **kwargs):
        return command(*args, password=_password(password, password_from_env), **kwargs)

    return reading


def _password(given, from_env):
    if from_env:
        if given is not None:
            raise click.UsageError("--password and --password-from-env exclude each other")
        value = os.environ.get(PASSWORD_ENV)
        if not value:
            raise click.ClickException(
                f"{PASSWORD_ENV} is not set or empty (--password-from-env reads it)"
            )
        return value
    if given is not None:
        return given
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


@click.group("users")
def users_cli():
    """Manage user accounts."""


def _user_command(name):
    """A command on the user whose email is its argument: ``function(user, **options)``."""

    def decorator(function):
        @users_cli.command(name)
        @click.argument("email")
        @with_appcontext
        @reports_errors
        @functools.wraps(function)
        def command(email, **options):
            return function(services.get_by_email(email), **options)

        return command

    return decorator


@users_cli.command("create")
@click.option("--email", required=True)
@_takes_password
@click.option("--name", default="")
@_role_option
@with_appcontext
@reports_errors
def create(email, password, name, roles):
    """Create a local user (role viewer unless --role is given)."""
    user = services.create_user(
        email=email, password=password, name=name, roles=list(roles) or ["viewer"]
    )
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
@click.option(
    "--role",
    "roles",
    multiple=True,
    required=True,
    type=click.Choice(ROLES),
    help="A role (repeat for several).",
)
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
@_takes_password
def set_password(user, password):
    """Set a local user's password and end their sessions (a user of an identity
    provider, such as LDAP, changes it there)."""
    services.set_password(user, password)
    click.echo(f"Password changed for {user.email}; their sessions were ended")
