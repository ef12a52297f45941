"""URL rules whose builders are made once per process, and the one use of Werkzeug's
undocumented behaviour, so that an upgrade shows here (``tests/test_library_shapes.py``
fails when it changes). Off with ``ROUTING_BUILDER_CACHE`` (docs/contributing/internals.rst).

When an app adds a rule, Werkzeug writes two functions that build the rule's URLs
(``Rule._compile_builder``: an AST compiled to code), about two thirds of ``create_app``'s
time. The functions depend only on the rule's parsed parts (``Rule._trace``) and its
defaults, never on the rule object (they get it as an argument), so a rule like one seen
before gets the functions made then. Every worker process and every test builds the same
rules again: only the first app of a process pays.
"""

from werkzeug.routing import Rule

_BUILDERS = {}


class CachedBuilderRule(Rule):
    """A :class:`~werkzeug.routing.Rule` whose URL builders come from a process-wide cache."""

    def _compile_builder(self, append_unknown=True):
        key = self._builder_key(append_unknown)
        builder = _BUILDERS.get(key)
        if builder is None:  # two threads may both make it: either is right
            builder = _BUILDERS.setdefault(key, super()._compile_builder(append_unknown))
        return builder

    def _builder_key(self, append_unknown):
        """Everything ``Rule._compile_builder`` reads: the parts, and the defaults (those of
        a dynamic part as its converter writes them, as that method resolves them)."""
        defaults = self.defaults or {}
        resolved = tuple(
            (name, self._converters[name].to_url(value) if name in self._converters else None)
            for name, value in defaults.items()
        )
        return (self.rule, tuple(self._trace), resolved, append_unknown)


def use_cached_builders(app):
    """Rules the app adds from now on get their URL builders from the cache."""
    app.url_rule_class = CachedBuilderRule
