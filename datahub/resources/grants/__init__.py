"""Grants of read or write on one dataset, collection or pipeline to a user or a group, and
visibility changes (docs/guides/access.rst)."""
