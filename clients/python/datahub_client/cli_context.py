"""What every subcommand of the ``datahub`` command shares: the ``Context`` (the client,
its session file, the output as a table or JSON), the progress bars, and ``Main``, which
turns every failure into one ``Error: ...`` line."""

import errno
import json
import os
import sys

import click

from datahub_client.api import Client
from datahub_client.errors import AuthenticationError, DatahubError, UnreachableError
from datahub_client.session import SessionFile


class Context:
    def __init__(self, url, as_json):
        self.url = url.rstrip("/")
        self.as_json = as_json
        # Progress bars go to stderr, and only to a terminal: never into a file or a pipe.
        self.show_progress = not as_json and sys.stderr is not None and sys.stderr.isatty()
        self.session = SessionFile()
        cookie_name, refresh_token = self.session.load(self.url)
        # A personal access token: $DATAHUB_TOKEN first, else the one ``login --token`` kept.
        self.token_from_env = bool(os.environ.get("DATAHUB_TOKEN"))
        token = os.environ.get("DATAHUB_TOKEN") or self.session.load_token(self.url)
        self.client = Client(
            self.url,
            token=token or None,
            refresh_token=refresh_token,
            refresh_cookie_name=cookie_name or "__Secure-refresh_token",
            on_refresh_cookie=lambda name, value: self.session.save(self.url, name, value),
        )

    def require_session(self):
        """Without a session or a token: "Not logged in" only if the service answers at
        all (any answer will do); one that cannot be reached says so (``UnreachableError``)."""
        if not self.client.refresh_cookie and not self.client.token:
            try:
                self.client.request("GET", "/healthz", authenticated=False)
            except UnreachableError:
                raise
            except DatahubError:
                pass
            raise AuthenticationError(401, f"Not logged in to {self.url}; run: datahub login")

    def output(self, data, columns=None, rows=None):
        """JSON with --json; otherwise a plain table of ``columns`` over ``rows``."""
        if self.as_json:
            click.echo(json.dumps(data, indent=2))
        elif columns:
            print_table(columns, rows)

    def progress(self, label, total):
        return Progress(label, total, hidden=not self.show_progress)


def print_table(columns, rows):
    """A plain table: ``columns`` (the titles) over ``rows``, each column as wide as its
    widest cell, two spaces apart."""
    table = [[str(cell) for cell in row] for row in rows]
    widths = [max([len(title)] + [len(row[i]) for row in table]) for i, title in enumerate(columns)]
    for row in [columns, *table]:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
        click.echo(line.rstrip())


def json_option(command):
    """``--json`` after a subcommand too (``datahub datasets diff 1 1 2 --json``), as
    ``datahub --json ...`` before it."""

    def as_json(ctx, _param, value):
        if value:
            context = ctx.find_object(Context)
            context.as_json, context.show_progress = True, False
        return value

    return click.option(
        "--json",
        is_flag=True,
        expose_value=False,
        callback=as_json,
        help="Machine-readable JSON output (as: datahub --json ...).",
    )(command)


class Progress:
    """A click progress bar (on stderr) fed by the client's ``(done, total)`` callback;
    it appears with the first chunk, so an error answer prints nothing but the error.
    ``hidden``: nothing at all, not even the label."""

    def __init__(self, label, total, hidden=False):
        self.label, self.total, self.hidden = label, total, hidden
        self.bar, self.done = None, 0

    def __enter__(self):
        return self

    def __call__(self, done, total):
        if self.hidden:
            return
        if self.bar is None:
            self.bar = click.progressbar(
                length=total or self.total or 0, label=self.label, file=sys.stderr, show_pos=True
            )
            self.bar.__enter__()
        if done > self.done:
            self.bar.update(done - self.done)
        self.done = done

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)


class Main(click.Group):
    """Every failure is ``Error: ...`` on stderr and exit status 1, never a traceback: a
    service error says its detail, an OSError its file and reason (``path: reason``)."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except DatahubError as error:
            click.echo(f"Error: {error.message}", err=True)
            if isinstance(error, AuthenticationError) and "datahub login" not in error.message:
                click.echo("Log in with: datahub login", err=True)
        except OSError as error:
            if error.errno == errno.EPIPE:
                raise  # the reader of stdout is gone (``| head``): click ends quietly
            reason = error.strerror or str(error)
            click.echo(
                f"Error: {error.filename}: {reason}"
                if error.filename is not None
                else f"Error: {reason}",
                err=True,
            )
        except Exception as error:
            click.echo(f"Error: unexpected {type(error).__name__}: {error}", err=True)
        ctx.exit(1)


pass_context = click.make_pass_decorator(Context)
