"""What every storage backend shares: the key format and the stored file."""

import os
import re
from dataclasses import dataclass, field

KEY = re.compile(r"^[0-9a-f]{32}$")
MIN_PART_SIZE = 5 * 1024 * 1024  # S3's smallest part (but the last)
MAX_PART_SIZE = 5 * 1024**3  # S3's largest part
MAX_PARTS = 10_000  # parts in one S3 multipart upload


@dataclass(frozen=True)
class StoredFile:
    key: str
    size: int
    sha256: str
    # The open descriptor that holds a local file's lock (see ``LocalStorage.save``).
    lock_fd: int | None = field(default=None, compare=False, repr=False)

    def release(self):
        """Drop the lock: the database now refers to the file, or never will."""
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            object.__setattr__(self, "lock_fd", None)


def check_key(key):
    if not KEY.match(key or ""):
        raise ValueError(f"not a storage key: {key!r}")
    return key
