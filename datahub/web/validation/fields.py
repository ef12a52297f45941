"""marshmallow's fields, with every error message replaced by pydantic v1's (DESIGN.md
"Errors"): an ``ErrorMessage`` (datahub.platform.errors) is pydantic's ``msg`` and carries its ``type``, so the
422 mapping reads which error it is instead of parsing marshmallow's English.

``FIELD_ERRORS`` is keyed on marshmallow's identity for an error: the field class and the
key of its ``error_messages`` ("required", "null", "invalid"...). Schemas declare their
fields from here (``from datahub import fields``), never from marshmallow.
"""

from marshmallow import fields as ma_fields

from datahub.platform.errors import ErrorMessage

REQUIRED = ErrorMessage("field required", "value_error.missing")
NOT_NULL = ErrorMessage("none is not an allowed value", "type_error.none.not_allowed")
NOT_A_STRING = ErrorMessage("str type expected", "type_error.str")
NOT_A_DICT = ErrorMessage("value is not a valid dict", "type_error.dict")
EXTRA_FIELD = ErrorMessage("extra fields not permitted", "value_error.extra")
DATETIME = ErrorMessage("invalid datetime format", "value_error.datetime")

# marshmallow field class → {its error key: the message}. A subclass inherits its bases'
# entries (as marshmallow merges ``default_error_messages`` along the MRO), and every key
# marshmallow defines for a class listed here must be in the merged entry
# (tests/test_validation_identity.py): a key marshmallow adds or renames fails the tests.
FIELD_ERRORS = {
    ma_fields.Field: {
        "required": REQUIRED,
        "null": NOT_NULL,
        "validator_failed": ErrorMessage("invalid value", "value_error"),
    },
    ma_fields.String: {"invalid": NOT_A_STRING, "invalid_utf8": NOT_A_STRING},
    ma_fields.Number: {
        "invalid": ErrorMessage("value is not a valid float", "type_error.float"),
        "too_large": ErrorMessage(
            "ensure this value is a finite number", "value_error.number.not_finite_number"
        ),
    },
    ma_fields.Float: {
        "special": ErrorMessage(
            "ensure this value is a finite number", "value_error.number.not_finite_number"
        )
    },
    ma_fields.Integer: {
        "invalid": ErrorMessage("value is not a valid integer", "type_error.integer")
    },
    ma_fields.Boolean: {
        "invalid": ErrorMessage("value could not be parsed to a boolean", "type_error.bool")
    },
    ma_fields.List: {"invalid": ErrorMessage("value is not a valid list", "type_error.list")},
    ma_fields.Mapping: {"invalid": NOT_A_DICT},
    ma_fields.Email: {
        "invalid": ErrorMessage("value is not a valid email address", "value_error.email")
    },
    # Each of marshmallow's public date and time fields (their common base is private).
    ma_fields.DateTime: {"invalid": DATETIME, "invalid_awareness": DATETIME, "format": DATETIME},
    ma_fields.Date: {"invalid": DATETIME, "invalid_awareness": DATETIME, "format": DATETIME},
    ma_fields.Time: {"invalid": DATETIME, "invalid_awareness": DATETIME, "format": DATETIME},
    ma_fields.Nested: {"type": NOT_A_DICT},
}

# Schema-level errors (marshmallow's ``Schema.error_messages``): a key no field declares,
# and a body that is not an object.
SCHEMA_ERRORS = {"unknown": EXTRA_FIELD, "type": NOT_A_DICT}


def error_messages_for(field_class):
    """The merged ``FIELD_ERRORS`` entries along ``field_class``'s MRO."""
    messages = {}
    for cls in reversed(field_class.__mro__):
        messages.update(FIELD_ERRORS.get(cls, {}))
    return messages


def _with_pydantic_errors(field_class):
    return type(
        field_class.__name__,
        (field_class,),
        {
            "__doc__": f"marshmallow's ``{field_class.__name__}`` with pydantic's error messages.",
            "__module__": __name__,
            "default_error_messages": error_messages_for(field_class),
        },
    )


Field = _with_pydantic_errors(ma_fields.Field)
Raw = _with_pydantic_errors(ma_fields.Raw)
String = _with_pydantic_errors(ma_fields.String)
Integer = _with_pydantic_errors(ma_fields.Integer)
Float = _with_pydantic_errors(ma_fields.Float)
Boolean = _with_pydantic_errors(ma_fields.Boolean)
List = _with_pydantic_errors(ma_fields.List)
Dict = _with_pydantic_errors(ma_fields.Dict)
Email = _with_pydantic_errors(ma_fields.Email)
DateTime = _with_pydantic_errors(ma_fields.DateTime)
Nested = _with_pydantic_errors(ma_fields.Nested)
