"""The collections feature's errors."""
from datahub.errors import NotFound


class CollectionNotFound(NotFound): detail = "Collection not found"
