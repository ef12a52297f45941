"""The column types of a run's or a preview's CSV inputs. In the job: what DuckDB infers
from a sample of the file (:func:`sniff_csv_types`), fixed in the query that reads it
(:func:`pin_csv_types`), so that DuckDB does not sample it again for each step. In the
process that asks for runs and previews (the pipeline worker, a web worker): kept per
stored file (:func:`known`, :func:`remember`) and given to later jobs over the same file,
so DuckDB samples a file once, not on every run over it (``sniff_csv``: 12-25 ms on a
2M-row file, a run's largest cost beside its query). A stored file never changes: new
bytes get a new key. The types depend on the file and on the options it is read with
(``PIPELINE_MAX_LINE_SIZE``), which are part of the key; a process's own DuckDB is the
one its jobs run."""

import collections
import threading

from datahub.datasets.tabular import literal

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


def sniff_csv_types(con, sql, params):
    """``[columns, date format, timestamp format]``: what DuckDB infers for the CSV file
    that ``sql`` (of :func:`source_sql`) reads; ``columns`` is ``[[name, type], ...]``.
    A list of lists: it crosses a process boundary as JSON and comes back the same."""
    columns, date_format, timestamp_format = con.execute(
        "SELECT list_transform(Columns, lambda c: [c.name, c.type]), DateFormat, "
        f"TimestampFormat FROM sniff_csv{sql[len('read_csv') :]}",
        params,
    ).fetchone()
    return [[[name, kind] for name, kind in columns], date_format, timestamp_format]


def pin_csv_types(con, sql, params, known=None):
    """``(sql, params)`` of :func:`source_sql` with the column types DuckDB infers for a
    CSV file fixed (``auto_detect = false``): the same table, but a query over it no
    longer samples the file to infer them again. DuckDB samples it here, once
    (``sniff_csv``), where each DESCRIBE of a compiled step and then the run's own query
    sampled it each time (about 16 ms a time on a 2M-row file). Other formats as given.

    ``known`` maps a file's path to what :func:`sniff_csv_types` found for it before (the
    same bytes, the same options): taken instead of sampling the file, and given what is
    sampled here."""
    if not sql.startswith("read_csv("):
        return sql, params
    path = params[0]
    sniffed = known.get(path) if known is not None else None
    if sniffed is None:
        sniffed = sniff_csv_types(con, sql, params)
        if known is not None:
            known[path] = sniffed
    columns, date_format, timestamp_format = sniffed
    if any("\n" in name or "\r" in name for name, _ in columns):
        return sql, params  # kept on one line: an error's line number names its step
    typed = ", ".join(f"{literal(name)}: {literal(kind)}" for name, kind in columns)
    pinned, extra = [f"auto_detect = false, columns = {{{typed}}}"], []
    for option, value in (("dateformat", date_format), ("timestampformat", timestamp_format)):
        if value:
            pinned.append(f"{option} = ?")
            extra.append(value)
    return f"{sql[:-1]}, {', '.join(pinned)})", [*params, *extra]
