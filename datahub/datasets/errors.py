"""The datasets feature's errors: what its services raise (domain errors, which know no
HTTP) and what its upload and download answer (the HTTP contract's own)."""

from datahub.platform.errors import Conflict, NotFound, Unprocessable
from datahub.web.errors import APIError, BadRequest


class DatasetNotFound(NotFound):
    message = "Dataset not found"


class FileNotFound(NotFound):
    """The dataset exists but no file has been uploaded to it."""

    message = "File not found"


class DatasetHasNoFile(NotFound):
    message = "Dataset has no file"


class DatasetNotTabular(Unprocessable):
    message = "Dataset file is not tabular"


class PreviewTooLarge(Unprocessable):
    message = "Preview is too large"


class PreviewTimedOut(Unprocessable):
    message = "Preview timed out"


class PreconditionFailed(APIError):
    """A download's ``If-Match`` or ``If-Unmodified-Since`` does not hold."""

    code = 412
    detail = "Precondition Failed"


class EmptyFile(BadRequest):
    """An upload of no bytes (an empty raw body, or an empty multipart ``file`` part): most
    often a client that sent nothing by mistake. The previous file stays."""

    detail = "File is empty"


class FormEncodedUpload(APIError):
    """An ``application/x-www-form-urlencoded`` body, what ``curl -d @file`` sends: curl
    has dropped the file's line breaks, and the Content-Type is not the file's."""

    code = 415
    detail = (
        "Send the file raw (curl --data-binary with its Content-Type) or as "
        "multipart/form-data, not form-encoded"
    )


class VersionNotFound(NotFound):
    message = "Version not found"


class VersionIsCurrent(Conflict):
    message = "Version is current"


class VersionUsedByRun(Conflict):
    message = "Version is used by a run"


class DiffKeyInvalid(Unprocessable):
    """A diff's key is not a column of both versions, or not unique in one of them; the
    message says which."""

    message = "Diff key is not valid"


class DiffTooLarge(Unprocessable):
    message = "Diff is too large"


class DiffTimedOut(Unprocessable):
    message = "Diff timed out"
