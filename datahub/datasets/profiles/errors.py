"""What reading a version's schema is refused for."""

from datahub.platform.errors import NotFound


class VersionHasNoSchema(NotFound):
    """The version's file is not a table, or could not be read as one (its profile's
    ``error`` says why)."""

    message = "Version has no schema"
