"""Files in a local folder (``STORAGE_PATH``).

A worker killed mid-upload (``kill -9``, out of memory, gunicorn's timeout) leaves its
temporary file behind; killed between storing a file and committing the row that refers
to it, or between a commit and removing the file it replaced, it leaves a stored file that
no row refers to. Every upload therefore holds an exclusive ``flock`` on its file from the
moment the file is created until the row is committed or rolled back, and the kernel drops
that lock when the process dies, however it dies. ``sweep`` (run when a worker starts)
removes the temporary and unreferenced files that nobody holds a lock on.
"""

import contextlib
import errno
import fcntl
import hashlib
import logging
import os
import secrets
import tempfile

from datahub.platform.errors import FileTooLarge, InsufficientStorage
from datahub.platform.storage.base import KEY, StoredFile, check_key

log = logging.getLogger("datahub.storage")

TEMP_PREFIX = ".upload-"


class LocalStorage:
    """Files in one folder, under random server-generated names.

    An upload is written to a temporary file in the same folder, fsynced, and renamed to
    its final name only once it is complete and within the limit, so a reader never sees
    a partial file and a failed upload leaves nothing behind.
    """

    def __init__(self, root):
        self.root = os.path.abspath(root)

    def _path(self, key):
        return os.path.join(self.root, check_key(key))

    def save(self, chunks, max_size=None):
        """Write the byte chunks of ``chunks``; raise :class:`FileTooLarge` as soon as
        more than ``max_size`` bytes arrive, and :class:`InsufficientStorage` when the file
        system is full. Any exception (also from ``chunks``) removes the temporary
        file and propagates. The returned file stays locked against ``sweep`` until its
        ``release()``."""
        try:
            return self._save(chunks, max_size)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            log.error("no space left for an upload in %s: answered 507 (%s)", self.root, exc)
            raise InsufficientStorage() from None

    def _save(self, chunks, max_size):
        os.makedirs(self.root, exist_ok=True)
        digest = hashlib.sha256()
        size = 0
        lock_fd, temp_path = self._locked_temp_file()
        try:
            with os.fdopen(os.dup(lock_fd), "wb") as out:  # closing it keeps the lock
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
            os.close(lock_fd)
            raise
        self._sync_folder()
        return StoredFile(key=key, size=size, sha256=digest.hexdigest(), lock_fd=lock_fd)

    def adopts(self, path):
        """Whether :meth:`adopt` can take the file at ``path``: it is on this storage's
        file system."""
        try:
            os.makedirs(self.root, exist_ok=True)
            return os.stat(os.path.dirname(path) or ".").st_dev == os.stat(self.root).st_dev
        except OSError:
            return False

    def adopt(self, path, sha256):
        """Store the complete file at ``path`` (whose SHA-256 is ``sha256``), moving it:
        made durable, then renamed to its key, so a reader never sees a partial file and
        no byte is copied. Locked against ``sweep`` from before the rename until the
        answer's ``release()``, as :meth:`save`'s. :class:`InsufficientStorage` when the
        file system is full."""
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.fchmod(fd, 0o600)  # as save's files (mkstemp)
            os.fsync(fd)
            size = os.fstat(fd).st_size
            key = secrets.token_hex(16)
            os.rename(path, self._path(key))
        except BaseException as exc:
            os.close(fd)
            if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
                log.error("no space left for a run's output in %s (%s)", self.root, exc)
                raise InsufficientStorage() from None
            raise
        self._sync_folder()
        return StoredFile(key=key, size=size, sha256=sha256, lock_fd=fd)

    def _locked_temp_file(self):
        """A new temporary file and a descriptor holding its lock. A ``sweep`` can remove
        the file between its creation and the lock; then it is made again."""
        while True:
            fd, temp_path = tempfile.mkstemp(dir=self.root, prefix=TEMP_PREFIX)
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _same_file(fd, temp_path):
                return fd, temp_path
            os.close(fd)

    def sweep(self, is_referenced):
        """Remove temporary files and stored files for which ``is_referenced(key)`` is
        false, unless an upload (of any process) still holds their lock. Safe to run while
        others upload: a file is only judged while its lock is held here, so an upload
        cannot commit its row in between. Returns the names removed."""
        try:
            names = os.listdir(self.root)
        except FileNotFoundError:
            return []
        removed = []
        for name in names:
            temporary = name.startswith(TEMP_PREFIX)
            if not (temporary or KEY.match(name)) or (not temporary and is_referenced(name)):
                continue  # not ours, or in use (most files: no need to open them)
            path = os.path.join(self.root, name)
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # an upload in progress
                if (temporary or not is_referenced(name)) and _same_file(fd, path):
                    os.unlink(path)
                    removed.append(name)
            finally:
                os.close(fd)
        if removed:
            self._sync_folder()
        return removed

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

    def path(self, key):
        """The stored file's local path, for readers that open files themselves (DuckDB);
        :class:`FileNotFoundError` if it is missing."""
        path = self._path(key)
        if not os.path.isfile(path):
            raise FileNotFoundError(path)
        return path

    @contextlib.contextmanager
    def local_copy(self, key, directory=None):
        """The stored file itself: no copy (``directory`` is for backends that copy)."""
        yield self.path(key)

    def presigned_url(self, key, expires, content_type=None, content_disposition=None):
        """None: a local file has no URL of its own (the service sends it itself)."""

    def delete(self, key):
        """Remove a stored file; a missing one is not an error."""
        try:
            os.unlink(self._path(key))
        except FileNotFoundError:
            pass


def _same_file(fd, path):
    """Whether ``path`` still names the file open as ``fd``."""
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False
