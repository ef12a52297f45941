"""Operator commands: ``flask --app datahub users ...``."""
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


def _run(action, *args, **kwargs):
    try:
        return action(*args, **kwargs)
    except APIError as error:
        _fail(error)


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


@users_cli.command("create")
@click.option("--email", required=True)
@_password_option
@click.option("--name", default="")
@_role_option
@with_appcontext
def create(email, password, name, roles):
    """Create a local user (role viewer unless --role is given)."""
    user = _run(services.create_user, email=email, password=password, name=name,
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


@users_cli.command("set-roles")
@click.argument("email")
@click.option("--role", "roles", multiple=True, required=True, type=click.Choice(ROLES),
              help="A role (repeat for several).")
@with_appcontext
def set_roles(email, roles):
    """Replace a user's roles."""
    user = _run(services.get_by_email, email)
    _run(services.set_roles, user, roles)
    click.echo(f"{user.email}: {', '.join(user.roles)}")


@users_cli.command("deactivate")
@click.argument("email")
@with_appcontext
def deactivate(email):
    """Deactivate a user and end their sessions."""
    user = _run(services.get_by_email, email)
    _run(services.set_active, user, False)
    click.echo(f"Deactivated {user.email}")


@users_cli.command("activate")
@click.argument("email")
@with_appcontext
def activate(email):
    """Activate a user again."""
    user = _run(services.get_by_email, email)
    _run(services.set_active, user, True)
    click.echo(f"Activated {user.email}")


@users_cli.command("set-password")
@click.argument("email")
@_password_option
@with_appcontext
def set_password(email, password):
    """Set a user's password and end their sessions."""
    user = _run(services.get_by_email, email)
    _run(services.set_password, user, password)
    click.echo(f"Password changed for {user.email}; their sessions were ended")
