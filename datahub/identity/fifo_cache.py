"""A bounded per-process cache: a dict whose oldest entry goes first beyond ``maxsize``.

Reads are plain dict reads (``cache.get(key)``), so the hot paths that use it (verified
tokens, Principals) pay nothing for it. A gunicorn worker runs many threads and no lock is
taken: two threads that evict at once drop two entries instead of failing. (cachetools'
``FIFOCache`` would need a lock around every read and write for that, and a dependency.)
"""


class FifoCache(dict):
    """``dict`` with ``keep``: store an entry, the oldest going first beyond ``maxsize``."""

    def __init__(self, maxsize):
        super().__init__()
        self.maxsize = maxsize

    def keep(self, key, value):
        """``self[key] = value``, dropping the oldest entry when full; returns ``value``."""
        while len(self) >= self.maxsize:
            try:
                self.pop(next(iter(self)), None)
            except RuntimeError:  # changed by another thread meanwhile: look again
                continue
            except StopIteration:  # emptied by others
                break
        self[key] = value
        return value
