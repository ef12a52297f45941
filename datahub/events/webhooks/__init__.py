"""Webhooks: the caller's subscriptions to events, and their deliveries (docs/guides/events.rst,
"Webhooks"); the delivery loop is datahub.events.webhooks.dispatch's."""
