"""The datasets feature's errors."""
from datahub.web.errors import APIError, BadRequest, NotFound, UnprocessableContent


class DatasetNotFound(NotFound): detail = "Dataset not found"


class FileNotFound(NotFound):
    """The dataset exists but no file has been uploaded to it."""

    detail = "File not found"


class PreconditionFailed(APIError):
    """A download's ``If-Match`` or ``If-Unmodified-Since`` does not hold."""

    code = 412
    detail = "Precondition Failed"


class DatasetHasNoFile(NotFound): detail = "Dataset has no file"
class DatasetNotTabular(UnprocessableContent): detail = "Dataset file is not tabular"
class PreviewTooLarge(UnprocessableContent): detail = "Preview is too large"
class PreviewTimedOut(UnprocessableContent): detail = "Preview timed out"


class EmptyFile(BadRequest):
    """An upload of no bytes (an empty raw body, or an empty multipart ``file`` part): most
    often a client that sent nothing by mistake. The previous file stays."""

    detail = "File is empty"


class FormEncodedUpload(APIError):
    """An ``application/x-www-form-urlencoded`` body, what ``curl -d @file`` sends: curl
    has dropped the file's line breaks, and the Content-Type is not the file's."""

    code = 415
    detail = ("Send the file raw (curl --data-binary with its Content-Type) or as "
              "multipart/form-data, not form-encoded")
