"""A run's output, from the file its job writes to the stored file: hashed while the job
writes it, and moved into storage rather than copied where it can be.

The job writes the output into the run's own folder (``PIPELINE_TEMP_DIR``), never into
storage: a worker killed mid-run leaves nothing there. Where that folder and a local
storage's are on the same file system, the finished file is made durable and renamed
to its key (``LocalStorage.adopt``), its SHA-256 taken as the job wrote it (:class:`Tail`,
a thread reading what is new while the job runs): its bytes are written once and read
once. Elsewhere (S3, another file system) storage's ``save`` copies it, hashing as it goes.
"""

import hashlib
import os
import threading

CHUNK_BYTES = 1024 * 1024
IDLE_SECONDS = 0.01  # between two looks at a file that has not grown


class Tail:
    """The SHA-256 of a file that a job is writing, read as it grows, in a thread: the
    job only appends. :meth:`finish` once the job is over reads the rest; :meth:`close`
    stops it, whatever came of the job."""

    def __init__(self, path):
        self.path, self.size = path, 0
        self._digest = hashlib.sha256()
        self._done = threading.Event()
        self._stopped = False
        self._error = None
        self._thread = threading.Thread(
            target=self._follow, name="datahub-output-hash", daemon=True
        )

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def _follow(self):
        handle = None
        try:
            while not self._stopped:
                if handle is None:
                    try:
                        handle = open(self.path, "rb")  # noqa: SIM115  (closed below)
                    except FileNotFoundError:
                        if self._done.wait(IDLE_SECONDS):
                            handle = open(self.path, "rb")  # noqa: SIM115
                        continue
                chunk = handle.read(CHUNK_BYTES)
                if chunk:
                    self._digest.update(chunk)
                    self.size += len(chunk)
                elif self._done.is_set():
                    return  # the job is over and every byte is read
                else:
                    self._done.wait(IDLE_SECONDS)
        except OSError as exc:
            self._error = exc
        finally:
            if handle is not None:
                handle.close()

    def finish(self):
        """``(size, sha256)`` of the whole file, the job being over."""
        self._done.set()
        self._thread.join()
        if self._error is not None:
            raise self._error
        if self.size != os.path.getsize(self.path):  # it only appends: never
            raise OSError(f"the output changed while it was hashed: {self.path}")
        return self.size, self._digest.hexdigest()

    def close(self):
        self._stopped = True
        self._done.set()
        if self._thread.is_alive():
            self._thread.join()


def adopts(storage, path):
    """Whether ``storage`` can take the file at ``path`` by moving it."""
    return hasattr(storage, "adopt") and storage.adopts(path)


def durable(path):
    """The file at ``path`` on disk (``fsync``)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
