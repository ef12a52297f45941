"""Search has no errors of its own: a query that cannot be read as a search matches by
what can be read of it (datahub.search.query), and bad parameters are 422s of the
schemas."""
