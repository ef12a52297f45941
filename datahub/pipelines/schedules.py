"""A pipeline's trigger as a value (docs/guides/events.rst, "Triggers"): what a valid one
is, and when a schedule is next due (croniter reads the cron expression).

A schedule is five cron fields, no more (croniter would also read a seconds and a year
field, or ``@daily``), and it must be due at least once more: ``0 0 31 2 *`` never is."""

import re
import zoneinfo
from datetime import UTC, datetime

from croniter import croniter

from datahub.web.validation import has_control_character

NEW_VERSION, SCHEDULE = "new_version", "schedule"
NOT_CRON = "cron: not a cron expression (five fields: minute hour day month weekday)"
NEVER_DUE = "cron: never due (no date matches it, such as February 31)"
NOT_A_ZONE = "timezone: not a time zone name (such as Europe/Oslo or UTC)"
# croniter's extensions beyond cron: H (hashed) and R (random) values.
_EXTENSION = re.compile(r"(?:^|[^A-Za-z])[HR](?:[^A-Za-z]|$)", re.IGNORECASE)


def on_new_version(trigger):
    """Whether ``trigger`` (as stored: any JSON) is a ``new_version`` trigger."""
    return isinstance(trigger, dict) and trigger.get("on") == NEW_VERSION


class NeverDue(ValueError):
    """croniter cannot say when the schedule is next due (it never is, or it failed)."""


def _is_cron(cron):
    if not isinstance(cron, str) or len(cron) > 100 or has_control_character(cron):
        return False
    fields = cron.split()
    return (
        len(fields) == 5
        and not any(_EXTENSION.search(field) for field in fields)
        and croniter.is_valid(cron)
    )


def _is_zone(zone):
    if not isinstance(zone, str) or len(zone) > 64 or has_control_character(zone):
        return False
    try:
        zoneinfo.ZoneInfo(zone)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return False
    return True


def invalid_trigger(trigger):
    """Why ``trigger`` (a dict) is not a trigger, or None."""
    if set(trigger) == {"on"}:
        return None if trigger["on"] == NEW_VERSION else 'on: must be "new_version"'
    if set(trigger) not in ({"cron"}, {"cron", "timezone"}):
        return 'must be {"on": "new_version"} or {"cron": ..., "timezone": ...}'
    if not _is_cron(trigger["cron"]):
        return NOT_CRON
    if not _is_zone(trigger.get("timezone", "UTC")):
        return NOT_A_ZONE
    try:
        next_due(trigger, datetime.now(UTC))
    except NeverDue:
        return NEVER_DUE
    return None


def next_due(trigger, after):
    """The schedule's first time after ``after``, in UTC; None for any other trigger.
    :class:`NeverDue` when croniter finds none (or fails: it reads what a client sent)."""
    if not trigger or "cron" not in trigger:
        return None
    try:
        zone = zoneinfo.ZoneInfo(trigger.get("timezone", "UTC"))
        due = croniter(trigger["cron"], after.astimezone(zone)).get_next(datetime)
        return due.astimezone(UTC)
    except (ValueError, ArithmeticError, LookupError, TypeError, AttributeError) as error:
        raise NeverDue(str(error)) from error
