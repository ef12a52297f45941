"""A pytest plugin (``-p tests.english_swapped``): every English message marshmallow
defines (its fields' ``default_error_messages``, Schema's, its validators' ``message*``)
is replaced by other words before datahub is imported. The 422 tests run under it must
pass unchanged: the contract's texts come from datahub's own messages, not from
marshmallow's wording."""

import inspect
import re
import sys

from marshmallow import Schema, fields, validate

assert "datahub" not in sys.modules, "load this plugin before datahub is imported"


_PLACEHOLDER_OR_WORD = re.compile(r"(\{\{\w*\}\}|\{[^{}]*\})|[A-Za-z]+")


def _other_words(message):
    """Each word spelled backwards; ``{placeholders}`` (escaped ones too) kept, as
    marshmallow formats them."""
    return _PLACEHOLDER_OR_WORD.sub(lambda match: match.group(1) or match.group(0)[::-1], message)


def _swap():
    swapped = 0
    for _, cls in inspect.getmembers(fields, inspect.isclass):
        own = cls.__dict__.get("default_error_messages")
        if own:
            cls.default_error_messages = {key: _other_words(text) for key, text in own.items()}
            swapped += len(own)
    Schema._default_error_messages = {
        key: _other_words(text) for key, text in Schema._default_error_messages.items()
    }
    swapped += len(Schema._default_error_messages)
    for _, cls in inspect.getmembers(validate, inspect.isclass):
        for name, text in list(vars(cls).items()):
            if (name.startswith("message") or name == "default_message") and isinstance(text, str):
                setattr(cls, name, _other_words(text))
                swapped += 1
    return swapped


SWAPPED = _swap()


def pytest_report_header(config):
    return f"marshmallow's English swapped for other words: {SWAPPED} messages"
