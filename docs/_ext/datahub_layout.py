"""The layout page, generated from the layer test's own tables (``tests/test_layers.py``).

* ``.. datahub-layers::`` renders each layer (``LAYER_NAMES``), the folders and modules in
  it (``LAYERS``: a module's layer is the one of the longest prefix of its path there),
  and each folder's modules and sub-packages, described by the first sentence of their
  docstrings;
* ``.. datahub-layer-rules::`` renders the rules the test holds: the layers point down
  (but for ``ALLOWED_UPWARD``), no import closes a circle, which features a feature may
  use (``FEATURE_USES``, with the comments that give the reasons), what knows no HTTP
  (``KNOWS_NO_HTTP``), what imports nothing of the web layer (``knows_no_web``), and the
  modules at the bottom (``BOTTOM``) and what some never import (``NEVER_IMPORTS``).

A new folder or module is on the page with the test's own walk; a rule changed in the test
changes the page.
"""

import ast
import importlib.util
import io
import re
import tokenize
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
LAYER_TEST = ROOT / "tests" / "test_layers.py"

ROLE = re.compile(r":[a-z:]+:`~?([^`<]+?)(?:\s*<[^>]*>)?`")
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)\.(?=\s|$)")
# What the docs never name: a parenthesis that does goes.
PRIVATE = re.compile(r"\s*\([^()]*(?:DESIGN\.md|\bseed\b)[^()]*\)")
NEVER_NAMED = re.compile(r"DESIGN\.md|\bseed\b")


def layer_test():
    """tests/test_layers.py as a module (read from its file: no test is run)."""
    spec = importlib.util.spec_from_file_location("datahub_layer_test", LAYER_TEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def first_sentence(path):
    """The first sentence of a module's docstring, as plain reStructuredText: roles become
    literals (the docs have no API pages to link to)."""
    docstring = ast.get_docstring(ast.parse(path.read_text())) or ""
    paragraph = " ".join(docstring.split("\n\n")[0].split())
    paragraph = PRIVATE.sub("", ROLE.sub(r"``\1``", paragraph))
    end = SENTENCE_END.search(paragraph)
    sentence = paragraph[: end.end()] if end else paragraph
    if sentence.count("``") % 2 or sentence.count("(") != sentence.count(")"):
        sentence = paragraph  # a sentence cut inside a literal or a parenthesis: all of it
    if NEVER_NAMED.search(sentence):
        raise ExtensionError(f"{path}: its docstring's first sentence names {sentence!r}")
    return sentence


def path_of(test, name):
    return test.modules()[name]


def entries(test, prefix, members):
    """A folder's direct modules and sub-packages: (shown name, description, sub-modules)."""
    found = {}
    for name in sorted(members):
        if name == prefix:
            continue
        relative = name[len(prefix) + 1 :].split(".")
        head = relative[0]
        entry = found.setdefault(head, {"name": f"{prefix}.{head}", "children": []})
        if len(relative) > 1:
            entry["children"].append(".".join(relative[1:]))
    lines = []
    for head, entry in found.items():
        path = path_of(test, entry["name"]) if entry["name"] in test.modules() else None
        package = path is not None and path.name == "__init__.py" or entry["children"]
        shown = f"``{head}/``" if package else f"``{head}.py``"
        text = first_sentence(path) if path is not None else ""
        line = f"* {shown}: {text}" if text else f"* {shown}"
        if entry["children"]:
            children = ", ".join(f"``{child}``" for child in entry["children"])
            line += f" (its modules: {children})"
        lines.append(line)
    return lines


class LayersDirective(SphinxDirective):
    """Every layer, from the bottom, with its folders and modules."""

    def run(self):
        test = layer_test()
        members = {}
        for name in test.modules():
            members.setdefault(test.prefix_of(name), []).append(name)
        out = []
        for number in sorted(test.LAYER_NAMES):
            title, description = test.LAYER_NAMES[number]
            heading = f"Layer {number}: {title}"
            out += [heading, "-" * len(heading), "", description, ""]
            for prefix in [name for name, layer in test.LAYERS.items() if layer == number]:
                if prefix not in members:
                    continue
                path = path_of(test, prefix)
                folder = path.name == "__init__.py"
                shown = prefix.replace(".", "/") + ("/" if folder else ".py")
                text = first_sentence(path)
                out += [f"``{shown}``" + (f": {text}" if text else ""), ""]
                if folder:
                    out += entries(test, prefix, members[prefix]) + [""]
        return self.parse_text_to_nodes("\n".join(out), allow_section_headings=True)


def reasons(source, table):
    """{key: its reason}: the comment lines right above each key of the dict ``table`` in
    ``source``, and the comments at the end of its lines."""
    notes = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            before = token.line[: token.start[1]].strip()
            notes[token.start[0]] = (token.string[1:].strip(), bool(before))
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == table:
            found = {}
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                above, line = [], key.lineno - 1
                while line in notes and not notes[line][1]:
                    above.insert(0, notes[line][0])
                    line -= 1
                inline = [
                    notes[number][0]
                    for number in range(key.lineno, value.end_lineno + 1)
                    if number in notes and notes[number][1]
                ]
                found[key.value] = " ".join(above + inline)
            return found
    raise ExtensionError(f"no table {table} in {LAYER_TEST}")


def literals(names):
    return ", ".join(f"``{name}``" for name in sorted(names)) or "none"


class LayerRulesDirective(SphinxDirective):
    """The rules ``tests/test_layers.py`` holds, from its tables."""

    def run(self):
        test = layer_test()
        source = LAYER_TEST.read_text()
        upward = literals(f"{module} → {target}" for module, target in test.ALLOWED_UPWARD)
        out = [
            "* A module imports only from its own layer or a lower one (inside functions "
            f"too). Imports that point up on purpose: {upward}.",
            "* No import, inside functions too, closes a circle of modules.",
            f"* A feature (layer {test.FEATURES}) imports another feature only as this table says:",
            "",
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 20 35 45",
            "",
            "   * - Feature",
            "     - May import",
            "     - Why",
        ]
        why = reasons(source, "FEATURE_USES")
        for feature, used in test.FEATURE_USES.items():
            out += [f"   * - ``{feature}``", f"     - {literals(used)}", f"     - {why[feature]}"]
        allowed_http = literals(f"{module} → {name}" for module, name in test.ALLOWED_HTTP)
        out += [
            "",
            f"* Nothing of {literals(test.HTTP)} is imported by {literals(test.KNOWS_NO_HTTP)} "
            f"(nor by their modules); exceptions: {allowed_http}.",
            "* Nothing of ``datahub.web`` is imported by the modules named "
            f"{literals(test.KNOWS_NO_WEB_NAMES)} or ``*_models``, whatever their layer, nor "
            f"by the modules the workers run: {literals(test.WORKER_MODULES)}.",
            "* The bottom modules import nothing of ours but what this says: "
            + "; ".join(
                f"``{module}``: {literals(allowed)}" for module, allowed in test.BOTTOM.items()
            )
            + ".",
        ]
        out += [
            f"* ``{module}`` imports nothing under ``{prefix}``."
            for module, prefix in sorted(test.NEVER_IMPORTS)
        ]
        return self.parse_text_to_nodes("\n".join(out))


def setup(app):
    app.add_directive("datahub-layers", LayersDirective)
    app.add_directive("datahub-layer-rules", LayerRulesDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
