"""Blueprints and their routes are registered explicitly: the app factory imports each
blueprint from the one module that adds its routes (``route``, ``add_url_rule``, ``get``,
...), and no other module adds any, so that no route exists because some module was
imported for its side effect. Read from the source (``ast``), as tests/test_layers.py reads the imports."""

import ast

from tests.test_layers import PACKAGE, module_name, modules

FACTORY = "datahub.app.factory"
# Flask's and flask-smorest's ways to add a route to a blueprint.
ADDS_ROUTES = ("route", "add_url_rule", "get", "post", "put", "patch", "delete")


def blueprints_defined(tree):
    """The names a module binds to a new ``Blueprint(...)``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            called = node.value.func
            if getattr(called, "id", getattr(called, "attr", None)) == "Blueprint":
                names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


def imported_names(tree):
    """``{local name: (module, name)}`` of a module's ``from ... import`` statements."""
    return {
        alias.asname or alias.name: (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def routes_added(tree):
    """The names whose ``route`` or ``add_url_rule`` a module calls."""
    return {
        node.func.value.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ADDS_ROUTES
        and isinstance(node.func.value, ast.Name)
    }


class Source:
    def __init__(self, paths):
        self.trees = {module: ast.parse(path.read_text(), str(path)) for module, path in paths}

    def resolve(self, module, name, seen=()):
        """``(module, name)`` of the Blueprint that ``name`` in ``module`` is, or None."""
        tree = self.trees.get(module)
        if tree is None or (module, name) in seen:
            return None
        if name in blueprints_defined(tree):
            return module, name
        origin = imported_names(tree).get(name)
        return origin and self.resolve(*origin, seen=(*seen, (module, name)))

    def route_adders(self):
        """``{blueprint: {modules adding its routes}}``."""
        adders = {}
        for module, tree in self.trees.items():
            for name in routes_added(tree):
                blueprint = self.resolve(module, name)
                if blueprint is not None:
                    adders.setdefault(blueprint, set()).add(module)
        return adders

    def registered(self):
        """``{blueprint: the module the factory imports it from}``."""
        return {
            self.resolve(module, name): module
            for module, name in imported_names(self.trees[FACTORY]).values()
            if self.resolve(module, name) is not None
        }


def test_each_blueprint_gets_its_routes_in_the_module_the_factory_imports_it_from():
    source = Source(modules().items())
    registered = source.registered()
    assert len(registered) == 16  # the walk finds every one the factory registers
    adders = source.route_adders()
    assert set(adders) == set(registered), "a blueprint without routes, or not registered"
    for blueprint, module in registered.items():
        assert adders[blueprint] == {module}, (blueprint, adders[blueprint])


def test_a_route_added_from_another_module_is_found(tmp_path):
    """The check fails on the side-effect pattern: a module adding a route to a blueprint
    that the factory imports from elsewhere."""
    files = {
        "datahub.app.factory": "def register(app):\n    from datahub.a.routes import blp\n",
        "datahub.a.routes": "from flask import Blueprint\nblp = Blueprint('a', __name__)\n"
        "@blp.route('/')\ndef index():\n    pass\n",
        "datahub.a.extra": "from datahub.a.routes import blp\n"
        "blp.add_url_rule('/x', view_func=print)\n",
    }
    paths = []
    for module, text in files.items():
        path = tmp_path / f"{module}.py"
        path.write_text(text)
        paths.append((module, path))
    source = Source(paths)
    assert source.route_adders() == {
        ("datahub.a.routes", "blp"): {"datahub.a.routes", "datahub.a.extra"}
    }
    assert source.registered() == {("datahub.a.routes", "blp"): "datahub.a.routes"}
    assert module_name(PACKAGE / "a" / "routes.py") == "datahub.a.routes"
