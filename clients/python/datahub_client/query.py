"""The SQL console (the service's docs: "SQL console") and tables as DataFrames. Mixed
into ``Client``.

    result = client.query('SELECT * FROM "Oslo weather" WHERE temp < 0', limit=100)
    result["columns"], result["rows"], result["truncated"], result["inputs"]
    frame = client.query_frame('SELECT * FROM "Oslo weather"', pins=result["pins"])
    client.query_export('SELECT * FROM "Oslo weather"', "cold.parquet")
    frame = client.dataset_read(7, version=2, engine="polars")

A query's errors are the client's: a text that is not one SELECT is a ``ValidationError``
whose ``detail`` lists the problem at ``["body", "sql"]``; an unknown table, a version that
is not there or a failing query a ``ValidationError`` with the service's words
(``Dataset not found: sales``, ``Query failed: Binder Error: ...``); too many queries at
once a ``RateLimitedError``. DataFrames need pandas (with pyarrow) or Polars (frames.py).
"""

import os
import tempfile

import urllib3

from datahub_client.frames import FORMATS, choose_engine, need, read_file, read_frame
from datahub_client.resources import CHUNK_SIZE, _check_target, _cut_short, _os_error

API = "/api/v1"
SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def pins_body(pins):
    """The body's ``pins`` from ``{"dataset_id", "version"}`` dicts (a result's ``pins``),
    ``(dataset_id, version)`` pairs or a dict ``{dataset_id: version}``."""
    if pins is None:
        return None
    if isinstance(pins, dict):
        pins = pins.items()
    return [
        {"dataset_id": int(pin["dataset_id"]), "version": int(pin["version"])}
        if isinstance(pin, dict)
        else {"dataset_id": int(pin[0]), "version": int(pin[1])}
        for pin in pins
    ]


def format_of(path):
    """The export format a file name's suffix says (``.csv``, ``.parquet``, ``.jsonl``,
    ``.ndjson``), or None."""
    return SUFFIXES.get(os.path.splitext(os.fspath(path))[1].lower())


class QueryMixin:
    """Needs ``self._json``, ``self.request``, ``self._save`` and ``self.dataset_download``."""

    def query(self, sql, *, limit=None, pins=None):
        """Run one read-only SELECT over the datasets the caller may read (by name, at
        their current version, ``"name@3"`` for version 3, or as ``pins`` say): ``{"columns":
        [{"name", "type"}], "rows", "truncated", "elapsed_ms", "inputs", "pins",
        "pipeline"}``, the first ``limit`` rows (the service's default 1,000; at most
        10,000). Sending a result's ``pins`` back reads the same versions again."""
        return self._json("POST", f"{API}/query", json_body=_query_body(sql, limit, pins))

    def query_export(self, sql, destination, *, format=None, pins=None, overwrite=True):
        """The whole result of ``sql`` as a file, streamed to ``destination``: a path (its
        format from its suffix unless ``format`` says: ``csv``, ``parquet`` or ``jsonl``),
        written as downloads are (complete or not at all; an existing file only with
        ``overwrite``), or a binary file object (``format`` needed). The service bounds
        the file (``Query result is too large``, never a cut file). Returns
        ``destination``."""
        is_path = isinstance(destination, (str, os.PathLike))
        fmt = format or (format_of(destination) if is_path else None)
        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
        if is_path:
            destination = os.fspath(destination)
            _check_target(destination, overwrite)
        response = self.request(
            "POST",
            f"{API}/query",
            params={"format": fmt},
            json_body=_query_body(sql, None, pins),
            preload=False,
        )
        try:
            if is_path:
                try:
                    self._save(response, destination, overwrite, None)
                except OSError as exc:  # named after the destination, not the temporary file
                    if not exc.errno:
                        raise
                    raise _os_error(exc.errno, destination) from exc
            else:
                _copy(response, destination)
        except BaseException:
            response.close()  # not read to its end: the connection is spent
            raise
        finally:
            response.release_conn()
        return destination

    def query_frame(self, sql, *, pins=None, engine=None):
        """The whole result of ``sql`` as a DataFrame (``engine``: ``pandas`` or
        ``polars``; by default pandas if it is installed, else Polars), fetched as Parquet
        into a temporary file first, so its types are the query's."""
        engine = choose_engine(engine)
        need("polars" if engine == "polars" else "pyarrow", " (it reads the Parquet result)")
        with tempfile.TemporaryFile(prefix="datahub-query-") as spool:
            self.query_export(sql, spool, format="parquet", pins=pins)
            spool.seek(0)
            return read_frame(spool, "parquet", engine)

    def dataset_read(self, dataset_id, version=None, *, engine=None):
        """The file of a dataset (its current version, or ``version``) as a DataFrame
        (``engine`` as for :meth:`query_frame`): a CSV, Parquet or JSON lines file,
        downloaded as ``dataset_download`` does (streamed, its sha256 checked) into a
        temporary folder, then read with the library's defaults. A file that is not a
        table is a ValueError."""
        engine = choose_engine(engine)
        need(engine)
        with tempfile.TemporaryDirectory(prefix="datahub-read-") as folder:
            path = self.dataset_download(dataset_id, folder, version=version)
            with open(path, "rb") as fileobj:
                return read_file(fileobj, engine)


def _query_body(sql, limit, pins):
    body = {"sql": sql}
    if limit is not None:
        body["limit"] = int(limit)
    if pins is not None:
        body["pins"] = pins_body(pins)
    return body


def _copy(response, fileobj):
    """Write the answer's body to ``fileobj`` as it arrives; a connection that breaks or
    ends early is a DatahubError."""
    total = int(response.headers.get("Content-Length") or 0) or None
    received = 0
    try:
        for chunk in response.stream(CHUNK_SIZE):
            fileobj.write(chunk)
            received += len(chunk)
    except urllib3.exceptions.HTTPError as exc:
        raise _cut_short(received, total) from exc
    if total is not None and received != total:
        raise _cut_short(received, total)
