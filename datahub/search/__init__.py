"""Search: one index of datasets, collections and pipelines in the database
(docs/guides/search.rst)."""
