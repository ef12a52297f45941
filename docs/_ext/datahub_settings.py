"""The configuration reference, generated from the settings' own source.

Every setting is an attribute of ``DefaultConfig`` in the module named by
``CONFIG_MODULE``; its default is the attribute's value and its meaning the comment above
it and the comment at the end of its line. A comment line ``# -- Title ----`` starts a
section; the comment lines right after it, up to a blank line, introduce the section.

* ``.. datahub-settings::`` renders every section and setting (a ``setting`` object
  each, which ``:setting:`NAME``` refers to: with ``nitpicky`` on, a reference to a
  setting that does not exist fails the build);
* ``.. datahub-settings-table:: Section title`` renders that section as a table of links
  into the reference, for the page that explains the topic.

A setting without a comment, or a section without a title, is a build warning (an error
with ``-W``): a new setting cannot go undocumented.
"""

import ast
import importlib
import inspect
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass, field

from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

# Where the settings live. The one line to change if the module moves.
CONFIG_MODULE = "datahub.app.config"
CONFIG_CLASS = "DefaultConfig"

SECTION = re.compile(r"^# -- (?P<title>.+?) -+$")
logger = logging.getLogger(__name__)


@dataclass
class Setting:
    name: str
    source: str  # the default as written
    value: object  # the default's value
    text: list = field(default_factory=list)  # comment paragraphs (reStructuredText)


@dataclass
class Section:
    title: str
    intro: list = field(default_factory=list)
    settings: list = field(default_factory=list)

    @property
    def label(self):
        return "settings-" + re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")


def paragraphs(lines):
    """Comment lines (without ``#``) as paragraphs, each begun with a capital: a bare
    ``#`` separates them."""
    result, current = [], []
    for line in lines + [""]:
        if line.strip():
            current.append(line.strip())
        elif current:
            text = " ".join(current)
            result.append(text[0].upper() + text[1:])
            current = []
    return result


def comments(source):
    """{line number: (comment text, whether code precedes it on that line)}."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            before = token.line[: token.start[1]].strip()
            found[token.start[0]] = (token.string[1:].strip(), bool(before))
    return found


def read_settings():
    """The sections of ``DefaultConfig``, in source order, and the class itself."""
    module = importlib.import_module(CONFIG_MODULE)
    cls = getattr(module, CONFIG_CLASS)
    source = textwrap.dedent(inspect.getsource(cls))
    lines = source.splitlines()
    notes = comments(source)
    assignments = {}
    for node in ast.parse(source).body[0].body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            assignments[node.lineno] = (target.id, node)

    sections, section, pending, in_intro = [], None, [], False
    number = 1
    while number <= len(lines):
        line = lines[number - 1].strip()
        if not line:
            if pending and section is not None:
                section.intro += paragraphs(pending)  # a comment block of its own
            pending, in_intro = [], False
        elif number in notes and not notes[number][1]:
            text = notes[number][0]
            heading = SECTION.match("# " + text)
            if heading:
                section = Section(heading["title"])
                sections.append(section)
                pending, in_intro = [], True
            else:
                pending.append(text)
        elif number in assignments:
            name, node = assignments[number]
            if section is None:
                raise ExtensionError(f"{CONFIG_CLASS}.{name} comes before any '# -- Title --' line")
            if in_intro:
                raise ExtensionError(f"a blank line must end the introduction of '{section.title}'")
            inline = notes.get(node.end_lineno)
            own = pending + ([inline[0]] if inline and inline[1] else [])
            source_text = ast.get_source_segment(source, node.value)
            section.settings.append(Setting(name, source_text, getattr(cls, name), paragraphs(own)))
            pending = []
            number = node.end_lineno
        number += 1

    documented = {setting.name for section in sections for setting in section.settings}
    declared = {name for name in vars(cls) if name.isupper()}
    if declared != documented:
        raise ExtensionError(f"settings not read from the source: {sorted(declared ^ documented)}")
    return sections


def default_text(setting):
    """The default as written, with its value when it is written as an expression."""
    try:
        ast.literal_eval(setting.source)
    except ValueError:
        return f"``{setting.value!r}`` (``{setting.source}``)"
    return f"``{setting.source}``"


def warn_undocumented(sections, location):
    for section in sections:
        for setting in section.settings:
            if not setting.text:
                logger.warning(
                    "the setting %s has no comment in %s",
                    setting.name,
                    CONFIG_MODULE,
                    location=location,
                )


class SettingsDirective(SphinxDirective):
    """Every section and setting."""

    def run(self):
        sections = read_settings()
        warn_undocumented(sections, self.get_location())
        out = []
        for section in sections:
            out += [f".. _{section.label}:", "", section.title, "-" * len(section.title), ""]
            for paragraph in section.intro:
                out += [paragraph, ""]
            for setting in section.settings:
                out += [
                    f".. setting:: {setting.name}",
                    "",
                    f"   Default: {default_text(setting)}",
                    "",
                ]
                for paragraph in setting.text:
                    out += ["   " + paragraph, ""]
        return self.parse_text_to_nodes("\n".join(out), allow_section_headings=True)


class SettingsTableDirective(SphinxDirective):
    """One section's settings as a table linking into the reference."""

    required_arguments = 1
    final_argument_whitespace = True

    def run(self):
        title = self.arguments[0]
        sections = {section.title: section for section in read_settings()}
        if title not in sections:
            logger.warning(
                "no settings section %r in %s (there are: %s)",
                title,
                CONFIG_MODULE,
                ", ".join(sections),
                location=self.get_location(),
            )
            return []
        out = [
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 30 20 50",
            "",
            "   * - Setting",
            "     - Default",
            "     - Meaning",
        ]
        for setting in sections[title].settings:
            text = " ".join(setting.text) or "(undocumented)"
            out += [
                f"   * - :setting:`{setting.name}`",
                f"     - {default_text(setting)}",
                f"     - {text}",
            ]
        return self.parse_text_to_nodes("\n".join(out))


def setup(app):
    app.add_object_type("setting", "setting", indextemplate="pair: %s; setting")
    app.add_directive("datahub-settings", SettingsDirective)
    app.add_directive("datahub-settings-table", SettingsTableDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
