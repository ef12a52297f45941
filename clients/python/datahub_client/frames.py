"""Tables as DataFrames: pandas or Polars, whichever is asked for (``engine``) or, by
default, pandas when it is installed, else Polars. Neither is a dependency of the client:
``pip install 'datahub-client[pandas]'`` (pandas and pyarrow, which reads Parquet) or
``'datahub-client[polars]'``. A missing one is a ``ModuleNotFoundError`` that names it.

A file's format is recognised from its bytes as the service recognises it: Parquet by its
``PAR1`` magic, JSON lines by a first ``{`` (a JSON array by ``[``), CSV otherwise, with
the delimiter (``,`` ``;`` tab ``|``) that occurs most often in its header line."""

import importlib
import importlib.util

ENGINES = ("pandas", "polars")
FORMATS = ("csv", "parquet", "jsonl")
DELIMITERS = (",", ";", "\t", "|")
SNIFF_BYTES = 65536
EXTRA = {"pandas": "pandas", "pyarrow": "pandas", "polars": "polars"}


def need(package, why=""):
    """Import ``package``, or raise ModuleNotFoundError naming it and the extra with it."""
    try:
        return importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if exc.name != package:
            raise
        raise ModuleNotFoundError(
            f"{package} is not installed{why}: pip install 'datahub-client[{EXTRA[package]}]'",
            name=package,
        ) from None


def choose_engine(engine=None):
    """``engine`` (``pandas`` or ``polars``), checked; by default pandas if it is
    installed, else Polars, else a ModuleNotFoundError naming both."""
    if engine is not None:
        if engine not in ENGINES:
            raise ValueError(f"engine must be 'pandas' or 'polars', not {engine!r}")
        return engine
    for candidate in ENGINES:
        if importlib.util.find_spec(candidate) is not None:
            return candidate
    raise ModuleNotFoundError(
        "neither pandas nor polars is installed: pip install 'datahub-client[pandas]' "
        "(or 'datahub-client[polars]')",
        name="pandas",
    )


def sniff(head):
    """``(format, delimiter)`` of a file that begins with ``head``: ``parquet``,
    ``jsonl`` (or ``json`` for a JSON array) or ``csv``; ValueError for an empty or binary
    file, which is not a table."""
    if head.startswith(b"PAR1"):
        return "parquet", None
    if not head.strip():
        raise ValueError("the file is empty: not a table")
    if b"\x00" in head:
        raise ValueError("the file is binary, not CSV, Parquet or JSON lines")
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] == b"{":
        return "jsonl", None
    if text[:1] == b"[":
        return "json", None
    line = text.split(b"\n", 1)[0].decode("utf-8", "replace")
    return "csv", max(DELIMITERS, key=lambda d: (line.count(d), d == ","))


def read_frame(fileobj, fmt, engine, delimiter=","):
    """A DataFrame of ``engine`` from the binary file object ``fileobj`` (seekable) in
    ``fmt``: ``csv``, ``parquet``, ``jsonl`` or ``json``."""
    if engine == "polars":
        polars = need("polars")
        if fmt == "parquet":
            return polars.read_parquet(fileobj)
        if fmt == "jsonl":
            return polars.read_ndjson(fileobj)
        if fmt == "json":
            return polars.read_json(fileobj)
        return polars.read_csv(fileobj, separator=delimiter)
    pandas = need("pandas")
    if fmt == "parquet":
        need("pyarrow", " (pandas reads Parquet with it)")
        return pandas.read_parquet(fileobj)
    if fmt in ("jsonl", "json"):
        return pandas.read_json(fileobj, lines=fmt == "jsonl")
    return pandas.read_csv(fileobj, sep=delimiter)


def read_file(fileobj, engine):
    """A DataFrame of the table in ``fileobj`` (a seekable binary file), its format
    recognised from its first bytes."""
    head = fileobj.read(SNIFF_BYTES)
    fileobj.seek(0)
    fmt, delimiter = sniff(head)
    return read_frame(fileobj, fmt, engine, delimiter or ",")
