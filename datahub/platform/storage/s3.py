"""Files in an S3 bucket (``STORAGE_URL`` ``s3://bucket/prefix``): AWS, MinIO, Ceph, moto.

A file is the object ``<prefix>/<key>``; the database keeps only the key: 32 hex digits,
the time the upload began (in seconds) followed by random ones.

**Uploads** stream in bounded memory: the bytes are hashed as they arrive and gathered
into parts of ``S3_PART_SIZE`` bytes; a file smaller than one part is one PutObject, a
larger one a multipart upload whose next part is gathered while up to
``S3_UPLOAD_CONCURRENCY`` parts are sent (at most that many parts and one more in memory). The object appears only when the upload completes, so a
reader never sees a partial file. Any failure (the client leaving, ``File too large``, an
empty file, an S3 error) aborts the multipart upload: no object and no stored part stay.

**Interrupted uploads.** A process killed mid-upload (``kill -9``, out of memory,
gunicorn's timeout) leaves an incomplete multipart upload (its parts are kept, and billed,
until it is aborted); killed between completing the upload and committing the row, it
leaves an object no row refers to. S3 has no lock that a dead process drops (nothing like
``flock`` across hosts), so the sweep at worker start cannot tell an upload of a dead
worker from one another host is running right now. It therefore aborts only incomplete
uploads that began and received no part, and deletes only unreferenced objects that were
written, more than ``S3_SWEEP_AFTER_SECONDS`` ago (a day by default), which must be
longer than any upload takes from its start to its commit. A bucket lifecycle rule
``AbortIncompleteMultipartUpload`` does the first half too.

**Errors.** An S3 error or an unreachable endpoint is logged once and raised as
:class:`~datahub.platform.errors.StorageUnavailable`; a missing object is
:class:`FileNotFoundError`.
"""

import contextlib
import errno
import hashlib
import logging
import os
import secrets
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta

from datahub.platform.errors import FileTooLarge, InsufficientStorage, StorageUnavailable
from datahub.platform.storage.base import KEY, StoredFile, check_key
from datahub.platform.storage.s3_transfer import LaterCleanup, S3Reader, Upload

log = logging.getLogger("datahub.storage")

CHUNK_BYTES = 1024 * 1024
NOT_FOUND = {"404", "NoSuchKey", "NotFound"}


_session = None
_session_lock = threading.Lock()


def _boto3_session():
    """This process's boto3 session, made on first use. A session loads botocore's
    service models and endpoints, about 0.2 s of CPU: every storage of the process (an
    app in the tests, the preview and pipeline jobs) makes its own client from this one.
    Credentials are looked up at each client's making until found."""
    global _session
    import boto3

    with _session_lock:
        if _session is None:
            _session = boto3.session.Session()
        return _session


class S3Storage:
    def __init__(
        self,
        bucket,
        prefix="",
        *,
        endpoint_url=None,
        region=None,
        part_size=8 * 1024 * 1024,
        concurrency=2,
        sweep_after=86400.0,
    ):
        self.bucket, self.endpoint_url, self.region = bucket, endpoint_url, region
        self.prefix = f"{prefix.strip('/')}/" if prefix.strip("/") else ""
        self.part_size, self.sweep_after = int(part_size), float(sweep_after)
        self.concurrency = max(1, int(concurrency))
        self._client = None
        self._client_lock = threading.Lock()
        self.cleanup = LaterCleanup(self)  # what aborted uploads could not remove yet

    def __repr__(self):
        return f"S3Storage(s3://{self.bucket}/{self.prefix})"

    @property
    def client(self):
        """One boto3 client (thread-safe), made on first use: after gunicorn's fork."""
        with self._client_lock:
            if self._client is None:
                from botocore.config import Config

                self._client = _boto3_session().client(
                    "s3",
                    endpoint_url=self.endpoint_url,
                    config=Config(
                        region_name=self.region,
                        signature_version="s3v4",
                        connect_timeout=5,
                        read_timeout=60,
                        retries={"max_attempts": 3, "mode": "standard"},
                        max_pool_connections=64,  # gunicorn.conf.py's threads
                        # MinIO, Ceph and moto want path-style URLs on their own hosts.
                        s3={"addressing_style": "path" if self.endpoint_url else "auto"},
                        # botocore >= 1.36 adds CRC trailers by default, which S3-compatible
                        # servers do not all accept; the sha256 is ours anyway.
                        request_checksum_calculation="when_required",
                        response_checksum_validation="when_required",
                    ),
                )
            return self._client

    def name(self, key):
        return self.prefix + check_key(key)

    @contextlib.contextmanager
    def errors(self, what):
        """S3's exceptions as ours: FileNotFoundError, or StorageUnavailable (logged)."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            yield
        except ClientError as exc:
            if str(exc.response.get("Error", {}).get("Code")) in NOT_FOUND:
                raise FileNotFoundError(f"{what}: no such object") from None
            log.error("S3 %s failed (s3://%s/%s): %s", what, self.bucket, self.prefix, exc)
            raise StorageUnavailable() from None
        except (BotoCoreError, OSError) as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            log.error("S3 %s failed (s3://%s/%s): %s", what, self.bucket, self.prefix, exc)
            raise StorageUnavailable() from None

    # -- writing ----------------------------------------------------------------------

    def save(self, chunks, max_size=None):
        """Store the byte chunks of ``chunks`` under a new key; :class:`FileTooLarge` as
        soon as more than ``max_size`` bytes arrive. Any exception (also from ``chunks``)
        aborts the upload and propagates."""
        key = new_key()
        upload = Upload(self, self.name(key))
        digest, size, part = hashlib.sha256(), 0, bytearray()
        try:
            for chunk in chunks:
                size += len(chunk)
                if max_size is not None and size > max_size:
                    raise FileTooLarge()
                digest.update(chunk)
                part += chunk
                if len(part) >= self.part_size:
                    upload.send_part(part)
                    part = bytearray()
            upload.finish(part)
        except BaseException:
            upload.abort()
            raise
        return StoredFile(key=key, size=size, sha256=digest.hexdigest())

    def delete(self, key):
        """Remove a stored object; a missing one is not an error."""
        with self.errors("delete"):
            self.client.delete_object(Bucket=self.bucket, Key=self.name(key))

    def delete_later(self, key):
        """Remove a stored object once S3 answers again (:class:`LaterCleanup`): for a
        :meth:`delete` that failed while it did not."""
        self.cleanup.add("delete_object", {"Key": self.name(key)})

    # -- reading ----------------------------------------------------------------------

    def open(self, key):
        """A seekable read-only file over the object: each read streams from a ranged
        GetObject opened at the current offset (a seek opens another)."""
        name = self.name(key)
        with self.errors("head"):
            head = self.client.head_object(Bucket=self.bucket, Key=name)
        return S3Reader(self, name, int(head["ContentLength"]))

    def get(self, name, first=0, last=None):
        """The streaming body of bytes ``first``-``last`` (inclusive) of object ``name``."""
        ranged = (
            {}
            if first == 0 and last is None
            else {"Range": f"bytes={first}-{'' if last is None else last}"}
        )
        with self.errors("get"):
            return self.client.get_object(Bucket=self.bucket, Key=name, **ranged)["Body"]

    @contextlib.contextmanager
    def local_copy(self, key, directory=None):
        """Download the object to a temporary file in ``directory`` (None: the system's
        temporary folder), yield its path, remove it afterwards."""
        name = self.name(key)
        fd, path = tempfile.mkstemp(dir=directory, prefix="datahub-s3-")
        try:
            try:
                with os.fdopen(fd, "wb") as out, contextlib.closing(self.get(name)) as body:
                    while True:
                        with self.errors("get"):
                            chunk = body.read(CHUNK_BYTES)
                        if not chunk:
                            break
                        out.write(chunk)
            except OSError as exc:
                if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                    raise
                log.error(
                    "no space left for a copy of %s in %s: answered 507 (%s)",
                    name,
                    directory or tempfile.gettempdir(),
                    exc,
                )
                raise InsufficientStorage() from None
            yield path
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    def presigned_url(self, key, expires, content_type=None, content_disposition=None):
        """A URL that GETs the object without credentials for ``expires`` seconds, answered
        with these Content-Type and Content-Disposition. Signed locally (no request)."""
        params = {"Bucket": self.bucket, "Key": self.name(key)}
        if content_type:
            params["ResponseContentType"] = content_type
        if content_disposition:
            params["ResponseContentDisposition"] = content_disposition
        with self.errors("presign"):
            return self.client.generate_presigned_url(
                "get_object", Params=params, ExpiresIn=int(expires)
            )

    # -- cleaning up ------------------------------------------------------------------

    def sweep(self, is_referenced):
        """Abort the incomplete multipart uploads under the prefix that received no part
        for ``sweep_after`` seconds, and delete the objects older than that for which
        ``is_referenced(key)`` is false (see the module's docstring). Returns the keys."""
        cutoff = datetime.now(UTC) - timedelta(seconds=self.sweep_after)
        removed = []
        client = self.client
        with self.errors("sweep"):
            for page in client.get_paginator("list_multipart_uploads").paginate(
                Bucket=self.bucket, Prefix=self.prefix
            ):
                for upload in page.get("Uploads", []):
                    key = upload["Key"][len(self.prefix) :]
                    if KEY.match(key) and self._abort_if_stale(key, upload, cutoff):
                        removed.append(key)
            for page in client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=self.prefix
            ):
                for item in page.get("Contents", []):
                    key = item["Key"][len(self.prefix) :]
                    if (
                        KEY.match(key)
                        and item["LastModified"] <= cutoff
                        and key_time(key) <= cutoff
                        and not is_referenced(key)
                    ):
                        client.delete_object(Bucket=self.bucket, Key=item["Key"])
                        removed.append(key)
        return removed

    def _abort_if_stale(self, key, upload, cutoff):
        """Abort ``upload`` if nothing arrived for it since ``cutoff``; whether this sweep
        aborted it. One that is gone meanwhile (completed, or aborted by the sweep of
        another worker starting at the same time) is passed over."""
        from botocore.exceptions import ClientError

        try:
            if self._last_activity(key, upload) > cutoff:
                return False
            self.client.abort_multipart_upload(
                Bucket=self.bucket, Key=upload["Key"], UploadId=upload["UploadId"]
            )
            return True
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "NoSuchUpload":
                return False
            raise

    def _last_activity(self, key, upload):
        """When the upload began or its newest part arrived, whichever is later: an upload
        still sending parts is alive, however long ago it began. (The key's own time
        counts as its start too: some servers, moto among them, report a fixed date as
        ``Initiated``.)"""
        newest = max(upload["Initiated"], key_time(key))
        if newest > datetime.now(UTC) - timedelta(seconds=self.sweep_after):
            return newest
        for page in self.client.get_paginator("list_parts").paginate(
            Bucket=self.bucket, Key=upload["Key"], UploadId=upload["UploadId"]
        ):
            for part in page.get("Parts", []):
                newest = max(newest, part["LastModified"])
        return newest


def new_key():
    """32 hex digits: the time in seconds (8), then 96 random bits. The time tells the
    sweep when an upload began, whatever its server says."""
    return f"{int(time.time()):08x}{secrets.token_hex(12)}"


def key_time(key):
    return datetime.fromtimestamp(int(key[:8], 16), UTC)
