"""Quality checks on datasets, run on each new version before it is published
(write, audit, publish: docs/guides/understand.rst)."""
