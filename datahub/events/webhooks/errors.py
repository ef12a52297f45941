"""The webhooks' errors."""

from datahub.platform.errors import ErrorMessage, InvalidValues, NotFound, Throttled


class WebhookNotFound(NotFound):
    message = "Webhook not found"


class DeliveryNotFound(NotFound):
    message = "Delivery not found"


class WebhookUrlRefused(InvalidValues):
    """A 422 at ``url``: why no delivery may go there (docs: Events, "Webhook addresses")."""

    def __init__(self, reason):
        super().__init__({"url": [ErrorMessage(f"URL {reason}", "value_error.url.refused")]})


class TooManyQueuedRequests(Throttled):
    """429: the owner's pings and redeliveries not yet tried are as many as they may be
    (``WEBHOOK_QUEUED_REQUESTS``); ``retry_after``: about when one has been tried."""

    message = "Too many queued pings and redeliveries"

    def __init__(self, retry_after):
        super().__init__()
        self.retry_after = retry_after
