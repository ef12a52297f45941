"""The step engine: CSV rows (lists of strings) flow through the steps as iterators.

``select``, ``rename``, ``filter`` and ``limit`` stream one row at a time. ``sort`` and
``dedupe`` keep at most ``memory_rows`` rows in memory and spill sorted runs to temporary
files, merged with :func:`heapq.merge` (at most ``MERGE_FAN_IN`` files at once).
"""
import csv
import heapq
import itertools
import tempfile

MERGE_FAN_IN = 64


class PipelineError(Exception):
    """The run fails with this message as its ``error``."""


def number(text):
    """``text`` as a float when it reads as a finite number, else None."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None


def _index(header, column, position, op):
    try:
        return header.index(column)
    except ValueError:
        raise PipelineError(
            f"step {position} ({op}): column {column!r} does not exist; "
            f"the columns are: {', '.join(header) or '(none)'}"
        ) from None


def _compare(operator, value):
    """A predicate over one cell for ``filter``."""
    if operator == "contains":
        needle = str(value) if not isinstance(value, float) or not value.is_integer() \
            else str(int(value))
        return lambda cell: needle in cell
    target_number = value if isinstance(value, (int, float)) else number(value)
    target_text = value if isinstance(value, str) else _number_text(value)
    test = {
        "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
        "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
        "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    }[operator]

    def predicate(cell):
        if target_number is not None:
            cell_number = number(cell)
            if cell_number is not None:
                return test(cell_number, target_number)
        return test(cell, target_text)

    return predicate


def _number_text(value):
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def sort_key(indexes):
    """Numbers first, in numeric order, then text: a total order over any cells."""

    def key(row):
        out = []
        for i in indexes:
            value = number(row[i])
            out.append((0, value, "") if value is not None else (1, 0.0, row[i]))
        return out

    return key


class Spiller:
    """Sorted runs in anonymous temporary files: unlinked from the start, so nothing is
    left on disk even when the worker is killed with SIGKILL."""

    def __init__(self, folder=None, check=None):
        self.folder = folder
        self.files = []
        self.check = check or (lambda: None)

    def write(self, rows):
        handle = tempfile.TemporaryFile("w+", newline="", encoding="utf-8", dir=self.folder)
        self.files.append(handle)
        writer = csv.writer(handle)
        for n, row in enumerate(rows):
            writer.writerow(row)
            if n % 4096 == 0:
                self.check()  # a long merge still notices a cancel
        handle.seek(0)
        return handle

    def read(self, handle):
        yield from csv.reader(handle)
        handle.close()

    def close(self):
        for handle in self.files:
            handle.close()


def external_sort(rows, key, memory_rows, reverse=False, temp_dir=None, check=None):
    """Sorted ``rows`` (stable), holding at most ``memory_rows`` of them in memory."""
    buffer, runs, spiller = [], [], None
    try:
        for row in rows:
            buffer.append(row)
            if len(buffer) >= memory_rows:
                buffer.sort(key=key, reverse=reverse)
                spiller = spiller or Spiller(temp_dir, check)
                runs.append(spiller.write(buffer))
                buffer = []
                if len(runs) >= MERGE_FAN_IN:  # fold the runs so far into one
                    runs = [spiller.write(heapq.merge(*map(spiller.read, runs),
                                                      key=key, reverse=reverse))]
        buffer.sort(key=key, reverse=reverse)
        if not runs:
            yield from buffer
            return
        runs.append(spiller.write(buffer))
        buffer = []
        yield from heapq.merge(*map(spiller.read, runs), key=key, reverse=reverse)
    finally:
        if spiller is not None:
            spiller.close()


def _dedupe(rows, indexes, memory_rows, temp_dir, check):
    """First occurrence of each key, in input order: sort by (key, position), keep the
    first of each group, sort the survivors back by position. Both sorts are bounded."""
    numbered = ([str(n)] + row for n, row in enumerate(rows))
    shifted = [i + 1 for i in indexes]

    def by_key(row):
        return ([row[i] for i in shifted], int(row[0]))

    survivors = (
        next(group) for _, group in itertools.groupby(
            external_sort(numbered, by_key, memory_rows, temp_dir=temp_dir, check=check),
            key=lambda row: [row[i] for i in shifted])
    )
    for row in external_sort(survivors, lambda row: int(row[0]), memory_rows,
                             temp_dir=temp_dir, check=check):
        yield row[1:]


def apply_steps(header, rows, steps, memory_rows, temp_dir=None, check=None):
    """``(header, rows)`` after ``steps``. Every column is checked against the header
    before any row is read, so a wrong column fails the run at once. ``check`` is called
    now and then during long spills and may raise to stop the work."""
    for position, step in enumerate(steps):
        op = step["op"]
        if op == "select":
            indexes = [_index(header, c, position, op) for c in step["columns"]]
            header = [header[i] for i in indexes]
            rows = ([row[i] for i in indexes] for row in rows)
        elif op == "rename":
            for old in step["mapping"]:
                _index(header, old, position, op)
            header = [step["mapping"].get(name, name) for name in header]
            if len(set(header)) != len(header):
                raise PipelineError(f"step {position} (rename): the result has duplicate "
                                    f"column names: {', '.join(header)}")
        elif op == "filter":
            i = _index(header, step["column"], position, op)
            predicate = _compare(step["operator"], step["value"])
            rows = (row for row in rows if predicate(row[i]))
        elif op == "sort":
            indexes = [_index(header, c, position, op) for c in step["columns"]]
            rows = external_sort(rows, sort_key(indexes), memory_rows,
                                 reverse=step.get("descending", False), temp_dir=temp_dir,
                                 check=check)
        elif op == "dedupe":
            columns = step.get("columns") or header
            indexes = [_index(header, c, position, op) for c in columns]
            rows = _dedupe(rows, indexes, memory_rows, temp_dir, check)
        elif op == "limit":
            rows = itertools.islice(rows, step["count"])
        else:  # validated at create time; a stored step from a newer version
            raise PipelineError(f"step {position}: unknown op {op!r}")
    return header, rows


def read_csv(binary):
    """``(header, rows)`` of a CSV file object; short rows are padded, long rows refused."""
    import io

    text = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")
    reader = csv.reader(text)
    try:
        header = next(reader)
    except StopIteration:
        raise PipelineError("the source file is empty (no header row)") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise PipelineError(f"the source file is not a readable CSV: {exc}") from None
    if len(set(header)) != len(header):
        raise PipelineError("the source file has duplicate column names")
    width = len(header)

    def rows():
        try:
            for row in reader:
                if len(row) < width:
                    if not row:
                        continue  # blank line
                    row = row + [""] * (width - len(row))
                elif len(row) > width:
                    raise PipelineError(
                        f"line {reader.line_num} of the source has {len(row)} fields; "
                        f"the header has {width}")
                yield row
        except (csv.Error, UnicodeDecodeError) as exc:
            raise PipelineError(f"the source file is not a readable CSV: {exc}") from None

    return header, rows()
