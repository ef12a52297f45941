"""The SQL console: one read-only SELECT over the datasets the caller may read, pinned to
their versions (docs/guides/query.rst)."""
