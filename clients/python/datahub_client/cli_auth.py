"""``datahub login|logout|whoami`` and ``datahub tokens create|list|revoke``: who the
command acts as. A login keeps the refresh cookie in the session file; ``login --token``
keeps a personal access token there instead (read from a hidden prompt or stdin, never
from the command line, where ``ps`` and the shell's history would show it), and
``DATAHUB_TOKEN``, when set, is used before either."""

import os
import sys

import click

from datahub_client.cli_context import json_option, pass_context
from datahub_client.cli_versions import _when
from datahub_client.errors import DatahubError, UnreachableError

TOKEN_PREFIX = "dhp_"


def _read_token():
    """The token from a hidden prompt on a terminal, else the first line of stdin."""
    if sys.stdin is not None and sys.stdin.isatty():
        token = click.prompt("Personal access token", hide_input=True, err=True)
    else:
        token = sys.stdin.readline() if sys.stdin is not None else ""
    token = token.strip()
    if not token:
        raise click.UsageError("No token given (on stdin or at the prompt)")
    if not token.startswith(TOKEN_PREFIX):
        raise click.UsageError(f"A personal access token starts with {TOKEN_PREFIX}")
    return token


def _end_login_session(client):
    if client.refresh_cookie:  # logged in already: end that session first
        try:
            client.logout()
        except UnreachableError:
            raise  # the login would fail the same way: say so now
        except DatahubError:
            pass  # already over: the new login replaces the file anyway


@click.command()
@click.option("--email", envvar="DATAHUB_EMAIL", help="Also DATAHUB_EMAIL.")
@click.option(
    "--token",
    "use_token",
    is_flag=True,
    help="With a personal access token (from a hidden prompt or stdin) instead of a password.",
)
@pass_context
def login(context, email, use_token):
    """Log in: with --email (the password from DATAHUB_PASSWORD or a hidden prompt), or
    with --token (a personal access token, kept in the session file; DATAHUB_TOKEN, when
    set, is used instead of anything kept)."""
    client = context.client
    if use_token:
        token = _read_token()
        client.token = client.access_token = token  # checked before anything is kept
        user = client.me()
        client.token = client.access_token = None  # the old session ends with its cookie
        _end_login_session(client)
        client.token = client.access_token = token
        context.session.save_token(context.url, token)
    else:
        if not email:
            raise click.UsageError("Missing option '--email' (or DATAHUB_EMAIL), or --token")
        password = os.environ.get("DATAHUB_PASSWORD")
        if password is None:
            password = click.prompt("Password", hide_input=True, err=True)
        client.token = None
        _end_login_session(client)
        client.login(email, password)
        user = client.me()
    context.output(user)
    if not context.as_json:
        how = " with a personal access token" if use_token else ""
        click.echo(f"Logged in to {context.url} as {user['email']}{how}")


@click.command()
@pass_context
def logout(context):
    """Log out: the session ends on the service and the session file is removed. A
    personal access token is forgotten here, and stays valid until revoked."""
    if context.token_from_env:
        raise click.ClickException("DATAHUB_TOKEN is set: unset it to stop using that token")
    client = context.client
    if client.token or client.refresh_cookie:
        body = client.logout()
    else:
        body = {"message": "Not logged in"}
    context.session.clear()
    context.output(body)
    if not context.as_json:
        click.echo(body["message"])


@click.command()
@pass_context
def whoami(context):
    """The logged-in user."""
    context.require_session()
    user = context.client.users_me()
    context.output(
        user,
        ["EMAIL", "NAME", "ROLES", "ID"],
        [[user["email"], user["name"], ",".join(user["roles"]), user["id"]]],
    )


# -- personal access tokens ---------------------------------------------------------------

TOKEN_COLUMNS = ["ID", "NAME", "SCOPES", "CREATED", "EXPIRES", "LAST USED"]


def _token_rows(items):
    return [
        [
            t["id"],
            t["name"],
            ",".join(t["scopes"]),
            _when(t["created_at"]),
            _when(t["expires_at"]) if t.get("expires_at") else "never",
            _when(t["last_used_at"]) if t.get("last_used_at") else "-",
        ]
        for t in items
    ]


@click.group()
def tokens():
    """Create, list and revoke personal access tokens (for scripts: DATAHUB_TOKEN, or
    datahub login --token)."""


@tokens.command("create")
@click.argument("name")
@click.option("--read-only", is_flag=True, help='Scope "read" only: GET requests alone.')
@click.option(
    "--days",
    type=click.IntRange(1, 365),
    help="Expires after this many days (the service's default: 30).",
)
@json_option
@pass_context
def tokens_create(context, name, read_only, days):
    """Create a token called NAME and print its secret: this once, never again. Needs a
    login with a password (a token cannot make tokens)."""
    context.require_session()
    created = context.client.tokens_create(
        name, scopes=["read"] if read_only else ["read", "write"], expires_in_days=days
    )
    if context.as_json:
        context.output(created)
        return
    click.echo(created["token"])
    click.echo(
        f"Token {created['id']} ({','.join(created['scopes'])}), expires "
        f"{_when(created['expires_at']) if created.get('expires_at') else 'never'}. "
        "Copy it now: it will not be shown again.",
        err=True,
    )


@tokens.command("list")
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@json_option
@pass_context
def tokens_list(context, limit, offset):
    """List your tokens (never their secrets)."""
    context.require_session()
    page = context.client.tokens_list(limit=limit, offset=offset)
    context.output(page, TOKEN_COLUMNS, _token_rows(page["items"]))


@tokens.command("revoke")
@click.argument("token_id")
@json_option
@pass_context
def tokens_revoke(context, token_id):
    """Revoke TOKEN_ID: requests sent with it are refused from now on."""
    context.require_session()
    context.client.token_revoke(token_id)
    context.output({"revoked": token_id})
    if not context.as_json:
        click.echo(f"Revoked token {token_id}")


AUTH_COMMANDS = [login, logout, whoami, tokens]
