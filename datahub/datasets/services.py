"""What can be done to datasets, independent of HTTP."""

from dataclasses import dataclass

import sqlalchemy as sa

from datahub import quotas
from datahub.app.extensions import db
from datahub.datasets.errors import DatasetNotFound
from datahub.datasets.models import Dataset, DatasetTag
from datahub.datasets.storage import delete_quietly
from datahub.platform.database import utcnow
from datahub.platform.errors import FileTooLarge
from datahub.platform.storage import get_storage
from datahub.resources.services import create_named, filter_named, get_or_raise, update_named

FIELDS = ("description", "tags")


def get_dataset(dataset_id, for_update=False):
    return get_or_raise(Dataset, dataset_id, DatasetNotFound, for_update=for_update)


def datasets_query(args, user):
    """The datasets a list shows, oldest first: filtered by ``q``, ``owner`` and ``tag``."""
    query = filter_named(sa.select(Dataset), Dataset, args, user)
    if args.get("tag"):
        query = query.where(
            Dataset.id.in_(sa.select(DatasetTag.dataset_id).where(DatasetTag.tag == args["tag"]))
        )
    return query.order_by(Dataset.id)


def create_dataset(owner, values):
    """A new dataset; 403 ``Dataset quota exceeded`` when the owner has
    ``QUOTA_DATASETS`` already (counted under the owner's lock, see datahub.quotas)."""

    def within_quota(_values):
        quotas.lock_user(owner.id)
        quotas.check_datasets(owner.id)

    return create_named(Dataset, owner, values, FIELDS, check=within_quota)


def update_dataset(dataset, values):
    return update_named(dataset, values, FIELDS)


def delete_dataset(dataset):
    """Delete the row (its collection memberships go with it), then its file."""
    key = dataset.file_key
    db.session.delete(dataset)
    db.session.commit()
    delete_quietly(key)


@dataclass(frozen=True)
class UploadLimit:
    """How many bytes an upload may have (None: no limit), and whether the owner's storage
    quota, rather than ``MAX_CONTENT_LENGTH``, sets it."""

    size: int | None
    by_quota: bool


def upload_limit(dataset, max_content_length):
    """The limit of an upload to ``dataset``: ``max_content_length``, or the room left in
    the owner's storage quota when that is less (the file replaced counting as freed)."""
    room = quotas.storage_room(dataset.owner_id, replaced_bytes(dataset))
    if room is not None and (max_content_length is None or room < max_content_length):
        return UploadLimit(max(room, 0), by_quota=True)
    return UploadLimit(max_content_length, by_quota=False)


def store_file(dataset_id, upload, limit):
    """Stream ``upload`` (``chunks()``, then its ``filename`` and ``content_type``) to
    storage within ``limit`` and make it the dataset's file; the dataset.

    The transaction ends first: no lock is held while the body arrives. Past the limit:
    :class:`~datahub.platform.errors.FileTooLarge`, or
    :class:`~datahub.quotas.StorageQuotaExceeded` when the quota set the limit."""
    db.session.commit()
    try:
        stored = get_storage().save(upload.chunks(), max_size=limit.size)
    except FileTooLarge:
        if not limit.by_quota:
            raise
        raise quotas.StorageQuotaExceeded() from None
    try:
        return attach_file(dataset_id, stored, upload.filename, upload.content_type)
    finally:
        stored.release()  # until here a storage sweep leaves the new file alone


def attach_file(dataset_id, stored, filename, content_type):
    """Point the dataset at a newly stored file and drop the one it replaces.

    The row is re-read under a lock: the upload was streamed outside any transaction, and
    the dataset may have been deleted or given another file meanwhile. The owner's storage
    quota is checked under the owner's lock (the file replaced counts as freed):
    :class:`~datahub.quotas.StorageQuotaExceeded`, the new file deleted.
    """
    try:
        owner_id = db.session.scalar(sa.select(Dataset.owner_id).where(Dataset.id == dataset_id))
        if owner_id is None:
            raise DatasetNotFound()
        quotas.lock_user(owner_id)  # the owner first, then the dataset: one lock order
        dataset = get_dataset(dataset_id, for_update=True)
        quotas.check_storage(owner_id, stored.size, freeing_bytes=replaced_bytes(dataset))
        previous = set_file(dataset, stored, filename, content_type, utcnow())
        db.session.commit()
    except BaseException:
        discard(stored)
        raise
    drop_replaced(previous, stored)
    return dataset


def replaced_bytes(dataset):
    """The bytes an upload to ``dataset`` frees: those of the file it replaces."""
    return (dataset.file_size or 0) if dataset.file_key else 0


def set_file(dataset, stored, filename, content_type, now):
    """Point ``dataset`` at the ``stored`` file (uncommitted); the key it had, or None."""
    previous = dataset.file_key
    dataset.file_key = stored.key
    dataset.file_name = filename
    dataset.file_content_type = content_type
    dataset.file_size = stored.size
    dataset.file_sha256 = stored.sha256
    dataset.file_uploaded_at = dataset.updated_at = now
    return previous


def discard(stored):
    """The transaction that was to point at ``stored`` failed: roll it back, delete the
    file (a failure to delete it is logged, and the original error goes on)."""
    db.session.rollback()
    delete_quietly(stored.key)


def drop_replaced(previous, stored):
    """After the commit: delete the file a dataset pointed at before ``stored``."""
    if previous and previous != stored.key:
        delete_quietly(previous)
