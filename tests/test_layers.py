"""The package's layers point only down, and no import (lazy ones included) closes a circle.

Layers, from the bottom (README "How the code is laid out"):

1. foundation: configuration, extensions, the error table, bodies, validation, serving,
   the smorest glue and the shared resource shapes. Knows no user and no feature.
2. identity: the identity core (datahub.identity). Every feature may use it.
3. features: datasets, collections, pipelines, users administration, ops, the SPA, and
   the views those named, owned resources share (datahub.resource_views).
4. auth: the login, refresh and logout routes, on top of the core and the users feature.
5. app: the factory (``datahub/__init__.py``) and start-up (``datahub.bootstrap``).

Features may use one another only as ``FEATURE_USES`` lists.
"""
import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "datahub"

FEATURES = ("datasets", "collections", "pipelines", "users", "ops", "docs", "spa",
            "resource_views", "quotas")
LAYERS = {
    "identity": 2,
    **{feature: 3 for feature in FEATURES},
    "auth": 4,
    "bootstrap": 5,
    "jobs": 5,  # the isolated processes' program: it imports the features' jobs
    "": 5,  # datahub/__init__.py
}
FOUNDATION = 1
# Which features a feature may import: collections hold datasets, pipelines read them;
# the three share their views; quotas count datasets and runs, which check them.
FEATURE_USES = {
    "datasets": {"resource_views", "quotas"},
    "collections": {"datasets", "resource_views"},
    "pipelines": {"datasets", "resource_views", "quotas"},
    "quotas": {"datasets", "pipelines"},
    "ops": {"datasets", "pipelines"},  # the /metrics gauges read their tables
}


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules():
    return {module_name(path): path for path in PACKAGE.rglob("*.py")
            if "migrations" not in path.parts}


def imports_of(path, known):
    """Every datahub module ``path`` imports, wherever the import statement stands."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        for name in names:
            if name == "datahub" or not name.startswith("datahub."):
                continue
            while name not in known:  # ``from datahub.x import function`` → datahub.x
                name = name.rpartition(".")[0]
            if name != "datahub":
                found.add(name)
    return found


def graph():
    known = modules()
    return {name: imports_of(path, known) - {name} for name, path in known.items()}


def top_part(module):
    return module.split(".")[1] if "." in module else ""


def layer_of(module):
    return LAYERS.get(top_part(module), FOUNDATION)


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in edges:
        if node not in index:
            visit(node)
    return found


def test_the_walk_sees_every_kind_of_import():
    edges = graph()
    # Module level, "from package import module", and inside a function.
    assert "datahub.extensions" in edges["datahub.identity.models"]
    assert "datahub.identity.sessions" in edges["datahub.auth.routes"]
    assert "datahub.bootstrap" not in edges["datahub"]  # it is gunicorn.conf.py's
    assert "datahub.auth.routes" in edges["datahub"]  # imported in register_blueprints


def test_no_import_circle():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_upward_import():
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in graph().items() for target in targets
        if layer_of(target) > layer_of(module)
    )
    assert upward == []


def test_features_use_only_the_features_they_declare():
    crossing = sorted(
        f"{module} -> {target}"
        for module, targets in graph().items() for target in targets
        if layer_of(module) == layer_of(target) == 3
        and top_part(target) != top_part(module)
        and top_part(target) not in FEATURE_USES.get(top_part(module), ())
    )
    assert crossing == []


@pytest.mark.parametrize("module", ["datahub.errors", "datahub.secrets", "datahub.fields", "datahub.database"])
def test_the_bottom_imports_nothing_of_ours(module):
    assert graph()[module] == set()
