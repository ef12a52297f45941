"""An S3 object's transfers: an upload in parts sent while the next is gathered, and a
seekable reader of ranged GETs (see :mod:`datahub.platform.storage.s3`)."""

import collections
import contextlib
import io
import itertools
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from datahub.platform.errors import StorageUnavailable

log = logging.getLogger("datahub.storage")


class Upload:
    """One object being written: a PutObject, or a multipart upload once a part is full.
    Parts are sent by threads of their own (at most ``storage.concurrency`` at a time)
    while the next one is gathered."""

    def __init__(self, storage, name):
        self.storage, self.name = storage, name
        self.upload_id = None
        self.parts, self.pending, self.sender = [], collections.deque(), None
        self.completing = False

    def _call(self, what, method, **kwargs):
        with self.storage.errors(what):
            return method(Bucket=self.storage.bucket, Key=self.name, **kwargs)

    def send_part(self, data):
        client = self.storage.client
        if self.upload_id is None:
            self.upload_id = self._call("upload", client.create_multipart_upload)["UploadId"]
            self.sender = ThreadPoolExecutor(
                max_workers=self.storage.concurrency, thread_name_prefix="s3-part"
            )
        while len(self.pending) >= self.storage.concurrency:
            self._wait_oldest()
        number = len(self.parts) + len(self.pending) + 1
        self.pending.append(
            (
                number,
                self.sender.submit(
                    self._call,
                    "upload",
                    client.upload_part,
                    UploadId=self.upload_id,
                    PartNumber=number,
                    Body=data,
                ),
            )
        )

    def _wait_oldest(self):
        number, future = self.pending.popleft()
        self.parts.append({"PartNumber": number, "ETag": future.result()["ETag"]})

    def finish(self, rest):
        client = self.storage.client
        if self.upload_id is None:
            self.completing = True  # stored even if the answer is lost: abort deletes it
            self._call("upload", client.put_object, Body=rest)
            return
        if rest:
            self.send_part(rest)
        while self.pending:
            self._wait_oldest()
        self.completing = True
        self._call(
            "upload",
            client.complete_multipart_upload,
            UploadId=self.upload_id,
            MultipartUpload={"Parts": self.parts},
        )
        self.sender.shutdown()

    def abort(self):
        """Leave nothing: no stored part, no object. What S3 does not answer now is tried
        again once it does (:class:`LaterCleanup`); the sweep removes what stays once it
        is older than S3_SWEEP_AFTER_SECONDS."""
        if self.sender is not None:
            self.sender.shutdown(wait=True, cancel_futures=True)  # no part after the abort
        steps = []
        if self.upload_id is not None:
            steps.append(("abort_multipart_upload", {"UploadId": self.upload_id}))
        if self.completing:  # it may have completed even though the answer was lost
            steps.append(("delete_object", {}))
        for method, kwargs in steps:  # each on its own: the upload gone must not skip the delete
            try:
                self._call("abort", getattr(self.storage.client, method), **kwargs)
            except FileNotFoundError:
                pass  # already gone
            except StorageUnavailable:  # also NoSuchUpload: the upload completed after all
                log.warning("could not abort the upload of %s; tried again later", self.name)
                self.storage.cleanup.add(method, {"Key": self.name, **kwargs})


RETRY_SECONDS = (0.5, 1.0, 2.0, 5.0)  # between rounds of tries, the last one repeated
MOST_PENDING = 10_000  # beyond: left to the sweep
GONE = {"404", "NoSuchKey", "NotFound", "NoSuchUpload"}


class LaterCleanup:
    """What aborted uploads could not remove while S3 did not answer (a multipart upload,
    an object stored although its answer was lost), tried again by a thread of its own
    until it is gone or ``sweep_after`` seconds have passed (the sweep's then): once S3 is
    back, a failed upload leaves nothing within seconds, not a day."""

    def __init__(self, storage):
        self.storage = storage
        self._pending = []  # (give up at, client method, its arguments but the bucket)
        self._lock = threading.Lock()
        self._thread = None

    def add(self, method, kwargs):
        with self._lock:
            if len(self._pending) >= MOST_PENDING:
                return
            self._pending.append((time.monotonic() + self.storage.sweep_after, method, kwargs))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="datahub-s3-cleanup", daemon=True
                )
                self._thread.start()

    def pending(self):
        with self._lock:
            return len(self._pending)

    def _run(self):
        for round_number in itertools.count():
            time.sleep(RETRY_SECONDS[min(round_number, len(RETRY_SECONDS) - 1)])
            with self._lock:
                tried = list(self._pending)
            done = {id(entry) for entry in tried if self._gone(*entry[1:])}
            now = time.monotonic()
            with self._lock:
                self._pending = [
                    entry for entry in self._pending if id(entry) not in done and entry[0] > now
                ]
                if not self._pending:
                    self._thread = None
                    return

    def _gone(self, method, kwargs):
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            getattr(self.storage.client, method)(Bucket=self.storage.bucket, **kwargs)
        except ClientError as exc:
            return str(exc.response.get("Error", {}).get("Code")) in GONE
        except (BotoCoreError, OSError):
            return False
        except Exception:  # the thread must go on; the sweep is there if this never ends
            log.exception("removing %s left by a failed upload (%s)", kwargs["Key"], method)
            return False
        log.info("removed what a failed upload left: %s (%s)", kwargs["Key"], method)
        return True


class S3Reader(io.RawIOBase):
    """A read-only, seekable file over one object (see :meth:`S3Storage.open`)."""

    def __init__(self, storage, name, size):
        super().__init__()
        self.storage, self.name, self.size = storage, name, size
        self.stop = size  # see limit()
        self._position = 0
        self._body = None

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self._position

    def limit(self, stop):
        """Nothing from offset ``stop`` on will be read: a ranged GET can end there."""
        self.stop = min(int(stop), self.size)

    def start(self):
        """Begin the GET of what is to be read, now rather than at the first read: S3 lost
        meanwhile is the caller's ``StorageUnavailable`` (a 503), not an error once the
        response has begun."""
        if self._body is None and self._position < self.stop:
            self._body = self.storage.get(self.name, self._position, self.stop - 1)

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self.size}[whence]
        if base + offset < 0:
            raise ValueError("negative seek position")
        if base + offset != self._position:
            self._drop_body()
            self._position = base + offset
        return self._position

    def read(self, size=-1):
        stop = self.stop
        want = (
            stop - self._position if size is None or size < 0 else min(size, stop - self._position)
        )
        if want <= 0:
            return b""
        for attempt in (1, 2):
            if self._body is None:
                self._body = self.storage.get(self.name, self._position, stop - 1)
            try:
                with self.storage.errors("read"):
                    data = self._body.read(want)
            except StorageUnavailable:
                self._drop_body()
                if attempt == 2:
                    raise
                continue  # an idle connection the server closed: reopen here, once
            if not data:
                self._drop_body()
                raise StorageUnavailable("Storage unavailable: the object ended early")
            self._position += len(data)
            return data

    def readinto(self, buffer):
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def _drop_body(self):
        if self._body is not None:
            with contextlib.suppress(Exception):
                self._body.close()
            self._body = None

    def close(self):
        self._drop_body()
        super().close()
