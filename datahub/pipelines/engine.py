"""The step engine: CSV rows (lists of strings) flow through the steps as iterators.

``select``, ``rename``, ``filter`` and ``limit`` stream one row at a time. ``sort`` and
``dedupe`` keep at most ``memory_rows`` rows in memory and spill sorted runs to temporary
files, merged with :func:`heapq.merge` (at most ``MERGE_FAN_IN`` files at once).

Planning is linear: each step costs time in proportion to its own column list (``dedupe``
without columns: to the header's width), never header width times step size. Long loops
call ``check`` about every ``CHECK_CELLS`` cells, so a cancel or a deadline stops any step.
"""
import csv
import heapq
import io
import itertools
import tempfile

MERGE_FAN_IN = 64
CHECK_CELLS = 16384  # call ``check`` after about this many cells of work
SHOWN_NAMES = 20  # column names quoted in an error message
SHOWN_NAME_CHARS = 100  # characters of one name quoted in an error message


class PipelineError(Exception):
    """The run fails with this message as its ``error``."""


def number(text):
    """``text`` as a float when it reads as a finite number, else None."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None


def check_every(width):
    """Rows between two checks for rows of ``width`` cells."""
    return max(1, CHECK_CELLS // max(1, width))


def names(header):
    """The column names for an error message: at most ``SHOWN_NAMES``, each shortened."""
    shown = [name if len(name) <= SHOWN_NAME_CHARS else name[:SHOWN_NAME_CHARS] + "..."
             for name in itertools.islice(header, SHOWN_NAMES)]
    more = len(header) - len(shown)
    return ", ".join(shown) + (f", ... ({len(header)} columns)" if more > 0 else "") \
        or "(none)"


class Columns:
    """The header between steps with a name → position map, kept up to date by each
    step in time proportional to the step, not to the header's width."""

    def __init__(self, header):
        self.header = list(header)
        self.positions = {name: i for i, name in enumerate(self.header)}
        if len(self.positions) != len(self.header):
            raise PipelineError("the source file has duplicate column names")

    def index(self, column, position, op):
        try:
            return self.positions[column]
        except KeyError:
            raise PipelineError(
                f"step {position} ({op}): column {column!r} does not exist; "
                f"the columns are: {names(self.header)}"
            ) from None

    def indexes(self, columns, position, op, check):
        out = []
        for n, column in enumerate(columns):
            if n % CHECK_CELLS == 0:
                check()
            out.append(self.index(column, position, op))
        return out

    def select(self, columns, position, check):
        indexes = self.indexes(columns, position, "select", check)
        header = [self.header[i] for i in indexes]
        positions = {name: i for i, name in enumerate(header)}
        if len(positions) != len(header):
            twice = next(name for n, name in enumerate(header) if positions[name] != n)
            raise PipelineError(f"step {position} (select): column {twice!r} is selected "
                                "more than once")
        self.header, self.positions = header, positions
        return indexes

    def rename(self, mapping, position, check):
        """Rename in place: the result has a duplicate when two new names are equal or a
        new name is a column that is not renamed."""
        moves = [(self.index(old, position, "rename"), new) for old, new in mapping.items()]
        moves = [(i, new) for i, new in moves if self.header[i] != new]
        check()
        new_names = [new for _, new in moves]
        moved = {self.header[i] for i, _ in moves}
        clash = len(set(new_names)) != len(new_names) or any(
            new in self.positions and new not in moved for new in new_names)
        if clash:
            result = list(self.header)
            for i, new in moves:
                result[i] = new
            raise PipelineError(f"step {position} (rename): the result has duplicate "
                                f"column names: {names(result)}")
        for i, _ in moves:
            del self.positions[self.header[i]]
        for i, new in moves:
            self.header[i] = new
            self.positions[new] = i


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

    def __init__(self, folder=None, check=None, every=1024):
        self.folder = folder
        self.files = []
        self.check = check or (lambda: None)
        self.every = every

    def write(self, rows):
        handle = tempfile.TemporaryFile("w+", newline="", encoding="utf-8", dir=self.folder)
        self.files.append(handle)
        writer = csv.writer(handle)
        for n, row in enumerate(rows):
            writer.writerow(row)
            if n % self.every == 0:
                self.check()  # a long merge still notices a cancel
        handle.seek(0)
        return handle

    def read(self, handle):
        yield from csv.reader(handle)
        handle.close()

    def close(self):
        for handle in self.files:
            handle.close()


def _sort_buffer(buffer, keys, reverse):
    """``buffer`` in the order of ``keys`` (computed beforehand, with checks), stable."""
    order = sorted(range(len(buffer)), key=keys.__getitem__, reverse=reverse)
    return [buffer[i] for i in order]


def external_sort(rows, key, memory_rows, reverse=False, temp_dir=None, check=None,
                  every=1024):
    """Sorted ``rows`` (stable), holding at most ``memory_rows`` of them in memory.
    Keys are computed one row at a time with ``check`` every ``every`` rows, so even a
    sort on many columns stops at once when ``check`` raises."""
    check = check or (lambda: None)
    buffer, keys, runs, spiller = [], [], [], None
    try:
        for row in rows:
            if len(buffer) % every == 0:
                check()
            buffer.append(row)
            keys.append(key(row))
            if len(buffer) >= memory_rows:
                spiller = spiller or Spiller(temp_dir, check, every)
                runs.append(spiller.write(_sort_buffer(buffer, keys, reverse)))
                buffer, keys = [], []
                if len(runs) >= MERGE_FAN_IN:  # fold the runs so far into one
                    runs = [spiller.write(heapq.merge(*map(spiller.read, runs),
                                                      key=key, reverse=reverse))]
        check()
        buffer = _sort_buffer(buffer, keys, reverse)
        keys = []
        if not runs:
            yield from buffer
            return
        if buffer:
            runs.append(spiller.write(buffer))
        buffer = []
        yield from heapq.merge(*map(spiller.read, runs), key=key, reverse=reverse)
    finally:
        if spiller is not None:
            spiller.close()


def _dedupe(rows, indexes, memory_rows, temp_dir, check, every):
    """First occurrence of each key, in input order: sort by (key, position), keep the
    first of each group, sort the survivors back by position. Both sorts are bounded."""
    numbered = ([str(n)] + row for n, row in enumerate(rows))
    shifted = [i + 1 for i in indexes]

    def by_key(row):
        return ([row[i] for i in shifted], int(row[0]))

    survivors = (
        next(group) for _, group in itertools.groupby(
            external_sort(numbered, by_key, memory_rows, temp_dir=temp_dir, check=check,
                          every=every),
            key=lambda row: [row[i] for i in shifted])
    )
    for row in external_sort(survivors, lambda row: int(row[0]), memory_rows,
                             temp_dir=temp_dir, check=check, every=every):
        yield row[1:]


def apply_steps(header, rows, steps, memory_rows, temp_dir=None, check=None,
                memory_cells=None):
    """``(header, rows)`` after ``steps``. Every column is checked against the header
    before any row is read, so a wrong column fails the run at once. ``check`` is called
    between steps and now and then during long ones, and may raise to stop the work.
    ``sort`` and ``dedupe`` hold at most ``memory_rows`` rows and ``memory_cells`` cells."""
    check = check or (lambda: None)
    columns = Columns(header)
    for position, step in enumerate(steps):
        check()
        op = step["op"]
        width = len(columns.header)
        held = max(1, min(memory_rows, (memory_cells or memory_rows * width) // max(1, width)))
        every = check_every(width)
        if op == "select":
            indexes = columns.select(step["columns"], position, check)
            rows = ([row[i] for i in indexes] for row in rows)
        elif op == "rename":
            columns.rename(step["mapping"], position, check)
        elif op == "filter":
            i = columns.index(step["column"], position, op)
            predicate = _compare(step["operator"], step["value"])
            rows = (row for row in rows if predicate(row[i]))
        elif op == "sort":
            indexes = columns.indexes(step["columns"], position, op, check)
            rows = external_sort(rows, sort_key(indexes), held,
                                 reverse=step.get("descending", False), temp_dir=temp_dir,
                                 check=check, every=every)
        elif op == "dedupe":
            indexes = columns.indexes(step["columns"], position, op, check) \
                if step.get("columns") else list(range(width))
            rows = _dedupe(rows, indexes, held, temp_dir, check, every)
        elif op == "limit":
            rows = itertools.islice(rows, step["count"])
        else:  # validated at create time; a stored step from a newer version
            raise PipelineError(f"step {position}: unknown op {op!r}")
    check()
    return columns.header, rows


def _lines(text, max_line_size):
    """The physical lines of ``text``; one longer than ``max_line_size`` characters
    (without its line break) fails the run before it is parsed."""
    number = 0
    while True:
        line = text.readline(max_line_size + 2)
        if not line:
            return
        number += 1
        if len(line) > max_line_size and len(line.rstrip("\r\n")) > max_line_size:
            raise PipelineError(f"line {number} of the source is longer than "
                                f"{max_line_size} characters (PIPELINE_MAX_LINE_SIZE)")
        yield line


def read_csv(binary, max_columns=None, max_field_size=131072, max_line_size=4194304):
    """``(header, rows)`` of a CSV file object; short rows are padded, long rows refused,
    and a header wider than ``max_columns``, a field longer than ``max_field_size`` or a
    line longer than ``max_line_size`` characters fail the run."""
    # The csv module's limit is per process; every run sets its own before reading.
    csv.field_size_limit(max_field_size)
    text = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")
    reader = csv.reader(_lines(text, max_line_size))

    def unreadable(exc):
        if isinstance(exc, csv.Error) and "field larger than field limit" in str(exc):
            return PipelineError(f"line {reader.line_num} of the source has a field longer "
                                 f"than {max_field_size} characters (PIPELINE_MAX_FIELD_SIZE)")
        return PipelineError(f"the source file is not a readable CSV: {exc}")

    try:
        header = next(reader)
    except StopIteration:
        raise PipelineError("the source file is empty (no header row)") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise unreadable(exc) from None
    width = len(header)
    if max_columns is not None and width > max_columns:
        raise PipelineError(f"the source file has {width} columns; at most {max_columns} "
                            "are allowed (PIPELINE_MAX_COLUMNS)")
    if len(set(header)) != width:
        raise PipelineError("the source file has duplicate column names")

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
            raise unreadable(exc) from None

    return header, rows()
