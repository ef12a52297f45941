"""A pipeline's trigger as a value (docs/guides/events.rst, "Triggers"): what a valid one
is, and when a schedule is next due (croniter reads the cron expression)."""

import zoneinfo
from datetime import UTC, datetime

from croniter import croniter

from datahub.web.validation import has_control_character

NEW_VERSION, SCHEDULE = "new_version", "schedule"


def invalid_trigger(trigger):
    """Why ``trigger`` (a dict) is not a trigger, or None."""
    if set(trigger) == {"on"}:
        return None if trigger["on"] == NEW_VERSION else 'on: must be "new_version"'
    if set(trigger) not in ({"cron"}, {"cron", "timezone"}):
        return 'must be {"on": "new_version"} or {"cron": ..., "timezone": ...}'
    cron, zone = trigger["cron"], trigger.get("timezone", "UTC")
    if (
        not isinstance(cron, str)
        or len(cron) > 100
        or has_control_character(cron)
        or not croniter.is_valid(cron)
    ):
        return "cron: not a cron expression (five fields: minute hour day month weekday)"
    if not isinstance(zone, str) or len(zone) > 64 or has_control_character(zone):
        return "timezone: not a time zone name"
    try:
        zoneinfo.ZoneInfo(zone)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return "timezone: not a time zone name (such as Europe/Oslo or UTC)"
    return None


def next_due(trigger, after):
    """The schedule's first time after ``after``, in UTC; None for any other trigger."""
    if not trigger or "cron" not in trigger:
        return None
    zone = zoneinfo.ZoneInfo(trigger.get("timezone", "UTC"))
    due = croniter(trigger["cron"], after.astimezone(zone)).get_next(datetime)
    return due.astimezone(UTC)
