"""The SQL console's errors: each a 422 (or 429) whose words name the problem."""

from datahub.platform.errors import Throttled, Unprocessable


class QueryDatasetNotFound(Unprocessable):
    """A table the query names is no dataset the caller may read: the same words whether it
    does not exist or is not theirs to read."""

    def __init__(self, name):
        super().__init__(f"Dataset not found: {name}")


class QueryVersionNotFound(Unprocessable):
    def __init__(self, name, number):
        super().__init__(f"Version not found: {name}@{number}")


class QueryDatasetHasNoFile(Unprocessable):
    def __init__(self, name):
        super().__init__(f"Dataset has no file: {name}")


class QueryFailed(Unprocessable):
    """DuckDB refused the query or the data (a binder error, a value it cannot convert):
    its words, with the datasets' names for their files."""


class QueryTimedOut(Unprocessable):
    message = "Query timed out"


class QueryOutOfMemory(Unprocessable):
    message = "Query ran out of memory"


class QueryTooLarge(Unprocessable):
    message = "Query result is too large"


class QueryCancelled(Unprocessable):
    """The client closed its connection while the query ran: the job is stopped."""

    message = "Query cancelled: the client went away"


class TooManyQueries(Throttled):
    message = "Too many queries at once"
