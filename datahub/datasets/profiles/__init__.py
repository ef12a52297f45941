"""Each tabular version's schema and profile, read by the worker (docs/guides/understand.rst)."""
