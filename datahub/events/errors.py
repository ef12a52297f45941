"""The events feature's errors (the webhooks' are datahub.events.webhooks.errors)."""

from datahub.platform.errors import Throttled


class TooManyStreams(Throttled):
    """429: this worker process holds as many event streams as it may (of the caller's,
    or in all)."""

    message = "Too many open event streams"
    retry_after = 5
