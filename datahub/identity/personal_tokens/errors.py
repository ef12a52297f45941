"""The personal access tokens' errors."""

from datahub.platform.errors import NotFound


class TokenNotFound(NotFound):
    message = "Token not found"
