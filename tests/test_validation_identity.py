"""The 422 mapping is keyed on marshmallow's identity for an error (the field class and
its ``error_messages`` key, our validators' own messages), never on its English."""

import os
import subprocess
import sys
from pathlib import Path

import marshmallow
import pytest
from marshmallow import ValidationError

from datahub.platform.errors import ErrorMessage
from datahub.web.validation import ByteLength, Length, OneOf, Range, Schema, fields, pydantic_errors
from datahub.web.validation.fields import FIELD_ERRORS, SCHEMA_ERRORS, error_messages_for

ROOT = Path(__file__).resolve().parent.parent


def marshmallow_error_keys(field_class):
    """The error keys marshmallow itself defines for ``field_class`` (along its MRO)."""
    keys = set()
    for cls in field_class.__mro__:
        if cls.__module__.startswith("marshmallow"):
            keys |= set(cls.__dict__.get("default_error_messages", {}))
    return keys


@pytest.mark.parametrize("field_class", list(FIELD_ERRORS), ids=lambda cls: cls.__name__)
def test_every_error_key_marshmallow_defines_is_mapped(field_class):
    assert set(error_messages_for(field_class)) == marshmallow_error_keys(field_class)


def test_every_schema_error_key_marshmallow_defines_is_mapped():
    assert set(SCHEMA_ERRORS) == set(marshmallow.Schema._default_error_messages)


class Probe(Schema):
    text = fields.String(required=True)
    number = fields.Integer(allow_none=False, validate=Range(min=1, max=9))
    flag = fields.Boolean()
    items = fields.List(fields.String(validate=Length(min=1, max=2)))
    mapping = fields.Dict(keys=fields.String(), values=fields.String())
    email = fields.Email()
    choice = fields.String(validate=OneOf(["a", "b"]))
    secret = fields.String(validate=ByteLength(max=2))


@pytest.mark.parametrize(
    "data, errors",
    [
        ({}, {"text": ("field required", "value_error.missing")}),
        (
            {"text": 1, "number": None},
            {
                "text": ("str type expected", "type_error.str"),
                "number": ("none is not an allowed value", "type_error.none.not_allowed"),
            },
        ),
        (
            {"text": "t", "number": "x", "flag": [], "items": 3, "mapping": 4},
            {
                "number": ("value is not a valid integer", "type_error.integer"),
                "flag": ("value could not be parsed to a boolean", "type_error.bool"),
                "items": ("value is not a valid list", "type_error.list"),
                "mapping": ("value is not a valid dict", "type_error.dict"),
            },
        ),
        (
            {
                "text": "t",
                "number": 10,
                "email": "nope",
                "choice": "c",
                "secret": "ééé",
                "other": 1,
            },
            {
                "number": (
                    "ensure this value is less than or equal to 9",
                    "value_error.number.not_le",
                ),
                "email": ("value is not a valid email address", "value_error.email"),
                "choice": (
                    "value is not a valid enumeration member; permitted: a, b",
                    "type_error.enum",
                ),
                "secret": (
                    "ensure this value has at most 2 bytes",
                    "value_error.any_str.max_length",
                ),
                "other": ("extra fields not permitted", "value_error.extra"),
            },
        ),
    ],
)
def test_marshmallow_hands_each_error_message_back_whole(data, errors):
    """What the mapping relies on: marshmallow keeps an ErrorMessage (a ``str``) through
    ``make_error``, its validators' ``format``, ``ValidationError`` and its error dict."""
    with pytest.raises(ValidationError) as caught:
        Probe().load(data)
    leaves = {key: value for key, (value,) in caught.value.messages.items()}
    assert all(isinstance(leaf, ErrorMessage) for leaf in leaves.values())
    assert {key: (str(leaf), leaf.type) for key, leaf in leaves.items()} == errors


def test_nested_positions_and_a_body_that_is_not_an_object():
    with pytest.raises(ValidationError) as caught:
        Probe().load({"text": "t", "items": ["", "ok", "xyz"]})
    assert pydantic_errors(caught.value.messages) == [
        {
            "loc": ["body", "items", 0],
            "msg": "ensure this value has at least 1 characters",
            "type": "value_error.any_str.min_length",
        },
        {
            "loc": ["body", "items", 2],
            "msg": "ensure this value has at most 2 characters",
            "type": "value_error.any_str.max_length",
        },
    ]
    with pytest.raises(ValidationError) as caught:
        Probe().load([])
    assert pydantic_errors(caught.value.messages) == [
        {"loc": ["body"], "msg": "value is not a valid dict", "type": "type_error.dict"}
    ]


@pytest.mark.parametrize(
    "field",
    [
        marshmallow.fields.String(),
        fields.List(marshmallow.fields.Integer()),
        fields.Dict(values=marshmallow.fields.String()),
    ],
    ids=["field", "list item", "dict value"],
)
def test_a_field_with_marshmallows_own_messages_cannot_be_bound(field):
    schema = Schema.from_dict({"value": field})
    with pytest.raises(TypeError, match="is not an ErrorMessage"):
        schema()


def test_422_bodies_do_not_depend_on_marshmallows_english():
    """The literal 422 tests pass with every marshmallow message replaced by other words
    (in a fresh interpreter: fields copy their messages when declared)."""
    tests = [
        "tests/pipelines/test_validation.py",
        "tests/pipelines/test_bounds.py::test_too_many_steps_is_a_422_at_create_and_patch",
        "tests/identity/auth/test_login.py::test_invalid_login_bodies_are_422_in_the_pydantic_shape",
        "tests/identity/auth/test_login.py::test_no_body_at_all_is_422_body_required",
        "tests/identity/users/test_admin_api.py::test_list_query_validation",
        "tests/identity/users/test_admin_api.py::test_create_validation",
        "tests/identity/users/test_admin_api.py::test_patch_validation",
        "tests/datasets/test_crud.py::test_list_query_validation",
        "tests/datasets/test_crud.py::test_create_validation",
        "tests/datasets/test_crud.py::test_patch_refuses_server_fields",
        "tests/collections/test_collections.py::test_list_query_validation",
        "tests/collections/test_collections.py::test_create_validation",
        "tests/test_hostile_values.py::test_control_character_in_a_name_is_422",
        "tests/test_hostile_values.py::test_control_character_in_a_tag_is_422",
        "tests/test_hostile_values.py::test_blank_name_names_the_documented_pattern",
    ]
    env = {
        key: value for key, value in os.environ.items() if key != "DATAHUB_TEST_DATABASE_URL"
    }  # SQLite: the session's database stays
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.english_swapped",
            "-p",
            "no:cacheprovider",
            "-x",
            *tests,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    assert "marshmallow's English swapped for other words" in result.stdout
    assert " passed" in result.stdout and "failed" not in result.stdout
