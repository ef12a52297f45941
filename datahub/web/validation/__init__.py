"""Marshmallow → pydantic-v1 error shape (DESIGN.md "Errors"): the base :class:`Schema`,
the validators, and :func:`pydantic_errors`. Every message is an
:class:`~datahub.platform.errors.ErrorMessage` carrying pydantic's ``msg`` and ``type``, so the
mapping reads which error it is and never parses marshmallow's English."""

import re

import marshmallow
from marshmallow import ValidationError, validate

from datahub.platform.errors import ErrorMessage
from datahub.web.validation import fields
from datahub.web.validation.fields import NOT_A_DICT, NOT_A_STRING, REQUIRED, SCHEMA_ERRORS

# webargs location → the first element of ``loc``.
LOCATIONS = {
    "json": "body",
    "form": "body",
    "files": "body",
    "json_or_form": "body",
    "querystring": "query",
    "query": "query",
    "view_args": "path",
    "path": "path",
    "headers": "header",
    "cookies": "cookie",
}


def pydantic_errors(messages, location="json"):
    """Flatten marshmallow's nested ``messages`` into ``[{"loc", "msg", "type"}, ...]``.

    ``messages`` is either webargs' ``{location: {...}}`` mapping (pass ``location=None``)
    or a schema's own error dict for ``location``.
    """
    errors = []
    if location is None:
        for loc_name, inner in messages.items():
            errors.extend(pydantic_errors(inner, loc_name))
        return errors
    _walk(messages, [LOCATIONS.get(location, location)], errors)
    return errors


def _walk(node, loc, out):
    if isinstance(node, dict):
        for key, value in node.items():
            _walk(value, loc if key == "_schema" else loc + [key], out)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _walk(item, loc, out)
    elif isinstance(node, ErrorMessage):
        out.append({"loc": loc, "msg": str(node), "type": node.type})
    else:  # plain text from a validator: pydantic's generic ValueError
        out.append({"loc": loc, "msg": str(node), "type": "value_error"})


class Schema(marshmallow.Schema):
    """marshmallow's Schema with pydantic's messages for its own errors (an unknown key, a
    body that is not an object). Binding a field whose error messages are not all
    :class:`ErrorMessage` (one of marshmallow's own fields) is a ``TypeError``."""

    error_messages = SCHEMA_ERRORS

    def on_bind_field(self, field_name, field_obj):
        _check_error_messages(field_name, field_obj)


def _check_error_messages(field_name, field):
    for key, message in field.error_messages.items():
        if not isinstance(message, ErrorMessage):
            raise TypeError(
                f"{type(field).__module__}.{type(field).__qualname__} "
                f"({field_name!r}): error message {key!r} is not an ErrorMessage; "
                "declare fields from datahub.web.validation.fields"
            )
    inner = [
        getattr(field, "inner", None),
        getattr(field, "key_field", None),
        getattr(field, "value_field", None),
        *getattr(field, "tuple_fields", ()),
    ]
    for each in inner:
        if each is not None:
            _check_error_messages(field_name, each)


MIN_LENGTH = ErrorMessage(
    "ensure this value has at least {min} characters", "value_error.any_str.min_length"
)
MAX_LENGTH = ErrorMessage(
    "ensure this value has at most {max} characters", "value_error.any_str.max_length"
)


class _Bounds:
    """``min`` and ``max`` checks that name the broken bound, even when both are set (as
    marshmallow's message does not): ``too_small`` or ``too_large``, formatted with it."""

    def measure(self, value):
        return value

    def bounds(self):
        return self.min, self.max

    def __call__(self, value):
        measure = self.measure(value)
        low, high = self.bounds()
        if low is not None and measure < low:
            raise ValidationError(self.too_small.format(min=low))
        if high is not None and measure > high:
            raise ValidationError(self.too_large.format(max=high))
        return value


class Length(_Bounds, validate.Length):
    """Like marshmallow's, but names the broken bound (and says "characters", for lists
    too, as the contract always has)."""

    too_small = MIN_LENGTH
    too_large = MAX_LENGTH

    def measure(self, value):
        return len(value)


class Range(_Bounds, validate.Range):
    """Like marshmallow's (inclusive bounds), but names the broken bound."""

    too_small = ErrorMessage(
        "ensure this value is greater than or equal to {min}", "value_error.number.not_ge"
    )
    too_large = ErrorMessage(
        "ensure this value is less than or equal to {max}", "value_error.number.not_le"
    )


class ByteLength(_Bounds, validate.Validator):
    """Length of the UTF-8 encoding: bcrypt looks at bytes, not characters. The bounds are
    not called ``min`` and ``max``, which apispec would document as the string's
    ``x-minimum`` and ``x-maximum``: a field states them in bytes itself (see
    ``datahub.identity.users.schemas.password_field``)."""

    too_small = ErrorMessage(
        "ensure this value has at least {min} bytes", "value_error.any_str.min_length"
    )
    too_large = ErrorMessage(
        "ensure this value has at most {max} bytes", "value_error.any_str.max_length"
    )

    def __init__(self, min=None, max=None):
        self.min_bytes, self.max_bytes = min, max

    def bounds(self):
        return self.min_bytes, self.max_bytes

    def measure(self, value):
        return len(value.encode("utf-8"))


class OneOf(validate.OneOf):
    """marshmallow's, with pydantic's enumeration message."""

    default_message = ErrorMessage(
        "value is not a valid enumeration member; permitted: {choices}", "type_error.enum"
    )


class StrictBoolean(fields.Boolean):
    """JSON ``true``/``false`` only. marshmallow's Boolean also takes 1, 0, "yes", "off"...;
    and ``1 in {True}`` holds in Python, so its ``truthy`` set cannot say this."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


ASCII_SPACE = " \t\n\r\f\v"

# Characters refused in stored values (docs/reference/http.rst). The control characters are
# Unicode's category Cc: C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F). Each rule
# is a Python regex for the check and the same class, spelled with \u escapes, as the JSON
# Schema ``pattern`` of the OpenAPI document (ECMA and Python read it alike), so that a
# client, a schema-driven fuzzer and the server agree on what is valid.
CONTROL_MESSAGE = "string contains a control character"
CONTROL_ERROR = ErrorMessage(CONTROL_MESSAGE, "value_error.str.control")
_CONTROL = "\\u0000-\\u001f\\u007f-\\u009f"
# Free text (descriptions) keeps TAB, LF and CR.
_TEXT_CONTROL = "\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f"
NO_NUL_PATTERN = "^[^\\u0000]*$"
NO_CONTROL_PATTERN = f"^[^{_CONTROL}]*$"
TEXT_PATTERN = f"^[^{_TEXT_CONTROL}]*$"
# A name: no control character, and at least one character that is not a space.
NAME_PATTERN = f"^[^{_CONTROL}]*[^{_CONTROL}\\u0020][^{_CONTROL}]*$"
_HAS_CONTROL = re.compile(f"[{_CONTROL}]")
_HAS_TEXT_CONTROL = re.compile(f"[{_TEXT_CONTROL}]")


def has_control_character(value):
    return _HAS_CONTROL.search(value) is not None


def without_control_characters(value):
    """``value`` with every control character (category Cc) removed."""
    return _HAS_CONTROL.sub("", value)


class NoControlCharacters(validate.Validator):
    """No character of Unicode category Cc; ``text=True`` allows TAB, LF and CR."""

    def __init__(self, text=False):
        self._search = (_HAS_TEXT_CONTROL if text else _HAS_CONTROL).search

    def __call__(self, value):
        if self._search(value):
            raise ValidationError(CONTROL_ERROR)
        return value


class NotBlank(validate.Validator):
    """At least one character that is not a space (control characters, white space
    among them, are :class:`NoControlCharacters`' to refuse). The message names the
    documented pattern of a name, as pydantic would."""

    error = ErrorMessage(f'string does not match regex "{NAME_PATTERN}"', "value_error.str.regex")

    def __call__(self, value):
        if value and value.strip(" ") == "":  # "" is Length's to refuse
            raise ValidationError(self.error)
        return value


def name_field(description, **kwargs):
    """A resource name: 1 to 255 characters, no control character, not blank;
    surrounding spaces are removed after validation (``strip_name``)."""
    return fields.String(
        validate=[Length(min=1, max=255), NoControlCharacters(), NotBlank()],
        metadata={"description": description, "pattern": NAME_PATTERN},
        **kwargs,
    )


def label_field(validate_length, description=None, **kwargs):
    """A short label (a tag, a person's name, a filter value): no control character."""
    metadata = {"pattern": NO_CONTROL_PATTERN}
    if description:
        metadata["description"] = description
    return fields.String(
        validate=[validate_length, NoControlCharacters()], metadata=metadata, **kwargs
    )


def text_field(max_length, **kwargs):
    """Free text (a description): no control character but TAB, LF and CR."""
    return fields.String(
        validate=[Length(max=max_length), NoControlCharacters(text=True)],
        metadata={"pattern": TEXT_PATTERN},
        **kwargs,
    )


def strip_name(data):
    """For a ``post_load``: the validated name without surrounding spaces."""
    if isinstance(data.get("name"), str):
        data["name"] = data["name"].strip(ASCII_SPACE)
    return data


# RFC 9110 section 8.3.1: type "/" subtype *( OWS ";" OWS [ parameter ] ), where a parameter
# is token "=" ( token / quoted-string ). Only ASCII: obs-text (bytes 0x80-0xFF, which
# includes the C1 controls once decoded) is refused too, as it cannot be sent back safely.
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_QUOTED = r'"(?:[\t !#-\[\]-~]|\\[\t -~])*"'
_MEDIA_TYPE = re.compile(
    rf"{_TOKEN}/{_TOKEN}(?:[ \t]*;[ \t]*(?:{_TOKEN}=(?:{_TOKEN}|{_QUOTED}))?)*"
)
MAX_MEDIA_TYPE = 255


def media_type_error(value):
    """Why ``value`` cannot be stored as a file's Content-Type (``(msg, type)``), or None."""
    if len(value) > MAX_MEDIA_TYPE:
        return (
            f"ensure this value has at most {MAX_MEDIA_TYPE} characters",
            "value_error.any_str.max_length",
        )
    if not _MEDIA_TYPE.fullmatch(value):
        return "value is not a valid media type (RFC 9110)", "value_error.media_type"
    return None


class ChosenBy(fields.Field):
    """An object whose ``key`` (a string) chooses its schema among ``schemas``; each
    error keeps its place (``["body", "steps", 0, "value"]``)."""

    def __init__(self, key, schemas, **kwargs):
        super().__init__(**kwargs)
        self.key, self.schemas = key, schemas

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise ValidationError(NOT_A_DICT)
        if self.key not in value:
            raise ValidationError({self.key: [REQUIRED]})
        choice = value[self.key]
        if not isinstance(choice, str):
            raise ValidationError({self.key: [NOT_A_STRING]})
        if choice not in self.schemas:
            raise ValidationError(
                {self.key: [OneOf.default_message.format(choices=", ".join(self.schemas))]}
            )
        return self.schemas[choice]().load(value)  # its ValidationError carries the field dict

    def _serialize(self, value, attr, obj, **kwargs):
        return value
