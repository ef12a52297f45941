"""What can be done to collections, independent of HTTP."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.collections.errors import CollectionNotFound
from datahub.collections.models import Collection
from datahub.datasets.errors import DatasetNotFound
from datahub.datasets.models import Dataset
from datahub.platform.database import utcnow, valid_id
from datahub.resources.access import filter_readable, readable_ids
from datahub.resources.services import (
    create_named,
    filter_named,
    get_or_raise,
    ordered,
    update_named,
)

FIELDS = ("description", "dataset_ids")


def get_collection(collection_id, for_update=False):
    return get_or_raise(Collection, collection_id, CollectionNotFound, for_update=for_update)


def collections_query(args, user):
    """The collections a list shows, oldest first or in ``sort``'s order: filtered by ``q``
    and ``owner``."""
    query = filter_named(sa.select(Collection), Collection, args, user)
    return ordered(query, Collection, args.get("sort"))


def _require_datasets(dataset_ids, user):
    """All of ``dataset_ids`` exist and ``user`` may read them, else 404 ``Dataset not
    found``."""
    wanted = set(dataset_ids)
    if not wanted:
        return
    if not all(valid_id(i) for i in wanted):
        raise DatasetNotFound()
    found = filter_readable(sa.select(Dataset.id).where(Dataset.id.in_(wanted)), Dataset, user)
    if set(db.session.scalars(found)) != wanted:
        raise DatasetNotFound()


def create_collection(owner, values):
    # Any other integrity error at the commit: a member dataset deleted meanwhile.
    return create_named(
        Collection,
        owner,
        values,
        FIELDS,
        check=lambda values: _require_datasets(values.get("dataset_ids", ()), owner),
        otherwise=DatasetNotFound,
    )


def update_collection(collection, values, user):
    """A new member list keeps the members ``user`` may not read (it cannot see them)."""

    def check(values):
        if "dataset_ids" in values:
            _require_datasets(values["dataset_ids"], user)
            shown = set(readable_ids(Dataset, collection.dataset_ids, user))
            unseen = [i for i in collection.dataset_ids if i not in shown]
            values["dataset_ids"] = [*values["dataset_ids"], *unseen]

    return update_named(collection, values, FIELDS, check=check, otherwise=DatasetNotFound)


def delete_collection(collection):
    """Delete the collection; its datasets stay."""
    db.session.delete(collection)
    db.session.commit()


def add_dataset(collection, dataset_id, user):
    """Idempotent: adding a member twice changes nothing. The dataset must be one
    ``user`` may read."""
    _require_datasets([dataset_id], user)
    if dataset_id not in collection.dataset_ids:
        collection.dataset_ids = [*collection.dataset_ids, dataset_id]
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


def remove_dataset(collection, dataset_id, user):
    """Idempotent: removing a dataset that is not a member changes nothing. A dataset
    that does not exist (or ``user`` may not read) is 404 ``Dataset not found``, as for
    adding."""
    _require_datasets([dataset_id], user)
    if dataset_id in collection.dataset_ids:
        collection.dataset_ids = [i for i in collection.dataset_ids if i != dataset_id]
        collection.updated_at = utcnow()
        db.session.commit()
    return collection
