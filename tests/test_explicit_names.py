"""No view, service or schema is found through a name built as a string: every caller of a
function names it, so that a search for the function finds its callers."""
import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "datahub"
# Functions that look a name up: a built name there is a call nobody can find.
LOOKUPS = {"getattr", "hasattr", "import_module", "__import__"}


def built(node):
    """Whether ``node`` makes a string at run time: an f-string, ``+`` or ``%`` on strings,
    ``"...".format(...)`` or ``"...".join(...)``."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return any(text(side) or built(side) for side in (node.left, node.right))
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("format", "join") and text(node.func.value))


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
        argument = node.args[0] if name in ("import_module", "__import__") else (
            node.args[1] if len(node.args) > 1 else None)
        if argument is not None and built(argument):
            found.append(f"{filename}:{node.lineno}")
    return found


def test_no_name_is_built_to_find_a_function_or_a_class():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += built_lookups(path.read_text(), str(path.relative_to(PACKAGE.parent)))
    assert found == []


def test_the_scan_finds_built_names():
    source = '''
getattr(services, f"update_{kind}")
getattr(schemas, title + "UpdateSchema", None)
hasattr(module, "get_%s" % kind)
importlib.import_module("datahub.{}.routes".format(feature))
getattr(view_class, method, None)
getattr(row, "name")
'''
    assert built_lookups(source) == ["<source>:2", "<source>:3", "<source>:4", "<source>:5"]
