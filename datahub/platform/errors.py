"""Errors that know no HTTP, raised by storage, the server's body readers and the features'
services. Each kind below is answered with one status: the table that says which, with
the contract's ``detail`` and headers, is datahub.web.error_handlers. A feature's own
errors (``datasets/errors.py``...) are subclasses that say what was not found, or what
conflicts, in ``message``."""


class ConfigurationError(RuntimeError):
    """Start-up stops on a configuration that would be unsafe to run with."""


class DomainError(Exception):
    """What went wrong, in ``message``: the words a client is told."""

    message = "Error"

    def __init__(self, message=None):
        if message is not None:
            self.message = message
        super().__init__(self.message)


class NotFound(DomainError):
    message = "Not found"


class Conflict(DomainError):
    """The change would contradict what is stored (a name taken, a run already active)."""

    message = "Conflict"


class NameTaken(Conflict):
    message = "Name already exists"


class Refused(DomainError):
    """The caller may not do this, whatever it sends (a quota reached)."""

    message = "Forbidden"


class Throttled(DomainError):
    """Not now: the caller may try again after ``retry_after`` seconds."""

    message = "Too many requests"
    retry_after = 1


class Unavailable(DomainError):
    """A service the request needs (the object storage, a directory) failed or did not
    answer; logged where it happened. Worth retrying."""

    message = "Service unavailable"


class StorageUnavailable(Unavailable):
    message = "Storage unavailable"


class NoRoom(DomainError):
    """A file does not fit: the storage is full, or its owner's quota is reached."""

    message = "Insufficient storage"


class InsufficientStorage(NoRoom):
    """The storage has no room for the file (ENOSPC, EDQUOT)."""


class Unprocessable(DomainError):
    """The request is valid, but what it names cannot be processed (a file that is not a
    table)."""

    message = "Unprocessable content"


class ErrorMessage(str):
    """pydantic's ``msg`` (the text) and ``type``. A ``str``, so marshmallow keeps it whole
    in ``error_messages``, through ``ValidationError`` and in its error dicts;
    :meth:`format` (which marshmallow and its validators call) keeps the ``type``."""

    def __new__(cls, msg, type_):
        message = super().__new__(cls, msg)
        message.type = type_
        return message

    def __getnewargs__(self):  # copy.deepcopy: schemas copy their declared fields
        return str(self), self.type

    def format(self, *args, **kwargs):
        return ErrorMessage(str.format(self, *args, **kwargs), self.type)


class InvalidValues(DomainError):
    """Values given that cannot be used, as marshmallow reports them: ``messages`` maps
    each field (nested for nested fields and list positions) to its messages
    (:class:`ErrorMessage` s)."""

    message = "Validation error"

    def __init__(self, messages):
        super().__init__()
        self.messages = messages


class FileTooLarge(DomainError):
    """More bytes than the limit arrived (the storage stops writing at once)."""

    message = "File too large"


class IncompleteBody(DomainError):
    """The client stopped sending (closed, reset, or idle too long) before the body's end."""

    message = "Request body ended before its Content-Length"


class MalformedChunkedBody(DomainError):
    message = "Malformed chunked body"


# Exceptions of the libraries under the service that mean one of the errors above: the
# server registers its body readers' (datahub.platform.serving.gunicorn_worker).
_SAME_AS = {}


def treat_as(error, *foreign):
    """From now on, an exception of a class in ``foreign`` means ``error``."""
    for kind in foreign:
        _SAME_AS[kind] = error


def domain_error(exc):
    """``exc`` as one of these errors: itself, the error its class was registered as (see
    :func:`treat_as`), or None."""
    if isinstance(exc, DomainError):
        return exc
    for kind in type(exc).__mro__:
        error = _SAME_AS.get(kind)
        if error is not None:
            return error()
    return None
