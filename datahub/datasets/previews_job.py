"""A preview, as executed in an isolated process (datahub.platform.isolation): the first rows of a
file, long cells cut, refused when its JSON is still larger than the bound."""

import json

from datahub.datasets import tabular
from datahub.platform.isolation import JobError

CELL_CHARS = 1000  # text longer than this is cut to it and ends with CUT_MARK
CUT_MARK = "…"
LIST_ITEMS = 100  # a list (or a map's entries) past this many items is cut likewise


def cut(value):
    """``(value, cut?)``: ``value`` with long text and long lists cut, recursively."""
    if isinstance(value, str):
        if len(value) > CELL_CHARS:
            return value[:CELL_CHARS] + CUT_MARK, True
        return value, False
    if isinstance(value, list):
        items = [cut(item) for item in value[:LIST_ITEMS]]
        was_cut = len(value) > LIST_ITEMS or any(flag for _, flag in items)
        return [item for item, _ in items] + (
            [CUT_MARK] if len(value) > LIST_ITEMS else []
        ), was_cut
    if isinstance(value, dict):
        entries = [(key, cut(item)) for key, item in list(value.items())[:LIST_ITEMS]]
        was_cut = len(value) > LIST_ITEMS or any(flag for _, (_, flag) in entries)
        return {key: item for key, (item, _) in entries}, was_cut
    return value, False


def preview_job(args):
    try:
        table = tabular.preview(
            args["path"],
            args["limit"],
            memory_limit=args["memory_limit"],
            threads=args.get("threads"),
            temp_dir=args.get("temp_dir"),
            max_line_size=args["max_line_size"],
            name=args["name"],
            cell_chars=CELL_CHARS,
        )
    except tabular.NotTabular as exc:
        raise JobError("not_tabular", str(exc)) from None
    except FileNotFoundError:  # replaced or deleted since it was looked up
        raise JobError("missing") from None
    return bounded(table, args["max_bytes"])


def bounded(table, max_bytes):
    """``table`` with its long cells cut and ``truncated`` set; ``JobError("too_large")``
    when its JSON is still over ``max_bytes``."""
    rows, truncated = [], False
    for row in table["rows"]:
        cells = [cut(value) for value in row]
        rows.append([value for value, _ in cells])
        truncated = truncated or any(flag for _, flag in cells)
    table["rows"], table["truncated"] = rows, truncated
    if len(json.dumps(table, allow_nan=False).encode("utf-8")) > int(max_bytes):
        raise JobError("too_large")
    return table
