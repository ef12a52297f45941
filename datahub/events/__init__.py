"""Events (docs/guides/events.rst): CloudEvents about datasets, versions, pipelines and runs,
written in the same transaction as the change (the outbox) and listed at /api/v1/events."""
