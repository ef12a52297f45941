"""What can be done to datasets, independent of HTTP."""

import functools
from dataclasses import dataclass

import sqlalchemy as sa

from datahub import quotas
from datahub.app.extensions import db
from datahub.datasets import tabular, versions
from datahub.datasets.errors import DatasetNotFound
from datahub.datasets.event_data import record_dataset
from datahub.datasets.models import Dataset, DatasetTag, DatasetVersion
from datahub.datasets.storage import delete_quietly
from datahub.platform.errors import FileTooLarge
from datahub.platform.storage import get_storage
from datahub.resources.services import (
    create_named,
    filter_named,
    get_or_raise,
    ordered,
    update_named,
)

FIELDS = ("description", "readme", "tags")


def get_dataset(dataset_id, for_update=False):
    return get_or_raise(Dataset, dataset_id, DatasetNotFound, for_update=for_update)


def datasets_query(args, user):
    """The datasets a list shows, oldest first or in ``sort``'s order: filtered by ``q``,
    ``owner`` and ``tag``."""
    query = filter_named(sa.select(Dataset), Dataset, args, user)
    if args.get("tag"):
        query = query.where(
            Dataset.id.in_(sa.select(DatasetTag.dataset_id).where(DatasetTag.tag == args["tag"]))
        )
    return ordered(query, Dataset, args.get("sort"))


CREATED = functools.partial(record_dataset, "datahub.dataset.created")
UPDATED = functools.partial(record_dataset, "datahub.dataset.updated")


def create_dataset(owner, values):
    """A new dataset; 403 ``Dataset quota exceeded`` when the owner has
    ``QUOTA_DATASETS`` already (counted under the owner's lock, see datahub.quotas)."""

    def within_quota(_values):
        quotas.lock_user(owner.id)
        quotas.check_datasets(owner.id)

    return create_named(Dataset, owner, values, FIELDS, check=within_quota, record=CREATED)


def update_dataset(dataset, values):
    return update_named(dataset, values, FIELDS, record=UPDATED)


def delete_dataset(dataset):
    """Delete the row (its versions and collection memberships go with it), then the
    stored objects of its versions."""
    keys = db.session.scalars(
        sa.select(DatasetVersion.file_key).where(DatasetVersion.dataset_id == dataset.id)
    ).all()
    record_dataset("datahub.dataset.deleted", dataset)
    db.session.delete(dataset)
    db.session.commit()
    versions.drop_unreferenced(keys)  # the current file is one of them


@dataclass(frozen=True)
class UploadLimit:
    """How many bytes an upload may have (None: no limit), and whether the owner's storage
    quota, rather than ``MAX_CONTENT_LENGTH``, sets it."""

    size: int | None
    by_quota: bool


def upload_limit(dataset, max_content_length):
    """The limit of an upload to ``dataset``: ``max_content_length``, or the room left in
    the owner's storage quota when that is less (earlier versions stay, and count)."""
    room = quotas.storage_room(dataset.owner_id)
    if room is not None and (max_content_length is None or room < max_content_length):
        return UploadLimit(max(room, 0), by_quota=True)
    return UploadLimit(max_content_length, by_quota=False)


class Sniffed:
    """The chunks of an upload passed on, its format told from the first
    ``tabular.SNIFF_BYTES`` (copied: a chunk may be a view of a buffer that is reused)."""

    def __init__(self, chunks):
        self.chunks, self.head, self.format = chunks, bytearray(), None

    def __iter__(self):
        for chunk in self.chunks:
            if self.head is not None:
                self.head += chunk[: tabular.SNIFF_BYTES - len(self.head)]
                if len(self.head) >= tabular.SNIFF_BYTES:
                    self._tell()
            yield chunk
        if self.head is not None:
            self._tell()

    def _tell(self):
        try:
            self.format = tabular.sniff_format(bytes(self.head))
        except tabular.NotTabular:
            self.format = None
        self.head = None


def store_file(dataset_id, upload, limit, user_id, message=None):
    """Stream ``upload`` (``chunks()``, then its ``filename`` and ``content_type``) to
    storage within ``limit`` and make it the dataset's new, current version; the dataset.

    The transaction ends first: no lock is held while the body arrives. Past the limit:
    :class:`~datahub.platform.errors.FileTooLarge`, or
    :class:`~datahub.quotas.StorageQuotaExceeded` when the quota set the limit."""
    db.session.commit()
    sniffed = Sniffed(upload.chunks())
    try:
        stored = get_storage().save(iter(sniffed), max_size=limit.size)
    except FileTooLarge:
        if not limit.by_quota:
            raise
        raise quotas.StorageQuotaExceeded() from None
    try:
        return attach_file(
            dataset_id,
            stored,
            NewFile(upload.filename, upload.content_type, sniffed.format),
            created_by=user_id,
            message=message,
        )
    finally:
        stored.release()  # until here a storage sweep leaves the new file alone


@dataclass(frozen=True)
class NewFile:
    """What is known of a stored file besides its bytes."""

    filename: str
    content_type: str
    format: str | None


def attach_file(dataset_id, stored, new_file, **made):
    """Make the newly ``stored`` file the dataset's new, current version (``made``: as
    :func:`~datahub.datasets.versions.add_version`); the dataset.

    The row is re-read under a lock: the upload was streamed outside any transaction, and
    the dataset may have been deleted or given another version meanwhile. When a version
    of the dataset has the same bytes, the new version refers to its object and the new
    copy is deleted. The owner's storage quota is checked under the owner's lock:
    :class:`~datahub.quotas.StorageQuotaExceeded`, the new file deleted.
    """
    try:
        owner_id = db.session.scalar(sa.select(Dataset.owner_id).where(Dataset.id == dataset_id))
        if owner_id is None:
            raise DatasetNotFound()
        quotas.lock_user(owner_id)  # the owner first, then the dataset: one lock order
        dataset = get_dataset(dataset_id, for_update=True)
        key, _version = add_stored_version(dataset, stored, new_file, **made)
        db.session.commit()
    except BaseException:
        discard(stored)
        raise
    drop_duplicate(key, stored)
    return dataset


def add_stored_version(dataset, stored, new_file, **made):
    """The version of the ``stored`` bytes, added to the (locked) ``dataset`` once the
    owner's quota has room (:class:`~datahub.quotas.StorageQuotaExceeded`): ``(key,
    version)``, the key it refers to an earlier version's with the same bytes, or
    ``stored``'s."""
    existing = dataset.id is not None and versions.same_content(
        dataset.id, stored.sha256, stored.size
    )
    quotas.check_storage(dataset.owner_id, 0 if existing else stored.size)
    key = existing or stored.key
    version = versions.add_version(
        dataset,
        key,
        stored.sha256,
        stored.size,
        new_file.filename,
        new_file.content_type,
        new_file.format,
        **made,
    )
    return key, version


def discard(stored):
    """The transaction that was to refer to ``stored`` failed: roll it back, delete the
    file (a failure to delete it is logged, and the original error goes on)."""
    db.session.rollback()
    delete_quietly(stored.key)


def drop_duplicate(key, stored):
    """After the commit: the new copy, when the version refers to an earlier object."""
    if key != stored.key:
        delete_quietly(stored.key)
