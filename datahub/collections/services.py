"""What can be done to collections, independent of HTTP."""
import sqlalchemy as sa

from datahub.collections.errors import CollectionNotFound
from datahub.collections.models import Collection, CollectionDataset
from datahub.database import utcnow
from datahub.datasets.errors import DatasetNotFound
from datahub.datasets.models import Dataset
from datahub.errors import NameAlreadyExists
from datahub.extensions import db
from datahub.listing import paginate, valid_id
from datahub.resources import (
    commit_named,
    filter_named,
    get_or_404,
    name_key,
    name_taken,
    rename,
)


def get_collection(collection_id):
    return get_or_404(Collection, collection_id, CollectionNotFound)


def list_collections(args, user):
    query = filter_named(sa.select(Collection), Collection, args, user)
    return paginate(query, [Collection.id], args)


def _name_taken(name, exclude_id=None):
    return name_taken(Collection, name, exclude_id)


def _commit_named(name, exclude_id=None):
    # Any other integrity error: a member dataset deleted meanwhile (its foreign key).
    commit_named(Collection, name, exclude_id, otherwise=DatasetNotFound)


def _require_datasets(dataset_ids):
    """All of ``dataset_ids`` exist, else 404 ``Dataset not found``."""
    wanted = set(dataset_ids)
    if not wanted:
        return
    if not all(valid_id(i) for i in wanted):
        raise DatasetNotFound()
    found = set(db.session.scalars(sa.select(Dataset.id).where(Dataset.id.in_(wanted))))
    if found != wanted:
        raise DatasetNotFound()


def _set_members(collection, dataset_ids):
    wanted = list(dict.fromkeys(dataset_ids))
    existing = {member.dataset_id: member for member in collection.members}
    collection.members = sorted(
        (existing.get(i) or CollectionDataset(dataset_id=i) for i in wanted),
        key=lambda member: member.dataset_id,
    )


def create_collection(owner, values):
    if _name_taken(values["name"]):
        raise NameAlreadyExists()
    _require_datasets(values["dataset_ids"])
    now = utcnow()
    collection = Collection(
        name=values["name"],
        name_key=name_key(values["name"]),
        description=values["description"],
        owner_id=owner.id,
        created_at=now,
        updated_at=now,
    )
    _set_members(collection, values["dataset_ids"])
    db.session.add(collection)
    _commit_named(collection.name)
    return collection


def update_collection(collection, values):
    if "name" in values:
        rename(collection, values["name"])
    if "description" in values:
        collection.description = values["description"]
    if "dataset_ids" in values:
        _require_datasets(values["dataset_ids"])
        _set_members(collection, values["dataset_ids"])
    collection.updated_at = utcnow()
    _commit_named(collection.name, exclude_id=collection.id)
    return collection


def delete_collection(collection):
    """Delete the collection; its datasets stay."""
    db.session.delete(collection)
    db.session.commit()


def add_dataset(collection, dataset_id):
    """Idempotent: adding a member twice changes nothing."""
    _require_datasets([dataset_id])
    if dataset_id not in collection.dataset_ids:
        _set_members(collection, [*collection.dataset_ids, dataset_id])
        collection.updated_at = utcnow()
        try:
            db.session.commit()
        except sa.exc.IntegrityError:
            db.session.rollback()
            db.session.refresh(collection)
            if not db.session.get(Dataset, dataset_id):
                raise DatasetNotFound() from None
            # A concurrent request added it first: the result is the same.
    return collection


def remove_dataset(collection, dataset_id):
    """Idempotent: removing a dataset that is not a member changes nothing. A dataset
    that does not exist is 404 ``Dataset not found``, as for adding."""
    _require_datasets([dataset_id])
    if dataset_id in collection.dataset_ids:
        _set_members(collection, [i for i in collection.dataset_ids if i != dataset_id])
        collection.updated_at = utcnow()
        db.session.commit()
    return collection
