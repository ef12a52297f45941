"""What changed, from a shell (the service's docs: "Events"):

datahub events list --after 120                 # what happened after event 120
datahub events tail --type datahub.run.failed   # new events as they happen (Ctrl-C)
datahub webhooks create https://hooks.example.com/x --type datahub.dataset.version.created
datahub webhooks list | deliveries 3 | redeliver 3 41 | ping 3 | enable 3 | delete 3
"""

import json

import click

from datahub_client.cli_context import json_option, pass_context
from datahub_client.cli_versions import _when
from datahub_client.events import NEWEST

EVENT_COLUMNS = ["ID", "TYPE", "SOURCE", "TIME"]
WEBHOOK_COLUMNS = ["ID", "URL", "TYPES", "DATASET", "ACTIVE", "FAILURES"]
DELIVERY_COLUMNS = ["ID", "EVENT", "TYPE", "STATUS", "ATTEMPTS", "ANSWER", "MS", "ERROR"]

type_option = click.option("--type", "type_", help="Only events of this type.")
dataset_option = click.option(
    "--dataset", "dataset_id", type=int, help="Only events about this dataset."
)


def _event_row(event):
    return [event["id"], event["type"], event["source"], _when(event["time"])]


@click.group()
def events():
    """What changed: datasets, versions, pipelines and runs (what you may read)."""


@events.command("list")
@click.option("--after", type=click.IntRange(0), default=0, show_default=True, help="An event id.")
@click.option("--before", type=click.IntRange(1), help="Newest first, before this event id.")
@click.option("--newest", is_flag=True, help="Newest first, from the latest event.")
@type_option
@dataset_option
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
@json_option
@pass_context
def events_list(context, after, before, newest, type_, dataset_id, limit):
    """List the events after event AFTER, oldest first (next page: --after NEXT_AFTER), or
    with --newest / --before newest first (next page: --before NEXT_BEFORE)."""
    context.require_session()
    if newest and before is None:
        before = NEWEST
    page = context.client.events_list(
        after=after, before=before, type=type_, dataset_id=dataset_id, limit=limit
    )
    context.output(page, EVENT_COLUMNS, [_event_row(e) for e in page["items"]])
    if context.as_json:
        return
    if before is None:
        click.echo(f"next: --after {page['next_after']}", err=True)
    elif page.get("next_before"):
        click.echo(f"next: --before {page['next_before']}", err=True)


@events.command("tail")
@click.option("--after", type=click.IntRange(0), help="Start after this event id (default: now).")
@type_option
@dataset_option
@json_option
@pass_context
def events_tail(context, after, type_, dataset_id):
    """Print events as they happen, until Ctrl-C: one line each, or with --json one
    CloudEvent per line. From the live stream, which resumes by itself after a broken
    connection; resume a stopped tail with --after the last id printed."""
    context.require_session()
    try:
        for event in context.client.events_stream(after=after, type=type_, dataset_id=dataset_id):
            if context.as_json:
                click.echo(json.dumps(event))
            else:
                click.echo("  ".join(str(value) for value in _event_row(event)))
    except KeyboardInterrupt:
        pass


@click.group()
def webhooks():
    """Your webhooks: the events POSTed to a URL, signed (editors and admins)."""


def _webhook_row(w):
    types = ",".join(w["event_types"]) or "all"
    return [
        w["id"],
        w["url"],
        types,
        w["dataset_id"] or "-",
        "yes" if w["active"] else "no",
        w["failures"],
    ]


@webhooks.command("create")
@click.argument("url")
@click.option(
    "--type", "types", multiple=True, help="An event type to send (repeat; default: all)."
)
@dataset_option
@click.option("--inactive", is_flag=True, help="Make it off (ping it, then: enable).")
@json_option
@pass_context
def webhooks_create(context, url, types, dataset_id, inactive):
    """Make a webhook to URL; prints its signing secret, shown only this once."""
    context.require_session()
    webhook = context.client.webhook_create(
        url, event_types=types, dataset_id=dataset_id, active=not inactive
    )
    context.output(webhook, WEBHOOK_COLUMNS, [_webhook_row(webhook)])
    if not context.as_json:
        click.echo(f"secret (shown once): {webhook['secret']}")


@webhooks.command("list")
@json_option
@pass_context
def webhooks_list(context):
    """List your webhooks."""
    context.require_session()
    items = list(context.client.webhooks_iter())
    context.output(
        {"items": items, "total": len(items)}, WEBHOOK_COLUMNS, [_webhook_row(w) for w in items]
    )


@webhooks.command("deliveries")
@click.argument("webhook_id", type=int)
@click.option("--limit", type=click.IntRange(1, 100), default=20, show_default=True)
@json_option
@pass_context
def webhooks_deliveries(context, webhook_id, limit):
    """List WEBHOOK_ID's messages, newest first."""
    context.require_session()
    page = context.client.webhook_deliveries(webhook_id, limit=limit)
    rows = [
        [
            d["id"],
            d["event_id"] or "ping",
            d["event_type"],
            d["status"],
            d["attempts"],
            d["response_status"] or "-",
            d["duration_ms"] or "-",
            d["error"] or "-",
        ]
        for d in page["items"]
    ]
    context.output(page, DELIVERY_COLUMNS, rows)


@webhooks.command("redeliver")
@click.argument("webhook_id", type=int)
@click.argument("delivery_id", type=int)
@json_option
@pass_context
def webhooks_redeliver(context, webhook_id, delivery_id):
    """Send message DELIVERY_ID of WEBHOOK_ID again."""
    context.require_session()
    delivery = context.client.webhook_redeliver(webhook_id, delivery_id)
    context.output(delivery)
    if not context.as_json:
        click.echo(f"Message {delivery['id']} will be sent again")


@webhooks.command("ping")
@click.argument("webhook_id", type=int)
@json_option
@pass_context
def webhooks_ping(context, webhook_id):
    """Send WEBHOOK_ID a datahub.webhook.ping message (also when it is off)."""
    context.require_session()
    delivery = context.client.webhook_ping(webhook_id)
    context.output(delivery)
    if not context.as_json:
        click.echo(f"Ping queued as message {delivery['id']}")


def _switch(active):
    @click.argument("webhook_id", type=int)
    @json_option
    @pass_context
    def switch(context, webhook_id):
        context.require_session()
        webhook = context.client.webhook_update(webhook_id, active=active)
        context.output(webhook, WEBHOOK_COLUMNS, [_webhook_row(webhook)])

    return switch


webhooks.command("enable", help="Turn WEBHOOK_ID on (again), clearing its failures.")(_switch(True))
webhooks.command("disable", help="Turn WEBHOOK_ID off: its messages wait.")(_switch(False))


@webhooks.command("delete")
@click.argument("webhook_id", type=int)
@json_option
@pass_context
def webhooks_delete(context, webhook_id):
    """Delete WEBHOOK_ID and its messages."""
    context.require_session()
    context.client.webhook_delete(webhook_id)
    context.output({"deleted": webhook_id})
    if not context.as_json:
        click.echo(f"Deleted webhook {webhook_id}")


@click.command("trigger")
@click.argument("pipeline_id", type=int)
@click.option("--on-new-version", is_flag=True, help="Run on each new version of an input.")
@click.option("--cron", help='Run on a schedule: five cron fields, such as "0 3 * * *".')
@click.option("--timezone", default="UTC", show_default=True, help="The schedule's time zone.")
@click.option("--none", "no_trigger", is_flag=True, help="Only run when asked.")
@json_option
@pass_context
def pipelines_trigger(context, pipeline_id, on_new_version, cron, timezone, no_trigger):
    """Set what starts PIPELINE_ID's runs: one of --on-new-version, --cron or --none."""
    if sum((on_new_version, cron is not None, no_trigger)) != 1:
        raise click.UsageError("Give one of --on-new-version, --cron or --none")
    trigger = None
    if on_new_version:
        trigger = {"on": "new_version"}
    elif cron is not None:
        trigger = {"cron": cron, "timezone": timezone}
    context.require_session()
    pipeline = context.client.pipeline_set_trigger(pipeline_id, trigger)
    context.output(pipeline)
    if not context.as_json:
        due = pipeline["next_run_at"]
        click.echo(
            f"Pipeline {pipeline['id']}: trigger {json.dumps(pipeline['trigger'])}"
            + (f", next run {due}" if due else "")
        )
