"""A run's error from a DuckDB error, without any value from the data.

A run's error is read by everyone who may read its pipeline, and the pipeline's steps may
be changed by who cannot read its source: a message quoting a value (a failed cast, a
function's invalid input, ``error(column)``, a CSV line) would show the source's data.
Errors about the query itself (binder, parser, catalog, a refused file) are DuckDB's
own words; any other says what failed in fixed words, with the column and the type only
when DuckDB names a known column or a known type. Previews of a user's own upload
(datahub.datasets) keep DuckDB's messages.
"""

import re

import duckdb

from datahub.datasets.tabular import RAGGED, clean_error

# About the user's own SQL, the column names and the files: said as DuckDB says them.
ABOUT_THE_QUERY = (
    duckdb.BinderException,
    duckdb.ParserException,
    duckdb.SyntaxException,
    duckdb.CatalogException,
    duckdb.PermissionException,
    duckdb.IOException,
)
KINDS = (
    (duckdb.ConversionException, "Conversion Error", "could not be converted"),
    (duckdb.OutOfRangeException, "Out of Range Error", "is out of range"),
    (duckdb.InvalidInputException, "Invalid Input Error", "is invalid input"),
    (duckdb.ConstraintException, "Constraint Error", "breaks a constraint"),
    (duckdb.TypeMismatchException, "Type Mismatch Error", "has the wrong type"),
    (duckdb.NotImplementedException, "Not implemented Error", "is not supported"),
)
OTHER_KIND = ("Error", "could not be processed")
NOT_SHOWN = "(values from the data are not shown in a {work}'s error)"
TYPE = (
    r"(?:U?(?:TINY|SMALL|BIG|HUGE)?INT(?:EGER|8|16|32|64|128)?|BOOL(?:EAN)?|FLOAT|DOUBLE|"
    r"REAL|DECIMAL\(\d+,\s*\d+\)|DATE|TIME|TIMESTAMP(?: WITH TIME ZONE|_S|_MS|_NS)?|"
    r"INTERVAL|UUID|VARCHAR|BLOB|JSON|BIT)"
)
# A message that names types alone.
TYPES_ONLY = re.compile(rf"^Conversion Error: Unimplemented type for cast \({TYPE} -> {TYPE}\)$")
# Where DuckDB names the type: after the quoted value, or as the destination type.
TYPE_NAMED = re.compile(rf"(?:['\"] to '?|destination type )({TYPE})'?$")
CAST_COLUMN = " when casting from source column "
CONVERTING = re.compile(r'^Error when converting column "(.*)"\. (.*)$', re.MULTILINE)
CSV_LINE = re.compile(r"^[A-Za-z ]+ Error: CSV Error on Line: (\d+)$")
LINE_SIZE = re.compile(r"^Maximum line size of (\d+) bytes exceeded\.", re.MULTILINE)
POSITION = re.compile(r"\n\nLINE (\d+):")


def message(exc, paths, columns=(), work="run"):
    """The text a run (or a preview: ``work``) shows for DuckDB's error ``exc``; ``paths``
    maps file paths to names, ``columns`` are the column names a message may name."""
    text = str(exc).strip()
    if isinstance(exc, ABOUT_THE_QUERY) or RAGGED in text:
        return clean_error(exc, paths)
    first = text.splitlines()[0] if text else ""
    if TYPES_ONLY.match(first.rsplit(CAST_COLUMN, 1)[0]):
        return first.rsplit(CAST_COLUMN, 1)[0]
    label, what = next(
        ((label, what) for kind, label, what in KINDS if isinstance(exc, kind)), OTHER_KIND
    )
    csv_line = CSV_LINE.match(first)
    at = f"CSV Error on Line: {csv_line.group(1)}: " if csv_line else ""
    size = LINE_SIZE.search(text) if csv_line else None
    not_shown = NOT_SHOWN.format(work=work)
    if size:
        return f"{label}: {at}the line is longer than {size.group(1)} bytes {not_shown}"
    column = _column(text, first, columns)
    subject = f"a value of column {column!r}" if column is not None else "a value"
    return f"{label}: {at}{subject} {what}{_target(text, first, what)} {not_shown}"


def _column(text, first, columns):
    """The column DuckDB names, when it is one of ``columns``."""
    named = []
    if CAST_COLUMN in first:
        named.append(first.rsplit(CAST_COLUMN, 1)[1])
    named += [name for name, _ in CONVERTING.findall(text)]
    return next((name for name in named if name in columns), None)


def _target(text, first, what):
    """`` to TYPE`` when DuckDB names a known type a value could not be converted to."""
    if what != KINDS[0][2]:
        return ""
    lines = [first.rsplit(CAST_COLUMN, 1)[0]] + [rest for _, rest in CONVERTING.findall(text)]
    for line in lines:
        typed = TYPE_NAMED.search(line)
        if typed:
            return f" to {typed.group(1)}"
    return ""


def position(exc):
    """The line of the query DuckDB points at in ``exc``, or None."""
    found = POSITION.findall(str(exc))
    return int(found[-1]) if found else None
