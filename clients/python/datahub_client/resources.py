"""The resource API of the client: users, datasets (with streamed file transfer) and
collections. Mixed into ``Client``; every method returns the decoded JSON answer."""

import errno
import hashlib
import mimetypes
import os
import re
import shutil
import tempfile
from email.message import Message
from urllib.parse import quote, urlencode

import urllib3

from datahub_client.errors import DatahubError

API = "/api/v1"
CHUNK_SIZE = 64 * 1024


def _given(**params):
    """The query parameters that were given (not None)."""
    return {name: value for name, value in params.items() if value is not None}


class ProgressReader:
    """A file object read in chunks by urllib3 that reports ``(bytes_sent, total)`` to
    ``progress``. ``seek``/``tell`` let a retried or renewed request start again."""

    def __init__(self, raw, total, progress=None):
        self.raw, self.total, self.progress = raw, total, progress
        self.start = raw.tell()
        self.sent = 0

    def read(self, size=-1):
        size = CHUNK_SIZE if size is None or size < 0 else size
        chunk = self.raw.read(size)
        self.sent += len(chunk)
        if self.progress is not None and chunk:
            self.progress(self.sent, self.total)
        return chunk

    def tell(self):
        return self.raw.tell()

    def seek(self, position, whence=os.SEEK_SET):
        result = self.raw.seek(position, whence)
        self.sent = self.raw.tell() - self.start
        return result


def _remaining_size(fileobj):
    position = fileobj.tell()
    end = fileobj.seek(0, os.SEEK_END)
    fileobj.seek(position)
    return end - position


def _name_of(fileobj):
    name = getattr(fileobj, "name", None)
    return os.path.basename(name) if isinstance(name, str) else None


def _quoted_etag_sha256(value):
    match = re.fullmatch(r'(?:W/)?"([0-9a-f]{64})"', value or "")
    return match.group(1) if match else None


def _cut_short(received, total):
    of = f" of {total}" if total else ""
    return DatahubError(0, f"Download ended after {received}{of} bytes")


def _os_error(code, path):
    return OSError(code, os.strerror(code), path)  # the subclass: FileExistsError, ...


def _check_target(path, overwrite):
    """Raise the OSError that saving to ``path`` would meet, before anything is fetched."""
    folder = path if path.endswith(os.sep) else os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _os_error(errno.ENOTDIR if os.path.exists(folder) else errno.ENOENT, path)
    if os.path.isdir(path):
        raise _os_error(errno.EISDIR, path)
    if not overwrite and os.path.lexists(path):
        raise _os_error(errno.EEXIST, path)


def _place(temporary, destination, overwrite):
    """Rename the complete download into place; without ``overwrite`` never over a file,
    not even one that appeared meanwhile (a hard link fails if the name is taken)."""
    if overwrite:
        os.replace(temporary, destination)
        return
    try:
        os.link(temporary, destination)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: check, then rename
        _check_target(destination, overwrite)
        os.replace(temporary, destination)
    else:
        os.unlink(temporary)


class ResourcesMixin:
    """Needs ``self._json(method, path, **kwargs)``, ``self._decode(response, path)`` and
    ``self.request(...)``."""

    # -- users --------------------------------------------------------------------------

    def users_me(self):
        return self.me()

    # -- datasets -----------------------------------------------------------------------

    def datasets_list(self, *, q=None, tag=None, owner=None, sort=None, limit=20, offset=0):
        """One page; ``sort``: ``name``, ``created_at`` or ``updated_at``, ``-`` first for
        descending (None: oldest first). Each item has the caller's ``capabilities``."""
        params = _given(q=q, tag=tag, owner=owner, sort=sort, limit=limit, offset=offset)
        return self._json("GET", f"{API}/datasets/", params=params)

    def datasets_iter(self, **filters):
        """Every dataset matching the filters, page after page."""
        offset = 0
        while True:
            page = self.datasets_list(limit=100, offset=offset, **filters)
            yield from page["items"]
            offset += len(page["items"])
            if not page["items"] or offset >= page["total"]:
                return

    def dataset_get(self, dataset_id):
        return self._json("GET", f"{API}/datasets/{int(dataset_id)}")

    def dataset_create(self, name, *, description=None, tags=None, visibility=None, readme=None):
        """``visibility``: ``private`` or ``internal`` (default: the service's); ``readme``:
        Markdown, at most 100 KB."""
        body = {"name": name}
        if readme is not None:
            body["readme"] = readme
        if visibility is not None:
            body["visibility"] = visibility
        if description is not None:
            body["description"] = description
        if tags is not None:
            body["tags"] = list(tags)
        return self._json("POST", f"{API}/datasets/", json_body=body)

    def dataset_update(self, dataset_id, **changes):
        """Change ``name``, ``description``, ``readme``, ``tags`` and/or ``visibility``."""
        return self._json("PATCH", f"{API}/datasets/{int(dataset_id)}", json_body=changes)

    def dataset_columns(self, dataset_id):
        """``{"version", "columns": [{"name", "type", "description"}]}``: the current
        version's columns and what each means."""
        return self._json("GET", f"{API}/datasets/{int(dataset_id)}/columns")

    def dataset_columns_update(self, dataset_id, descriptions):
        """Describe columns of the current version: ``{name: description}`` ("" removes
        one); the others keep theirs. Answers as :meth:`dataset_columns`."""
        body = {"columns": [{"name": n, "description": d} for n, d in descriptions.items()]}
        return self._json("PATCH", f"{API}/datasets/{int(dataset_id)}/columns", json_body=body)

    def dataset_delete(self, dataset_id):
        self.request("DELETE", f"{API}/datasets/{int(dataset_id)}")

    def dataset_upload(
        self,
        dataset_id,
        source,
        *,
        filename=None,
        content_type=None,
        progress=None,
        message=None,
    ):
        """Upload the dataset's file (its new, current version) from a path or a binary
        file object, streamed in chunks as the raw request body (never read into memory
        whole; a file object that cannot seek, such as a pipe, is spooled to a temporary
        file first). ``message`` is a note kept with the version.
        ``progress(bytes_sent, total)`` is called after each chunk."""
        if isinstance(source, (str, os.PathLike)):
            with open(source, "rb") as fileobj:
                return self.dataset_upload(
                    dataset_id,
                    fileobj,
                    progress=progress,
                    content_type=content_type,
                    filename=filename or os.path.basename(os.fspath(source)),
                    message=message,
                )
        fileobj = source
        if not fileobj.seekable():
            # A pipe or socket: spool it to a temporary file (disk, not memory) first, so
            # that a retried or renewed request can send it again from the start.
            with tempfile.TemporaryFile() as spooled:
                shutil.copyfileobj(fileobj, spooled, CHUNK_SIZE)
                spooled.seek(0)
                return self.dataset_upload(
                    dataset_id,
                    spooled,
                    progress=progress,
                    content_type=content_type,
                    filename=filename or _name_of(fileobj),
                    message=message,
                )
        if filename is None:
            filename = _name_of(fileobj)
        if content_type is None:
            guessed = mimetypes.guess_type(filename or "")[0]
            content_type = guessed or "application/octet-stream"
        total = _remaining_size(fileobj)
        body = ProgressReader(fileobj, total, progress)
        query = [("filename", filename)] if filename else []
        if message is not None:
            query.append(("message", message))
        path = f"{API}/datasets/{int(dataset_id)}/file"
        if query:
            path += "?" + urlencode(query, quote_via=quote)
        response = self.request(
            "PUT",
            path,
            body=body,
            headers={"Content-Type": content_type, "Content-Length": str(total)},
        )
        return self._decode(response, path)

    def dataset_download(
        self, dataset_id, destination, *, progress=None, overwrite=True, version=None
    ):
        """Download the dataset's file (its current version, or ``version``) to
        ``destination`` (a path; a folder keeps the server's file name), streamed in chunks
        into a temporary file in the same folder and renamed into place only once complete
        and matching the ETag (the file's sha256): a failed download leaves no partial file
        and the old one as it was. Without ``overwrite``, an existing file is a
        FileExistsError. Local problems raise OSError naming the destination. Returns the
        path."""
        destination = os.fspath(destination)
        if not os.path.isdir(destination):
            _check_target(destination, overwrite)
        path = f"{API}/datasets/{int(dataset_id)}"
        path += "/file" if version is None else f"/versions/{int(version)}/file"
        response = self.request("GET", path, preload=False)
        try:
            if os.path.isdir(destination):
                destination = os.path.join(destination, self._download_name(response, dataset_id))
                _check_target(destination, overwrite)
            try:
                self._save(response, destination, overwrite, progress)
            except OSError as exc:  # named after the destination, never the temporary file
                if not exc.errno:
                    raise
                raise _os_error(exc.errno, destination) from exc
        except BaseException:
            response.close()  # the answer was not read to its end: the connection is spent
            raise
        finally:
            response.release_conn()
        return destination

    def dataset_preview(self, dataset_id, *, limit=None, version=None):
        """The first rows (``limit``; the service's default 50) of the dataset's file, or
        of its version ``version``'s: ``{"format", "columns": [{"name", "type"}], "rows",
        "truncated"}``."""
        path = f"{API}/datasets/{int(dataset_id)}"
        path += "/preview" if version is None else f"/versions/{int(version)}/preview"
        return self._json("GET", path, params=_given(limit=limit))

    @staticmethod
    def _save(response, destination, overwrite, progress):
        total = int(response.headers.get("Content-Length") or 0) or None
        expected = _quoted_etag_sha256(response.headers.get("ETag"))
        digest, received = hashlib.sha256(), 0
        folder = os.path.dirname(os.path.abspath(destination))
        handle, temporary = tempfile.mkstemp(prefix=".datahub-", dir=folder)
        try:
            with os.fdopen(handle, "wb") as out:
                try:
                    for chunk in response.stream(CHUNK_SIZE):
                        out.write(chunk)
                        digest.update(chunk)
                        received += len(chunk)
                        if progress is not None:
                            progress(received, total)
                except urllib3.exceptions.HTTPError as exc:  # the connection broke, timed out
                    raise _cut_short(received, total) from exc
            if total is not None and received != total:
                raise _cut_short(received, total)
            if expected and digest.hexdigest() != expected:
                raise DatahubError(0, "Downloaded file does not match its sha256 (ETag)")
            _place(temporary, destination, overwrite)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    @staticmethod
    def _download_name(response, dataset_id):
        message = Message()  # parses filename= and RFC 2231/6266 filename*=
        message["Content-Disposition"] = response.headers.get("Content-Disposition", "")
        name = os.path.basename((message.get_filename() or "").replace("\\", "/"))
        return name if name not in ("", ".", "..") else f"dataset-{int(dataset_id)}"

    # -- collections --------------------------------------------------------------------

    def collections_list(self, *, q=None, owner=None, sort=None, limit=20, offset=0):
        """One page; ``sort`` as for :meth:`datasets_list`."""
        params = _given(q=q, owner=owner, sort=sort, limit=limit, offset=offset)
        return self._json("GET", f"{API}/collections/", params=params)

    def collection_get(self, collection_id):
        return self._json("GET", f"{API}/collections/{int(collection_id)}")

    def collection_create(self, name, *, description=None, dataset_ids=None, visibility=None):
        body = {"name": name}
        if visibility is not None:
            body["visibility"] = visibility
        if description is not None:
            body["description"] = description
        if dataset_ids is not None:
            body["dataset_ids"] = [int(i) for i in dataset_ids]
        return self._json("POST", f"{API}/collections/", json_body=body)

    def collection_delete(self, collection_id):
        self.request("DELETE", f"{API}/collections/{int(collection_id)}")

    def collection_add(self, collection_id, dataset_id):
        return self._json(
            "PUT", f"{API}/collections/{int(collection_id)}/datasets/{int(dataset_id)}"
        )

    def collection_remove(self, collection_id, dataset_id):
        return self._json(
            "DELETE", f"{API}/collections/{int(collection_id)}/datasets/{int(dataset_id)}"
        )

    # -- pipelines ----------------------------------------------------------------------

    def pipelines_list(self, *, q=None, owner=None, sort=None, limit=20, offset=0):
        """One page; ``sort`` as for :meth:`datasets_list`."""
        params = _given(q=q, owner=owner, sort=sort, limit=limit, offset=offset)
        return self._json("GET", f"{API}/pipelines/", params=params)

    def pipeline_preview(self, source_dataset_id, steps, source_version=None, limit=None):
        """The first rows (``limit``; the service's default 50) of what ``steps`` (a
        pipeline's, as a list of dicts) make of the dataset ``source_dataset_id`` (its
        version ``source_version``, else its current one), shaped as
        :meth:`dataset_preview`'s answer. Nothing is made or stored: a read-only token may
        call it. A step the service refuses is a ValidationError whose ``loc`` points into
        ``steps``."""
        body = {"source_dataset_id": int(source_dataset_id), "steps": list(steps)}
        body.update(_given(source_version=source_version, limit=limit))
        return self._json("POST", f"{API}/pipelines/preview", json_body=body)

    def pipeline_run(self, pipeline_id):
        """Start a run (POST, so never retried); 409 while one is queued or running."""
        return self._json("POST", f"{API}/pipelines/{int(pipeline_id)}/runs")

    def run_get(self, pipeline_id, run_id):
        return self._json("GET", f"{API}/pipelines/{int(pipeline_id)}/runs/{int(run_id)}")

    def run_wait(self, pipeline_id, run_id, *, poll=1.0, timeout=None, on_poll=None):
        """Poll until the run has finished (succeeded, failed or cancelled); returns it."""
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            run = self.run_get(pipeline_id, run_id)
            if on_poll is not None:
                on_poll(run)
            if run["status"] not in ("queued", "running"):
                return run
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"run {run_id} still {run['status']} after {timeout} s")
            time.sleep(poll)
