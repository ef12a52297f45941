"""The datasets feature's errors."""
from datahub.errors import NotFound


class DatasetNotFound(NotFound): detail = "Dataset not found"


class FileNotFound(NotFound):
    """The dataset exists but no file has been uploaded to it."""

    detail = "File not found"
