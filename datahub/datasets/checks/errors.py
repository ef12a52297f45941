"""What publishing a version is refused for."""

from datahub.platform.errors import Conflict


class VersionNotQuarantined(Conflict):
    message = "Version is not quarantined"
