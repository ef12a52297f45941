"""A filter step's condition (datahub.pipelines.engine): a value compared as a number with
a number column, as its column's type with a date, time or boolean column, else as text."""

import re

from datahub.datasets.tabular import quote

SQL_OPERATORS = {"eq": "=", "ne": "<>", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
NUMBER_TYPE = re.compile(
    r"^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|FLOAT|DOUBLE|REAL|DECIMAL(\(\d+,\s*\d+\))?)$"
)
# Types a filter value is converted to (when it converts) before comparing.
TYPED = re.compile(
    r"^(DATE|TIME|TIMESTAMP|TIMESTAMP WITH TIME ZONE|TIMESTAMP_[A-Z]+|BOOLEAN|UUID|INTERVAL)$"
)


def number(value):
    """``value`` as a finite number when it is one or reads as one, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -(2**63) < value < 2**63 else float(value)
    try:
        result = float(value)
    except (TypeError, ValueError):
        return None
    return result if result == result and result not in (float("inf"), float("-inf")) else None


def number_text(value):
    """How a number value is written as text (``34.0`` → ``34``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def filter_condition(column, kind, operator, value):
    """``(sql, params)``: the condition of a filter step (see ``FilterStep``)."""
    cell = quote(column)
    text = f"COALESCE(CAST({cell} AS VARCHAR), '')"
    if operator == "contains":
        needle = value if isinstance(value, str) else number_text(value)
        return f"contains({text}, ?)", [needle]
    op = SQL_OPERATORS[operator]
    value_text = value if isinstance(value, str) else number_text(value)
    value_number = number(value)
    if value_number is not None and NUMBER_TYPE.match(kind):
        return (
            f"(CASE WHEN {cell} IS NOT NULL THEN {cell} {op} ? ELSE {text} {op} ? END)",
            [value_number, value_text],
        )
    if TYPED.match(kind):
        typed = f"TRY_CAST(? AS {kind})"
        return (
            f"(CASE WHEN {cell} IS NOT NULL AND {typed} IS NOT NULL THEN {cell} {op} "
            f"{typed} ELSE {text} {op} ? END)",
            [value_text, value_text, value_text],
        )
    return f"{text} {op} ?", [value_text]
