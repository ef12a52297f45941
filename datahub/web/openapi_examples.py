"""Example request bodies for the OpenAPI document (Swagger UI's "Try it out" starts from
them), by component schema name: real values rather than ones generated from patterns.
The ``RequestExamples`` apispec plugin sets each as its schema's ``example``."""

from apispec import BasePlugin

PIPELINE_STEPS = [
    {"op": "filter", "column": "temp", "operator": "lt", "value": 0},
    {"op": "sort", "columns": ["date"]},
]

EXAMPLES = {
    "Login": {"email": "ann@example.com", "password": "correct horse battery"},
    "PasswordChange": {
        "current_password": "correct horse battery",
        "new_password": "staple battery horse",
    },
    "NewUser": {
        "email": "bob@example.com",
        "password": "a long passphrase",
        "name": "Bob Berg",
        "roles": ["editor"],
    },
    "UserUpdate": {"name": "Bob Berg", "roles": ["viewer"]},
    "DatasetCreate": {
        "name": "Oslo weather",
        "description": "Daily temperatures in Oslo",
        "tags": ["weather", "daily"],
    },
    "DatasetUpdate": {
        "description": "Daily temperatures in Oslo, 2024",
        "readme": "# Oslo weather\n\nOne row a day: `date` and `temp` (°C), from met.no.",
        "tags": ["weather"],
    },
    "Query": {
        "sql": 'SELECT date, temp FROM "Oslo weather" WHERE temp < 0 ORDER BY date',
        "limit": 100,
    },
    "ColumnsUpdate": {"columns": [{"name": "temp", "description": "Mean temperature, °C"}]},
    "VersionUpdate": {"pinned": True, "message": "As published in the 2024 report"},
    "Checks": {
        "checks": [
            {"name": "one row a day", "type": "unique", "columns": ["date"]},
            {"name": "plausible", "type": "range", "column": "temp", "min": -60, "max": 60},
            {
                "name": "daily",
                "type": "freshness",
                "column": "date",
                "max_age": "P2D",
                "severity": "warn",
            },
        ]
    },
    "CollectionCreate": {
        "name": "Nordic weather",
        "description": "Weather datasets of the Nordic capitals",
    },
    "CollectionUpdate": {"description": "Weather of the Nordic capitals"},
    "PipelineCreate": {
        "name": "Oslo frost days",
        "description": "Days below zero",
        "source_dataset_id": 1,
        "steps": PIPELINE_STEPS,
        "output_dataset_name": "Oslo frost days (output)",
        "output_format": "csv",
    },
    "PipelineUpdate": {"steps": PIPELINE_STEPS[:1], "output_format": "parquet"},
    "PipelinePreview": {"source_dataset_id": 1, "steps": PIPELINE_STEPS, "limit": 20},
    "GroupCreate": {"name": "Analysts", "description": "The analytics team"},
    "GroupUpdate": {"name": "Data analysts", "description": "Analytics and reporting"},
    "PersonalTokenCreate": {"name": "nightly export", "scopes": ["read"], "expires_in_days": 90},
    "GrantCreate": {"principal": "user:3f2c8a4e-5b1d-4c7e-9a0f-2d6b8e1c4a7f", "permission": "read"},
    "WebhookCreate": {
        "url": "https://hooks.example.com/datahub",
        "event_types": ["datahub.dataset.version.created", "datahub.run.failed"],
    },
    "WebhookUpdate": {"active": True},
}


class RequestExamples(BasePlugin):
    """An apispec plugin: each request body schema named in ``EXAMPLES`` gets its example."""

    def schema_helper(self, name, definition, **kwargs):
        if name in EXAMPLES:
            return {"example": EXAMPLES[name]}
        return None
