"""The column types DuckDB infers for stored CSV files, kept by the process that asks for
runs and previews (the pipeline worker, a web worker) and given to their jobs: DuckDB
samples a file once, not on every run over it (``sniff_csv``: 12-25 ms on a 2M-row
file, a run's largest cost beside its query). A stored file never changes: new bytes
get a new key. The types depend on the file and on the options it is read with
(``PIPELINE_MAX_LINE_SIZE``), which are part of the key; a process's own DuckDB is the
one its jobs run."""

import collections
import threading

MOST_FILES = 256
MOST_COLUMNS = 2000  # wider files are sampled each time: what is kept stays small

_known = collections.OrderedDict()  # (storage key, max line size) → types, oldest first
_lock = threading.Lock()


def known(local, max_line_size):
    """path → types of the input files ``local`` (storage key → path) known here."""
    found = {}
    with _lock:
        for key, path in local.items():
            types = _known.get((key, max_line_size))
            if types is not None:
                _known.move_to_end((key, max_line_size))
                found[path] = types
    return found


def remember(local, max_line_size, sniffed):
    """Keep what a job ``sniffed`` (path → types) for the files ``local`` names."""
    with _lock:
        for key, path in local.items():
            types = sniffed.get(path)
            if types is not None and len(types[0]) <= MOST_COLUMNS:
                _known[(key, max_line_size)] = types
                _known.move_to_end((key, max_line_size))
        while len(_known) > MOST_FILES:
            _known.popitem(last=False)
