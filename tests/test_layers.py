"""The package's layers point only down, and no import (lazy ones included) closes a circle.

The folders are the layers. The tables below are the rules, and the layout page of the
docs (docs/contributing/layout.rst, through docs/_ext/datahub_layout.py) is made from them:
``LAYER_NAMES`` names and describes each layer, ``LAYERS`` maps each folder or module to
its layer (a module's layer is the one of the longest prefix of its path there), and
``FEATURE_USES`` says which features a feature may import.
"""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "datahub"

# Each layer: its name, and what it holds.
LAYER_NAMES = {
    1: (
        "settings and platform",
        "What serves and stores, knowing no request, user or feature: the settings, what an "
        "app keeps one of, the database, storage, rate-limit storage, isolated processes, "
        "serving, the domain errors and their messages, the audit log and the counters of "
        "what happens off the request path.",
    ),
    2: (
        "web",
        "The HTTP contract every endpoint shares: its errors and their handlers, bodies, "
        "validation, the flask-smorest glue and OpenAPI parts, request ids, rate limits, the "
        "HTTP requests' counters and the logs; with the extension objects and the Flask "
        "subclass.",
    ),
    3: (
        "identity",
        "Users, passwords, tokens, sessions, the request guard and ``current_user``, "
        "permissions, groups, logins (local, LDAP, OpenID Connect) and the auth cache.",
    ),
    4: (
        "features",
        "What named, owned resources share (``resources``), and the features: datasets, "
        "collections, pipelines, events and webhooks, search, the SQL console, quotas, "
        "operations, the docs' links, the web app, and the administration of users and "
        "groups.",
    ),
    5: ("auth", "The login, refresh, logout and token routes, on top of the users feature."),
    6: (
        "the app",
        "The factory, start-up, and the isolated processes' program, which assemble all the "
        "others.",
    ),
}
LAYERS = {
    "datahub.app.config": 1,
    "datahub.app.config_checks": 1,
    "datahub.app.secrets": 1,
    "datahub.app.registry": 1,
    "datahub.platform": 1,
    "datahub.web": 2,
    "datahub.app.extensions": 2,
    "datahub.app.flask_app": 2,
    "datahub.identity": 3,
    "datahub.resources": 4,
    "datahub.datasets": 4,
    "datahub.collections": 4,
    "datahub.pipelines": 4,
    "datahub.events": 4,
    "datahub.search": 4,
    "datahub.query": 4,
    "datahub.quotas": 4,
    "datahub.ops": 4,
    "datahub.docs": 4,
    "datahub.spa": 4,
    "datahub.identity.users": 4,
    "datahub.identity.groups": 4,
    "datahub.identity.auth": 5,
    # On the auth blueprint (/auth/tokens), beside the login routes.
    "datahub.identity.personal_tokens.routes": 5,
    "datahub.app": 6,
    "datahub": 6,
}
FEATURES = 4
# Imports that point up on purpose, each with its reason.
ALLOWED_UPWARD = set()
# Which features a feature may import, each with its reason.
FEATURE_USES = {
    # A dataset is a named, owned resource; its owner's quota is checked as it grows; its
    # changes are events.
    "datahub.datasets": {"datahub.resources", "datahub.quotas", "datahub.events"},
    # A collection is a resource that holds datasets.
    "datahub.collections": {"datahub.datasets", "datahub.resources"},
    # A pipeline is a resource that reads datasets and writes one; its runs are counted
    # against a quota and are events.
    "datahub.pipelines": {
        "datahub.datasets",
        "datahub.resources",
        "datahub.quotas",
        "datahub.events",
        "datahub.search",  # a worker reads datasets' values for the search index
    },
    # The index holds datasets, collections and pipelines, and filters by access.
    "datahub.search": {
        "datahub.datasets",
        "datahub.collections",
        "datahub.pipelines",
        "datahub.resources",
    },
    # The console reads datasets as the sql step reads its input.
    "datahub.query": {"datahub.datasets", "datahub.pipelines", "datahub.resources"},
    # Events are about datasets and pipelines, shown to who may read them.
    "datahub.events": {"datahub.datasets", "datahub.pipelines", "datahub.resources"},
    # Quotas count datasets' bytes and pipelines' runs.
    "datahub.quotas": {"datahub.datasets", "datahub.pipelines"},
    # The /metrics gauges read the datasets' and the runs' tables.
    "datahub.ops": {"datahub.datasets", "datahub.pipelines"},
    # A member is a user; the commands find one by email.
    "datahub.identity.groups": {"datahub.identity.users"},
}


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules():
    return {
        module_name(path): path for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts
    }


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


def prefix_of(module):
    """The longest prefix of ``module`` in ``LAYERS``."""
    name = module
    while name not in LAYERS:
        name = name.rpartition(".")[0]
    return name


def layer_of(module):
    return LAYERS[prefix_of(module)]


def test_every_layer_has_a_name():
    assert sorted(LAYER_NAMES) == sorted(set(LAYERS.values()))


def test_every_folder_and_top_module_has_a_layer():
    tops = {".".join(name.split(".")[:2]) for name in modules() if name != "datahub"}
    assert sorted(top for top in tops if top not in LAYERS) == []


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
    assert "datahub.app.extensions" in edges["datahub.identity.models"]
    assert "datahub.identity.sessions" in edges["datahub.identity.auth.routes"]
    assert "datahub.app.bootstrap" not in edges["datahub.app.factory"]  # gunicorn.conf.py's
    assert "datahub.identity.auth.routes" in edges["datahub.app.factory"]  # in a function


def test_no_import_circle():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_upward_import():
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in graph().items()
        for target in targets
        if layer_of(target) > layer_of(module) and (module, target) not in ALLOWED_UPWARD
    )
    assert upward == []


# Modules that import nothing under a prefix of a lower layer, each with its reason.
NEVER_IMPORTS = {
    # The server registers its body readers' errors (datahub.platform.errors.treat_as).
    ("datahub.web.error_handlers", "datahub.platform.serving"),
}


@pytest.mark.parametrize(("module", "prefix"), sorted(NEVER_IMPORTS))
def test_what_a_module_never_imports(module, prefix):
    assert not [name for name in graph()[module] if name == prefix or name.startswith(prefix + ".")]


def test_features_use_only_the_features_they_declare():
    crossing = sorted(
        f"{module} -> {target}"
        for module, targets in graph().items()
        for target in targets
        if layer_of(module) == layer_of(target) == FEATURES
        and prefix_of(target) != prefix_of(module)
        and prefix_of(target) not in FEATURE_USES.get(prefix_of(module), ())
    )
    assert crossing == []


# The bottom modules, each with what it may import of ours.
BOTTOM = {
    "datahub.web.errors": set(),
    "datahub.platform.errors": set(),
    "datahub.web.validation.fields": {"datahub.platform.errors"},  # ErrorMessage
    "datahub.platform.database": set(),
}


@pytest.mark.parametrize("module", sorted(BOTTOM))
def test_the_bottom_imports_nothing_of_ours(module):
    assert graph()[module] == BOTTOM[module]


# What a feature can do (its services), what it stores (its models) and what the workers
# run import nothing of the web layer, even where their layer is above it: what they share
# with the web (the audit log, error messages, counters) is the platform's.
KNOWS_NO_WEB_NAMES = ("services", "models")  # a module so named, or named ``*_models``
# The modules the workers run (pipeline runs, checks, profiles, the search values, webhook
# deliveries), which answer no request.
WORKER_MODULES = (
    "datahub.pipelines.worker",
    "datahub.pipelines.supervisor",
    "datahub.pipelines.tasks",
    "datahub.pipelines.execute",
    "datahub.pipelines.lineage.openlineage",
    "datahub.datasets.checks.auditor",
    "datahub.datasets.profiles.profiler",
    "datahub.search.values",
    "datahub.events.webhooks.dispatch",
    "datahub.events.webhooks.claims",
    "datahub.events.webhooks.sending",
    "datahub.events.retention",
)


def knows_no_web(module):
    last = module.rpartition(".")[2]
    return last in KNOWS_NO_WEB_NAMES or last.endswith("_models") or module in WORKER_MODULES


def web_imports(edges):
    return sorted(
        f"{module} -> {target}"
        for module, targets in edges.items()
        if knows_no_web(module)
        for target in targets
        if target == "datahub.web" or target.startswith("datahub.web.")
    )


def test_services_models_and_workers_import_nothing_of_the_web_layer():
    assert web_imports(graph()) == []


def test_the_web_rule_sees_each_kind():
    edges = {
        "datahub.datasets.services": {"datahub.web.audit"},
        "datahub.events.webhooks.models": {"datahub.web"},
        "datahub.pipelines.worker": {"datahub.web.metrics"},
        "datahub.pipelines.routes": {"datahub.web.api"},
        "datahub.identity.models": {"datahub.platform.audit"},
    }
    assert web_imports(edges) == [
        "datahub.datasets.services -> datahub.web.audit",
        "datahub.events.webhooks.models -> datahub.web",
        "datahub.pipelines.worker -> datahub.web.metrics",
    ]


def test_the_named_modules_exist():
    assert [name for name in WORKER_MODULES if name not in modules()] == []


# Below the web layer nothing knows HTTP: the platform, and what features can do (their
# services), raise domain errors (datahub.platform.errors) and read no request.
KNOWS_NO_HTTP = (
    "datahub.platform",
    "datahub.resources.services",
    "datahub.datasets.services",
    "datahub.collections.services",
    "datahub.pipelines.services",
    "datahub.identity.users.services",
    "datahub.identity.groups.services",
)
HTTP = ("werkzeug", "datahub.web", "flask.request", "flask.abort")
# Each with its reason.
ALLOWED_HTTP = set()


def http_imports(path):
    """What ``path`` imports of ``HTTP``, as dotted names (``flask.request``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(
            name
            for name in names
            if any(name == http or name.startswith(http + ".") for http in HTTP)
        )
    return found


def test_nothing_below_the_web_layer_knows_http():
    knowing = sorted(
        f"{module} -> {name}"
        for module, path in modules().items()
        if any(module == prefix or module.startswith(prefix + ".") for prefix in KNOWS_NO_HTTP)
        for name in http_imports(path)
        if (module, name) not in ALLOWED_HTTP
    )
    assert knowing == []


def test_the_http_scan_finds_each_kind(tmp_path):
    path = tmp_path / "example.py"
    path.write_text(
        "import werkzeug.exceptions\nfrom flask import request, current_app\n"
        "from flask import abort\nfrom datahub.web.errors import NotFound\n"
        "def f():\n    from datahub.web import bodies\n"
    )
    assert http_imports(path) == {
        "werkzeug.exceptions",
        "flask.request",
        "flask.abort",
        "datahub.web.errors.NotFound",
        "datahub.web.bodies",
    }
