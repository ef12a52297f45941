"""The shape of the code: no view, service or schema is found through a name built as a
string (every caller of a function names it, so a search for the function finds its
callers), what an app keeps one of is made in one place (datahub.app.registry), and no
module is longer than a reader can take in (docs: contributing/layout)."""

import ast
import pathlib
import threading
import time
import types

from datahub.app.registry import per_app

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "datahub"
# Functions that look a name up: a built name there is a call nobody can find.
LOOKUPS = {"getattr", "hasattr", "import_module", "__import__"}
MAX_MODULE_LINES = 400


def test_no_module_is_over_400_lines():
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def built(node):
    """Whether ``node`` makes a string at run time: an f-string, ``+`` or ``%`` on strings,
    ``"...".format(...)`` or ``"...".join(...)``."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return any(text(side) or built(side) for side in (node.left, node.right))
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("format", "join")
        and text(node.func.value)
    )


def text(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def built_lookups(source, filename="<source>"):
    """``file:line`` of each lookup whose name is built."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call) or len(node.args) < 1:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in LOOKUPS:
            continue
        argument = (
            node.args[0]
            if name in ("import_module", "__import__")
            else (node.args[1] if len(node.args) > 1 else None)
        )
        if argument is not None and built(argument):
            found.append(f"{filename}:{node.lineno}")
    return found


def test_no_name_is_built_to_find_a_function_or_a_class():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += built_lookups(path.read_text(), str(path.relative_to(PACKAGE.parent)))
    assert found == []


def test_the_scan_finds_built_names():
    source = """
getattr(services, f"update_{kind}")
getattr(schemas, title + "UpdateSchema", None)
hasattr(module, "get_%s" % kind)
importlib.import_module("datahub.{}.routes".format(feature))
getattr(view_class, method, None)
getattr(row, "name")
"""
    assert built_lookups(source) == ["<source>:2", "<source>:3", "<source>:4", "<source>:5"]


# Writing ``app.extensions`` outside the registry, each with its reason.
OWN_EXTENSION_KEYS = {
    # Celery's Flask pattern: the Celery app, made at start-up, under the key its
    # documentation uses.
    "datahub/pipelines/tasks.py",
    "datahub/app/registry.py",
}


def extension_writes(source, filename="<source>"):
    """``file:line`` of each ``….extensions[key] = …`` and ``….extensions.setdefault(…)``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        targets = node.targets if isinstance(node, ast.Assign) else []
        written = [target.value for target in targets if isinstance(target, ast.Subscript)]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "setdefault"
        ):
            written.append(node.func.value)
        if any(isinstance(each, ast.Attribute) and each.attr == "extensions" for each in written):
            found.append(f"{filename}:{node.lineno}")
    return found


def test_one_registry_makes_what_an_app_keeps():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = str(path.relative_to(PACKAGE.parent))
        if name not in OWN_EXTENSION_KEYS:
            found += extension_writes(path.read_text(), name)
    assert found == []


def test_the_scan_finds_extension_writes():
    source = """
app.extensions["datahub.x"] = make()
current_app.extensions.setdefault("datahub.y", {})
state = app.extensions.get("datahub.z")
cache[key] = value
"""
    assert extension_writes(source) == ["<source>:2", "<source>:3"]


def test_the_registry_makes_one_of_each_also_when_threads_race_and_makes_nest():
    app = types.SimpleNamespace(extensions={})
    made = []

    def make_inner():
        made.append("inner")
        time.sleep(0.05)  # the others ask meanwhile
        return object()

    def make_outer():  # a thing that needs another one of the app's
        made.append("outer")
        return ("outer", per_app(app, "inner", make_inner))

    found = []
    threads = [
        threading.Thread(
            target=lambda: found.append(per_app(app, "outer", make_outer)), daemon=True
        )
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=1)
    assert made == ["outer", "inner"]
    assert len(found) == 8 and len({id(each) for each in found}) == 1
