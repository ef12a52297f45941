"""The datasets feature's errors."""
from datahub.errors import NotFound, UnprocessableContent


class DatasetNotFound(NotFound): detail = "Dataset not found"


class FileNotFound(NotFound):
    """The dataset exists but no file has been uploaded to it."""

    detail = "File not found"


class DatasetHasNoFile(NotFound): detail = "Dataset has no file"
class DatasetNotTabular(UnprocessableContent): detail = "Dataset file is not tabular"
