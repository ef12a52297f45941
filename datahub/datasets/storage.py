"""Where dataset files live. ``LocalStorage`` keeps them in a folder (``STORAGE_PATH``).

The interface is what the rest of the code uses, so an object-storage backend can take
its place: ``save(chunks, max_size)`` → :class:`StoredFile`, ``open(key)`` → a binary
file object, ``delete(key)``.
"""
import hashlib
import logging
import os
import re
import secrets
import tempfile
from dataclasses import dataclass

from flask import current_app

from datahub.errors import FileTooLarge

log = logging.getLogger("datahub.storage")

_KEY = re.compile(r"^[0-9a-f]{32}$")
TEMP_PREFIX = ".upload-"


@dataclass(frozen=True)
class StoredFile:
    key: str
    size: int
    sha256: str


class LocalStorage:
    """Files in one folder, under random server-generated names.

    An upload is written to a temporary file in the same folder, fsynced, and renamed to
    its final name only once it is complete and within the limit, so a reader never sees
    a partial file and a failed upload leaves nothing behind.
    """

    def __init__(self, root):
        self.root = os.path.abspath(root)

    def _path(self, key):
        if not _KEY.match(key or ""):
            raise ValueError(f"not a storage key: {key!r}")
        return os.path.join(self.root, key)

    def save(self, chunks, max_size=None):
        """Write the byte chunks of ``chunks``; raise :class:`FileTooLarge` as soon as
        more than ``max_size`` bytes arrive. Any exception (also from ``chunks``) removes
        the temporary file and propagates."""
        os.makedirs(self.root, exist_ok=True)
        digest = hashlib.sha256()
        size = 0
        fd, temp_path = tempfile.mkstemp(dir=self.root, prefix=TEMP_PREFIX)
        try:
            with os.fdopen(fd, "wb") as out:
                for chunk in chunks:
                    size += len(chunk)
                    if max_size is not None and size > max_size:
                        raise FileTooLarge()
                    digest.update(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            key = secrets.token_hex(16)
            os.replace(temp_path, self._path(key))
        except BaseException:
            try:
                os.unlink(temp_path)
            except FileNotFoundError:
                pass
            raise
        self._sync_folder()
        return StoredFile(key=key, size=size, sha256=digest.hexdigest())

    def _sync_folder(self):
        """Make the rename durable."""
        try:
            fd = os.open(self.root, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)

    def open(self, key):
        return open(self._path(key), "rb")

    def delete(self, key):
        """Remove a stored file; a missing one is not an error."""
        try:
            os.unlink(self._path(key))
        except FileNotFoundError:
            pass


def get_storage():
    """The app's storage backend (one per app)."""
    storage = current_app.extensions.get("datahub.storage")
    if storage is None:
        storage = LocalStorage(current_app.config["STORAGE_PATH"])
        current_app.extensions["datahub.storage"] = storage
    return storage


def delete_quietly(key):
    """Remove a file whose row is already gone; a failure only leaves an orphan file."""
    if not key:
        return
    try:
        get_storage().delete(key)
    except OSError:
        log.warning("could not remove stored file %s", key, exc_info=True)
