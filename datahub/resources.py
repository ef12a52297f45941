"""What datasets, collections and pipelines share: integer ids, names unique
case-insensitively (a unique index on ``name_key``), an owner, and the list filters."""
import sqlalchemy as sa

from datahub.errors import NameAlreadyExists
from datahub.extensions import db
from datahub.listing import contains_pattern, valid_id


def name_key(name):
    """What names are compared by: unique case-insensitively, enforced by a unique index."""
    return name.lower()


def get_or_404(model, resource_id, not_found, for_update=False):
    """The row with ``resource_id``, else raise ``not_found`` (also for impossible ids)."""
    if not valid_id(resource_id):
        raise not_found()
    if for_update:
        query = sa.select(model).where(model.id == resource_id)
        row = db.session.scalar(
            query.with_for_update().execution_options(populate_existing=True))
    else:  # the session's copy when the request loaded it already (a permission check)
        row = db.session.get(model, resource_id)
    if row is None:
        raise not_found()
    return row


def filter_named(query, model, args, user):
    """Apply the ``q`` (name contains) and ``owner`` (a user id, or ``me``) filters."""
    if args.get("q"):
        query = query.where(model.name_key.like(contains_pattern(args["q"]), escape="\\"))
    if args.get("owner"):
        owner = user.id if args["owner"] == "me" else args["owner"]
        query = query.where(model.owner_id == owner)
    return query


def name_taken(model, name, exclude_id=None):
    query = sa.select(model.id).where(model.name_key == name_key(name))
    if exclude_id is not None:
        query = query.where(model.id != exclude_id)
    return db.session.scalar(query) is not None


def commit_named(model, name, exclude_id=None, otherwise=None):
    """Commit; a unique-name violation (also from a concurrent request) is a 409. Any
    other integrity error raises ``otherwise`` (a referenced row deleted meanwhile), or
    propagates when there is none."""
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        if name_taken(model, name, exclude_id):
            raise NameAlreadyExists() from None
        if otherwise is not None:
            raise otherwise() from None
        raise


def rename(row, name):
    """Give ``row`` a new ``name``; 409 if another row of its kind has it already."""
    model = type(row)
    if name_taken(model, name, exclude_id=row.id):
        raise NameAlreadyExists()
    row.name = name
    row.name_key = name_key(name)
