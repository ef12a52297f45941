"""What describing columns is refused for."""

from datahub.platform.errors import ErrorMessage, InvalidValues


class UnknownColumns(InvalidValues):
    """Column descriptions for columns the current version does not have: a 422 at each
    one's ``name`` (``unknown``: position → name)."""

    def __init__(self, unknown):
        super().__init__(
            {
                "columns": {
                    position: {
                        "name": [
                            ErrorMessage(f"Unknown column: {name}", "value_error.unknown_column")
                        ]
                    }
                    for position, name in unknown.items()
                }
            }
        )


class NoColumnsYet(InvalidValues):
    """Column descriptions for a dataset without a file."""

    def __init__(self):
        super().__init__(
            {"columns": [ErrorMessage("Dataset has no columns yet", "value_error.no_columns")]}
        )
