"""Operator commands: ``flask --app datahub sessions ...``."""

import click
from flask.cli import with_appcontext

from datahub.identity import sessions


@click.group("sessions")
def sessions_cli():
    """Maintain the session records."""


@sessions_cli.command("purge")
@with_appcontext
def purge():
    """Delete expired refresh tokens, sessions and blocklist entries (safe from cron,
    also when two runs overlap)."""
    counts = sessions.purge_expired()
    click.echo(
        f"Purged {counts['refresh_tokens']} expired refresh tokens, "
        f"{counts['sessions']} expired sessions and "
        f"{counts['revoked_access_tokens']} expired blocklist entries"
    )
