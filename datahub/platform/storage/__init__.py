"""Where dataset files live: a local folder (:class:`~datahub.platform.storage.local.LocalStorage`)
or an S3 bucket (:class:`~datahub.platform.storage.s3.S3Storage`), chosen by ``STORAGE_URL``.

Both have one interface: ``save(chunks, max_size)`` → :class:`StoredFile` (``release()``
it once the database refers to it or never will), ``open(key)`` → a seekable binary file
object, ``local_copy(key, directory)`` → a context manager yielding a local path (for
DuckDB), ``delete(key)``, ``sweep(is_referenced)``. Keys are 32 hex digits, made here.
"""

import re
from urllib.parse import urlsplit

from flask import current_app

from datahub.app.registry import per_app
from datahub.platform.errors import ConfigurationError
from datahub.platform.storage.base import (  # noqa: F401
    KEY,
    MAX_PART_SIZE,
    MAX_PARTS,
    MIN_PART_SIZE,
    StoredFile,
    check_key,
)


def parse_storage_url(url):
    """``(None, None)`` for the local folder, ``(bucket, prefix)`` for S3;
    :class:`ConfigurationError` for anything else."""
    if url is None or not str(url).strip():
        return None, None
    url = str(url).strip()
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "file":
        return None, None
    if scheme != "s3":
        raise ConfigurationError(
            f"STORAGE_URL {url!r} must be s3://bucket/prefix or file:// (the folder STORAGE_PATH)"
        )
    bucket, prefix = parts.netloc, parts.path.strip("/")
    if parts.query or parts.fragment or "@" in bucket or ":" in bucket:
        raise ConfigurationError(
            f"STORAGE_URL {url!r}: no credentials, port, query or "
            "fragment in an s3:// URL (credentials come from boto3's chain)"
        )
    if not re.fullmatch(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]", bucket):
        raise ConfigurationError(
            f"STORAGE_URL {url!r} does not name a valid S3 bucket (3 to 63 of a-z 0-9 . -)"
        )
    if "//" in prefix or any(part in (".", "..") for part in prefix.split("/")):
        raise ConfigurationError(f"STORAGE_URL {url!r}: the prefix has an empty, . or .. part")
    return bucket, prefix


def check_storage_config(config):
    """A storage URL or S3 setting that cannot work stops the start-up."""
    bucket, _ = parse_storage_url(config.get("STORAGE_URL"))
    if bucket is None:
        return
    try:
        part_size = int(config.get("S3_PART_SIZE"))
        concurrency = int(config.get("S3_UPLOAD_CONCURRENCY"))
        sweep_after = float(config.get("S3_SWEEP_AFTER_SECONDS"))
        expires = int(config.get("STORAGE_PRESIGNED_EXPIRES"))
    except (TypeError, ValueError):
        raise ConfigurationError(
            "S3_PART_SIZE, S3_UPLOAD_CONCURRENCY, S3_SWEEP_AFTER_SECONDS "
            "and STORAGE_PRESIGNED_EXPIRES must be numbers"
        ) from None
    if not MIN_PART_SIZE <= part_size <= MAX_PART_SIZE:
        raise ConfigurationError(
            f"S3_PART_SIZE must be at least {MIN_PART_SIZE} (5 MiB) "
            f"and at most {MAX_PART_SIZE} (5 GiB)"
        )
    largest = config.get("MAX_CONTENT_LENGTH")
    if largest and -(-int(largest) // part_size) > MAX_PARTS:
        raise ConfigurationError(
            f"S3_PART_SIZE {part_size}: a file of MAX_CONTENT_LENGTH ({largest} bytes) would "
            f"need more than S3's {MAX_PARTS} parts; use parts of at least "
            f"{-(-int(largest) // MAX_PARTS)} bytes"
        )
    if concurrency < 1:
        raise ConfigurationError("S3_UPLOAD_CONCURRENCY must be at least 1")
    if sweep_after < 0:
        raise ConfigurationError("S3_SWEEP_AFTER_SECONDS must not be negative")
    if not 1 <= expires <= 604800:
        raise ConfigurationError("STORAGE_PRESIGNED_EXPIRES must be 1 to 604800 seconds")
    endpoint = config.get("S3_ENDPOINT_URL")
    if endpoint and urlsplit(str(endpoint)).scheme not in ("http", "https"):
        raise ConfigurationError("S3_ENDPOINT_URL must be an http:// or https:// URL")


def create_storage(config):
    """The backend ``config`` names."""
    bucket, prefix = parse_storage_url(config.get("STORAGE_URL"))
    if bucket is None:
        from datahub.platform.storage.local import LocalStorage

        return LocalStorage(config["STORAGE_PATH"])
    from datahub.platform.storage.s3 import S3Storage  # boto3 only when used

    return S3Storage(
        bucket,
        prefix,
        endpoint_url=config.get("S3_ENDPOINT_URL") or None,
        region=config.get("S3_REGION") or None,
        part_size=int(config["S3_PART_SIZE"]),
        concurrency=int(config["S3_UPLOAD_CONCURRENCY"]),
        sweep_after=float(config["S3_SWEEP_AFTER_SECONDS"]),
    )


def get_storage():
    """The app's storage backend (one per app)."""
    return per_app(current_app, "datahub.storage", lambda: create_storage(current_app.config))
