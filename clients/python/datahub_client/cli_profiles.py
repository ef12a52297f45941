"""What a worker read of a version, from a shell (the service's docs: "Understand your
data"):

datahub datasets schema 7                 # the current version's columns, types, rows
datahub datasets profile 7 --version 2    # statistics per column
datahub datasets datapackage 7 -o datapackage.json
datahub datasets checks 7 --set checks.json   # what a new version must pass
datahub datasets check-results 7 3            # version 3's state and results
datahub datasets publish 7 3                  # publish a quarantined version anyway
"""

import json

import click

from datahub_client.cli_context import json_option, pass_context

SCHEMA_COLUMNS = ["NAME", "TYPE", "NULLABLE"]
PROFILE_COLUMNS = ["NAME", "TYPE", "NULLS", "DISTINCT", "MIN", "MAX", "MEAN", "TOP VALUES"]


def _version_option(command):
    command = click.option(
        "--version", "version", type=int, help="A version's number (default: the current one)."
    )(command)
    return click.option(
        "--wait",
        type=click.FloatRange(0),
        default=30,
        show_default=True,
        help="Seconds to wait for a worker to read a version made just now.",
    )(command)


def _short(value, width=24):
    if value is None:
        return "-"
    if isinstance(value, float):
        value = f"{value:.6g}"
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


@click.command("schema")
@click.argument("dataset_id", type=int)
@_version_option
@json_option
@pass_context
def datasets_schema(context, dataset_id, version, wait):
    """The columns of a version of DATASET_ID (their types, whether they hold a null) and
    its rows."""
    context.require_session()
    schema = context.client.dataset_schema(dataset_id, version, wait=wait)
    rows = [[c["name"], c["type"], "yes" if c["nullable"] else "no"] for c in schema["columns"]]
    context.output(schema, SCHEMA_COLUMNS, rows)
    if not context.as_json:
        click.echo(f"{schema['rows']} rows", err=True)


@click.command("profile")
@click.argument("dataset_id", type=int)
@_version_option
@json_option
@pass_context
def datasets_profile(context, dataset_id, version, wait):
    """Statistics of each column of a version of DATASET_ID: nulls, distinct values,
    range, mean and most frequent values."""
    context.require_session()
    profile = context.client.dataset_profile(dataset_id, version, wait=wait)
    if profile["status"] == "failed":
        if context.as_json:
            context.output(profile)
            return
        raise click.ClickException(f"not profiled: {profile['error']}")
    rows = [
        [
            c["name"],
            c["type"],
            f"{c['nulls']} ({c['null_fraction']:.1%})",
            _short(c["distinct"]),
            _short(c["min"]),
            _short(c["max"]),
            _short(c["mean"]),
            _short(", ".join(str(t["value"]) for t in c["top_values"] or []) or None, 40),
        ]
        for c in profile["columns"]
    ]
    context.output(profile, PROFILE_COLUMNS, rows)
    if not context.as_json:
        sample = " (quartiles from a sample)" if profile["partial"] else ""
        click.echo(f"{profile['rows']} rows{sample}", err=True)


@click.command("datapackage")
@click.argument("dataset_id", type=int)
@_version_option
@click.option(
    "-o", "--output", type=click.File("w", encoding="utf-8"), default="-", show_default=True
)
@pass_context
def datasets_datapackage(context, dataset_id, version, wait, output):
    """A version of DATASET_ID as a Frictionless Data Package (datapackage.json)."""
    context.require_session()
    package = context.client.dataset_data_package(dataset_id, version, wait=wait)
    output.write(json.dumps(package, indent=2) + "\n")


RESULT_COLUMNS = ["CHECK", "TYPE", "SEVERITY", "STATUS", "FAILING", "MESSAGE"]


@click.command("checks")
@click.argument("dataset_id", type=int)
@click.option(
    "--set",
    "source",
    type=click.File("r", encoding="utf-8"),
    help="Replace them with the JSON list in this file (- : stdin; [] removes them).",
)
@json_option
@pass_context
def datasets_checks(context, dataset_id, source):
    """The checks every new version of DATASET_ID must pass to be published."""
    context.require_session()
    if source is not None:
        try:
            checks = json.load(source)
        except ValueError as exc:
            raise click.ClickException(f"the checks are not JSON: {exc}") from None
        answer = context.client.dataset_checks_set(dataset_id, checks)
    else:
        answer = context.client.dataset_checks(dataset_id)
    rows = [
        [
            c["name"],
            c["type"],
            c["severity"],
            _short({k: v for k, v in c.items() if k not in ("name", "type", "severity")}, 60),
        ]
        for c in answer["checks"]
    ]
    context.output(answer, ["NAME", "TYPE", "SEVERITY", "SETTINGS"], rows)


@click.command("check-results")
@click.argument("dataset_id", type=int)
@click.argument("version", type=int)
@json_option
@pass_context
def datasets_check_results(context, dataset_id, version):
    """VERSION's state and the result of each check, with failing rows."""
    context.require_session()
    answer = context.client.dataset_version_checks(dataset_id, version)
    rows = [
        [r["name"], r["type"], r["severity"], r["status"], _short(r["failing_rows"]), r["message"]]
        for r in answer["results"]
    ]
    context.output(answer, RESULT_COLUMNS, rows)
    if not context.as_json:
        click.echo(f"Version {version}: {answer['state']}", err=True)


@click.command("publish")
@click.argument("dataset_id", type=int)
@click.argument("version", type=int)
@json_option
@pass_context
def datasets_publish(context, dataset_id, version):
    """Publish quarantined VERSION of DATASET_ID although its checks failed."""
    context.require_session()
    answer = context.client.dataset_version_publish(dataset_id, version)
    context.output(answer)
    if not context.as_json:
        click.echo(f"Published version {version} of dataset {dataset_id}")


PROFILE_COMMANDS = (
    datasets_schema,
    datasets_profile,
    datasets_datapackage,
    datasets_checks,
    datasets_check_results,
    datasets_publish,
)
