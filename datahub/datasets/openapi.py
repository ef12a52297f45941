"""The datasets' own parts of the OpenAPI document: the upload's request body, the
download's headers, parameters and responses, and the errors the file routes share."""

_BINARY_SCHEMA = {"type": "string", "format": "binary"}
_STORED_TYPE = (
    "The body is the file; its `Content-Type` is stored as the file's "
    "`content_type` and sent back with every download"
)
_EXAMPLE_FILE = "date,temp\n2024-01-01,-3\n2024-01-02,-5\n"
UPLOAD_BODY = {
    "description": "The file: the raw body, of any media type (its Content-Type is kept), "
    "or the part `file` of a multipart/form-data body (the part's Content-Type "
    "and filename are kept). An empty file is refused (400 `File is empty`), "
    "and so is a form-encoded body (415).",
    # An empty body, or an empty ``file`` part, is refused: 400 ``File is empty``.
    "required": True,
    "content": {
        "application/octet-stream": {
            "schema": {**_BINARY_SCHEMA, "minLength": 1, "description": _STORED_TYPE},
            "example": _EXAMPLE_FILE,
        },
        "*/*": {
            "schema": {**_BINARY_SCHEMA, "minLength": 1, "description": _STORED_TYPE},
            "example": _EXAMPLE_FILE,
        },
        "multipart/form-data": {
            "example": {"file": _EXAMPLE_FILE},
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {
                    "file": {
                        **_BINARY_SCHEMA,
                        "minLength": 1,
                        "description": "The file; the part's Content-Type (default "
                        "application/octet-stream) and filename are kept",
                    }
                },
            },
        },
    },
}

_FILE_HEADERS = {
    "Content-Length": {
        "description": "The file's size (of the part, for a 206)",
        "schema": {"type": "integer", "minimum": 0},
    },
    "ETag": {"description": "The sha256 of the file, quoted", "schema": {"type": "string"}},
    "Last-Modified": {"description": "When the file was uploaded", "schema": {"type": "string"}},
    "Content-Disposition": {
        "description": "`attachment; filename=\"ascii\"; filename*=UTF-8''...`",
        "schema": {"type": "string"},
    },
    "Accept-Ranges": {
        "description": "Ranges of bytes can be asked for",
        "schema": {"type": "string", "enum": ["bytes"]},
    },
}
_DOWNLOADED = "The file's bytes, with the Content-Type it was uploaded with"
_DOWNLOAD = {
    "application/octet-stream": {"schema": {**_BINARY_SCHEMA, "description": _DOWNLOADED}},
    "*/*": {"schema": {**_BINARY_SCHEMA, "description": _DOWNLOADED}},
}
DOWNLOAD_PARAMETERS = [
    {
        "in": "header",
        "name": "Range",
        "schema": {"type": "string"},
        "required": False,
        "description": "One range of bytes, as `bytes=0-1023` (206), or `bytes=-500` for the "
        "last 500; beyond the file: 416. Several ranges: 200 with the whole file",
    },
    {
        "in": "header",
        "name": "If-Range",
        "schema": {"type": "string"},
        "required": False,
        "description": "A strong ETag or the exact Last-Modified date: the Range applies only "
        "while the file is unchanged (else 200 with the whole file)",
    },
    {
        "in": "header",
        "name": "If-Match",
        "schema": {"type": "string"},
        "required": False,
        "description": "ETags (strong comparison) or `*`: 412 unless the file has one of them",
    },
    {
        "in": "header",
        "name": "If-Unmodified-Since",
        "schema": {"type": "string"},
        "required": False,
        "description": "An HTTP date: 412 if the file is newer",
    },
    {
        "in": "header",
        "name": "If-None-Match",
        "schema": {"type": "string"},
        "required": False,
        "description": "An ETag from an earlier download: 304 while the file is unchanged",
    },
    {
        "in": "header",
        "name": "If-Modified-Since",
        "schema": {"type": "string"},
        "required": False,
        "description": "An HTTP date: 304 unless the file is newer",
    },
]
DOWNLOAD_RESPONSES = {
    200: {"description": "The file", "content": _DOWNLOAD, "headers": _FILE_HEADERS},
    206: {
        "description": "Part of the file, for a `Range` request",
        "content": _DOWNLOAD,
        "headers": {
            **_FILE_HEADERS,
            "Content-Range": {
                "description": "Which bytes: `bytes 0-1023/5000`",
                "schema": {"type": "string"},
            },
        },
    },
    302: {
        "description": "Only when `STORAGE_PRESIGNED_DOWNLOADS` is on (S3 storage): "
        "`Location` is a presigned URL of the object, valid for "
        "`STORAGE_PRESIGNED_EXPIRES` seconds, that answers with the same "
        "Content-Type and Content-Disposition (Range works there too; "
        "its ETag is the object store's, not the sha256)",
        "headers": {
            "Location": {
                "description": "The presigned URL",
                "schema": {"type": "string", "format": "uri"},
            }
        },
    },
    304: {
        "description": "Not modified (`If-None-Match` or `If-Modified-Since`)",
        "headers": {"ETag": _FILE_HEADERS["ETag"]},
    },
}
FILE_NOT_FOUND = (404, "`Dataset not found`, or `File not found` when none was uploaded")
PRECONDITION_FAILED = (
    412,
    "`Precondition Failed`: `If-Match` or `If-Unmodified-Since` does not hold",
)
PREVIEW_UNPROCESSABLE = (
    422,
    "Validation error, `Dataset file is not tabular`, `Preview is too large` or "
    "`Preview timed out`",
)
STORAGE_UNAVAILABLE = (
    503,
    "`Service unavailable` (the database cannot be reached) or "
    "`Storage unavailable` (the object storage failed); retry after "
    "`Retry-After` seconds",
)
