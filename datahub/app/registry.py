"""What an app keeps, one of each, for the life of its process: the storage backend, the
token codec, the request guard, pooled connections to a directory or an identity
provider... Each lives in ``app.extensions`` under a key of its own, and is made there by
:func:`per_app` only."""

import threading

_LOCK = threading.RLock()  # what one makes may need another: made in the same thread


def per_app(app, key, make):
    """``app.extensions[key]``, made by ``make()`` the first time it is asked for: once, also
    when several threads ask at once (later calls take no lock)."""
    found = app.extensions.get(key)
    if found is None:
        with _LOCK:
            found = app.extensions.get(key)
            if found is None:
                found = app.extensions[key] = make()
    return found
