"""The sql step's parse check: whether a query is one read-only SELECT over ``input``,
decided on DuckDB's own parse tree (docs/reference/pipelines.rst, "Steps")."""

import functools
import itertools
import json
import os
import re
import threading
from dataclasses import dataclass

import duckdb

# Functions a sql step may not call (docs/reference/pipelines.rst, "Steps"): they tell about the server, not
# the data.
DENIED_FUNCTIONS = frozenset(
    {
        # settings (which name server paths), variables, the environment
        "current_setting",
        "getvariable",
        "getenv",
        # the query's own text, which names the run's files and folders
        "current_query",
        # the engine: its version, and its process's counters of connections, queries and
        # transactions (how much else it ran)
        "version",
        "current_connection_id",
        "current_query_id",
        "current_transaction_id",
        "txid_current",
        # the databases and their catalog (macros that read the catalog's table functions
        # included); json_serialize_plan binds a query given as text, past this check
        "current_database",
        "current_catalog",
        "current_schema",
        "current_schemas",
        "in_search_path",
        "get_block_size",
        "pg_get_viewdef",
        "pg_get_constraintdef",
        "format_type",
        "json_serialize_plan",
    }
)
# Of those, the ones an unqualified name without parentheses calls when no column has it.
BARE_FUNCTIONS = frozenset({"current_catalog", "current_schema"})
# The table functions a sql step may call: they generate rows and read nothing.
GENERATORS = frozenset({"range", "generate_series"})
# How deep a query's parse tree (as JSON) may nest: deeper, json.loads would recurse past
# Python's limit. 300 levels hold about 100 nested function calls or 90 nested subqueries.
MAX_TREE_DEPTH = 300
TOO_DEEP = (
    "the query nests too deeply (parentheses, function calls, CASE or subqueries within each other)"
)
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]")


def json_depth(text):
    """How deeply the JSON ``text`` nests, found without recursion."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(itertools.accumulate(1 if char in "[{" else -1 for char in brackets), default=0)


def check_select(query):
    """Why ``query`` is not one read-only SELECT over ``input`` (a message), or None.

    DuckDB's own parser decides what the query is: exactly one statement, a SELECT (a
    set operation of SELECTs included), whose tables are ``input`` or the query's own
    common table expressions, and which calls no table function but ``GENERATORS`` and
    none of ``DENIED_FUNCTIONS``. The run's connection is sandboxed as well.
    """
    problem, _ = _checked(query, TableRule(("input",), "the table input", "input"))
    return problem


@functools.lru_cache(maxsize=64)
def check_console_select(query):
    """``(problem, tables)``: as :func:`check_select`, but the tables are whatever the query
    names without a schema or catalog (datasets, resolved by the caller). ``tables`` (when
    there is no problem) are ``(name, required)``, each name once as DuckDB compares them,
    sorted; a name that is also one of the query's WITH names is not required: it means
    the dataset only outside that WITH's scope, if there is one. Cached: the body's check
    and the service ask alike."""
    return _checked(query, TableRule(None, "datasets", "datasets"))


def statement_text(query):
    """``query``'s one statement without the semicolons and comments after it (DuckDB's
    tokenizer tells them from the same characters in a string), so that it can be nested
    in another query."""
    end = len(query)
    for start, kind in reversed(duckdb.tokenize(query)):
        if kind == duckdb.token_type.comment or query[start:end].strip() == ";":
            end = start
            continue
        break
    return query[:end].rstrip()


def identifier_key(name):
    """How DuckDB compares identifiers: ASCII letters without case, others as written."""
    return name.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class TableRule:
    """Which tables a query may name besides its own WITH names: ``names`` (lower case),
    or any unqualified name when None; ``readable`` says what it can read, in messages."""

    names: tuple | None
    readable: str
    generators_note: str  # what it reads, after the list of table functions it may call


def _checked(query, rule):
    if "\x00" in query:
        return "the query must not contain NUL characters", ()
    text = _parser().execute("SELECT json_serialize_sql(?)", [query]).fetchone()[0]
    if json_depth(text) > MAX_TREE_DEPTH:
        return TOO_DEEP, ()
    parsed = json.loads(text)
    if parsed.get("error"):
        message = str(parsed.get("error_message", ""))
        if "Only SELECT statements" in message:
            return "the query must be a single SELECT statement", ()
        if "Max expression depth" in message:
            return TOO_DEEP, ()
        first = message.splitlines()[0][:300] if message else ""
        return f"the query does not parse: {first}", ()
    statements = parsed.get("statements", [])
    if len(statements) != 1:
        return "the query must be a single SELECT statement", ()
    ctes = {name.lower() for name in _cte_names(statements[0])}
    # A WITH name applies to its own scope only; one that is also a system view's name
    # (pg_settings, duckdb_settings, ...) would let another scope read that view.
    shadowed = sorted(ctes & system_views())
    if shadowed:
        return f"the query must not name a WITH table {shadowed[0]!r} (a system view)", ()
    tables = {}
    for node in json_nodes(statements[0]):
        problem = _check_node(node, ctes, rule, tables)
        if problem:
            return problem, ()
    return None, tuple(tables[key] for key in sorted(tables))


_parsers = threading.local()


def _parser():
    """This thread's DuckDB connection for parsing (opening one takes about 12 ms; it only
    ever parses text given as a parameter, and a forked process opens its own)."""
    pid, con = getattr(_parsers, "connection", (None, None))
    if pid != os.getpid():
        con = duckdb.connect(
            ":memory:",
            config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
        )
        _parsers.connection = (os.getpid(), con)
    return con


def _check_node(node, ctes, rule, tables):
    kind = node.get(NODE_KIND)
    if kind == "SHOW_REF":
        return "the query must not SHOW or DESCRIBE tables"
    if kind == "TABLE_FUNCTION":
        function = node.get("function") or {}
        if str(function.get("function_name", "")).lower() not in GENERATORS:
            return (
                "the query must not call table functions other than range and "
                f"generate_series; it can read only {rule.generators_note}"
            )
    if kind == "BASE_TABLE":
        problem = _check_table(node, ctes, rule, tables)
        if problem:
            return problem
    if node.get("class") == "PARAMETER" or kind == "VALUE_PARAMETER":
        return "the query must not have parameters (? or $1); write values in it"
    if (
        node.get("class") == "FUNCTION"
        and str(node.get("function_name", "")).lower() in DENIED_FUNCTIONS
    ):
        return f"the query must not call {node.get('function_name')}()"
    if node.get("class") == "COLUMN_REF":
        names = node.get("column_names") or []
        if len(names) == 1 and str(names[0]).lower() in BARE_FUNCTIONS:
            return (
                f"the query must not call {names[0]} (for a column of that name, "
                f"write {_table_hint(rule)}.{names[0]})"
            )
    return None


def _check_table(node, ctes, rule, tables):
    name = str(node.get("table_name", ""))
    if node.get("schema_name") or node.get("catalog_name"):
        if rule.names is None:
            qualified = ".".join(
                str(part)
                for part in (node.get("catalog_name"), node.get("schema_name"), name)
                if part
            )
            return (
                f"the query must not name a schema or database ({qualified!r}); quote a "
                'dataset\'s name as one identifier: "My data.csv"'
            )
        return f"the query can read only {rule.readable} (and its own WITH names), not {name!r}"
    if rule.names is None:
        key = identifier_key(name)
        required = tables.get(key, (name, False))[1] or name.lower() not in ctes
        tables[key] = (tables.get(key, (name,))[0], required)
        return None
    if name.lower() in ctes:
        return None
    if name.lower() not in rule.names:
        return f"the query can read only {rule.readable} (and its own WITH names), not {name!r}"
    return None


def _table_hint(rule):
    return rule.names[0] if rule.names else "the_table"


# A parse-tree node's kind, in json_serialize_sql's output.
NODE_KIND = "type"

_system_views = None


def system_views():
    """The lower-cased names of the views and tables of an empty DuckDB database."""
    global _system_views
    if _system_views is None:
        con = duckdb.connect(":memory:")
        try:
            _system_views = frozenset(
                name.lower()
                for (name,) in con.execute(
                    "SELECT view_name FROM duckdb_views() UNION SELECT table_name FROM "
                    "duckdb_tables()"
                ).fetchall()
            )
        finally:
            con.close()
    return _system_views


def json_nodes(tree):
    """Every JSON object in ``tree``, depth first."""
    stack = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _cte_names(tree):
    for node in json_nodes(tree):
        for entry in (node.get("cte_map") or {}).get("map") or []:
            if isinstance(entry, dict) and "key" in entry:
                yield str(entry["key"])
