"""The bodies that datasets, collections and pipelines share: visibility and capabilities
(docs/guides/access.rst); the grants' are datahub.resources.grants.schemas."""

from datahub.resources.access import VISIBILITIES
from datahub.resources.capabilities import capabilities_of
from datahub.web.openapi import named_enum
from datahub.web.validation import OneOf, Schema, fields

VISIBILITY = named_enum(
    "Visibility",
    VISIBILITIES,
    "private: the owner, grantees and admins; internal: every user",
)


def visibility_field(**kwargs):
    return fields.String(validate=OneOf(VISIBILITIES), metadata=VISIBILITY, **kwargs)


class CapabilitiesSchema(Schema):
    """What the caller may do; the server refuses the rest anyway (403)."""

    write = fields.Boolean(
        required=True,
        metadata={"description": "Change it: name, description, files, members, steps, runs"},
    )
    manage = fields.Boolean(
        required=True,
        metadata={"description": "Share it (grants), change its visibility, delete it"},
    )


class CapabilitiesField(fields.Nested):
    """The caller's capabilities on the row being shown (computed, never stored)."""

    def __init__(self):
        super().__init__(
            CapabilitiesSchema,
            required=True,
            metadata={"description": "What the caller may do to it (a role is a ceiling)"},
        )

    def get_value(self, obj, attr, accessor=None, default=None):
        return capabilities_of(obj)
