"""The collections feature's errors."""
from datahub.web.errors import NotFound


class CollectionNotFound(NotFound): detail = "Collection not found"
