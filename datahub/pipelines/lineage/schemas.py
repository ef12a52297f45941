"""Lineage's query and answer."""

from datahub.web.validation import OneOf, Range, Schema, fields


class LineageArgsSchema(Schema):
    version = fields.Integer(
        validate=Range(min=1), metadata={"description": "The version; default: the current one"}
    )
    direction = fields.String(
        load_default="both",
        validate=OneOf(["upstream", "downstream", "both"]),
        metadata={"description": "upstream, downstream or both"},
    )
    depth = fields.Integer(
        load_default=3,
        validate=Range(min=1, max=10),
        metadata={"description": "How many runs away, 1 to 10"},
    )


class LineageNodeSchema(Schema):
    id = fields.String(
        required=True,
        metadata={
            "description": "`dataset:<id>@<version>`, `run:<id>`, or `hidden:<n>` for a "
            "version or run the caller may not read"
        },
    )
    type = fields.String(required=True, metadata={"enum": ["version", "run", "hidden"]})
    dataset_id = fields.Integer(metadata={"description": "A version's dataset"})
    version = fields.Integer(metadata={"description": "A version's number"})
    name = fields.String(allow_none=True, metadata={"description": "A version's dataset's name"})
    run_id = fields.Integer(metadata={"description": "A run's id"})
    pipeline_id = fields.Integer(metadata={"description": "A run's pipeline"})


class LineageEdgeSchema(Schema):
    from_ = fields.String(required=True, data_key="from", attribute="from")
    to = fields.String(required=True)


class LineageSchema(Schema):
    nodes = fields.List(fields.Nested(LineageNodeSchema), required=True)
    edges = fields.List(
        fields.Nested(LineageEdgeSchema),
        required=True,
        metadata={
            "description": "From a version to a run that read it, from a run to a version it made"
        },
    )
