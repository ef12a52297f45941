"""The collections feature's errors."""

from datahub.platform.errors import NotFound


class CollectionNotFound(NotFound):
    message = "Collection not found"
