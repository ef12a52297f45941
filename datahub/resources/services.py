"""What datasets, collections and pipelines share: integer ids, names unique
case-insensitively (a unique index on ``name_key``), an owner, timestamps, the list
filters, and how they are created and changed."""

import sqlalchemy as sa
from flask import current_app, g, has_request_context

from datahub.app.extensions import db
from datahub.platform.database import contains_pattern, utcnow, valid_id
from datahub.platform.errors import NameTaken
from datahub.resources.access import as_if_unreadable, filter_readable


def name_key(name):
    """What names are compared by: unique case-insensitively, enforced by a unique index."""
    return name.lower()


def get_or_raise(model, resource_id, not_found, for_update=False):
    """The row with ``resource_id``, else raise ``not_found`` (also for impossible ids)."""
    if not valid_id(resource_id):
        raise not_found()
    if for_update:
        query = sa.select(model).where(model.id == resource_id)
        row = db.session.scalar(query.with_for_update().execution_options(populate_existing=True))
    else:  # the session's copy when the request loaded it already (a permission check)
        # Its relationships (a dataset's tags) load when used: not for a row the caller
        # may not read, whose 404 then costs what a missing id's does.
        row = db.session.get(model, resource_id, options=[sa.orm.lazyload("*")])
    if row is None:
        if has_request_context():  # a missing id costs what an unreadable one does
            as_if_unreadable(model, resource_id, g.get("current_user"))
        raise not_found()
    return row


def filter_named(query, model, args, user):
    """Only what ``user`` may read (datahub.resources.access), then the ``q`` (name
    contains) and ``owner`` (a user id, or ``me``) filters."""
    query = filter_readable(query, model, user)
    if args.get("q"):
        query = query.where(model.name_key.like(contains_pattern(args["q"]), escape="\\"))
    if args.get("owner"):
        owner = user.id if args["owner"] == "me" else args["owner"]
        query = query.where(model.owner_id == owner)
    return query


def ordered(query, model, sort):
    """``query`` in the order ``sort`` names (:data:`datahub.web.listing.SORTS`): by
    ``name_key`` (unique, so a total order: the database's collation of the lowercased
    name), or by a time and then the id, in one direction, each served by an index
    (migrations 0002 and 0017). Without ``sort``: by id, as lists always were."""
    if not sort:
        return query.order_by(model.id)
    field = sort.removeprefix("-")
    keys = (model.name_key,) if field == "name" else (getattr(model, field), model.id)
    if sort.startswith("-"):
        keys = tuple(key.desc() for key in keys)
    return query.order_by(*keys)


def name_taken(model, name, exclude_id=None):
    query = sa.select(model.id).where(model.name_key == name_key(name))
    if exclude_id is not None:
        query = query.where(model.id != exclude_id)
    return db.session.scalar(query) is not None


def refuse_taken_name(model, name, exclude_id=None):
    """:class:`NameTaken` if another row of ``model`` has ``name`` already (the unique
    index decides for good at the commit)."""
    if name_taken(model, name, exclude_id):
        raise NameTaken()


def commit_named(model, name, exclude_id=None, otherwise=None):
    """Commit; a unique-name violation (also from a concurrent request) is
    :class:`NameTaken`. Any
    other integrity error raises ``otherwise`` (a referenced row deleted meanwhile), or
    propagates when there is none."""
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        if name_taken(model, name, exclude_id):
            raise NameTaken() from None
        if otherwise is not None:
            raise otherwise() from None
        raise


def rename(row, name):
    """Give ``row`` a new ``name``; :class:`NameTaken` if another row of its kind has it
    already."""
    refuse_taken_name(type(row), name, exclude_id=row.id)
    row.name = name
    row.name_key = name_key(name)


def create_named(model, owner, values, fields, check=None, otherwise=None, record=None):
    """A new ``model`` row named ``values["name"]`` and owned by ``owner``, with ``fields``
    from ``values``. ``check(values)`` runs after the name's check (a 409 comes first);
    ``otherwise`` is as for :func:`commit_named`; ``record(row)`` records the change's
    event in its transaction (datahub.events.outbox)."""
    refuse_taken_name(model, values["name"])
    if check is not None:
        check(values)
    row = add_named(model, owner.id, values, fields)
    if record is not None:
        record(row)
    commit_named(model, row.name, otherwise=otherwise)
    return row


def add_named(model, owner_id, values, fields):
    """A new ``model`` row as :func:`create_named` makes it, added to the session in the
    caller's transaction, which commits it (a run's output dataset, with the run's
    version): the name is not checked first, the unique index has the last word."""
    now = utcnow()
    row = model(
        name=values["name"],
        name_key=name_key(values["name"]),
        owner_id=owner_id,
        visibility=values.get("visibility") or current_app.config["DEFAULT_VISIBILITY"],
        created_at=now,
        updated_at=now,
    )
    _set_fields(row, values, fields)
    db.session.add(row)
    return row


def update_named(row, values, fields, check=None, otherwise=None, record=None):
    """Apply a PATCH: the name (:class:`NameTaken`), then ``check(values)``, then whichever of
    ``fields`` ``values`` has; ``updated_at`` is now. ``record``: as for
    :func:`create_named`."""
    if "name" in values:
        rename(row, values["name"])
    if check is not None:
        check(values)
    _set_fields(row, values, (*fields, "visibility"))
    row.updated_at = utcnow()
    if record is not None:
        record(row)
    commit_named(type(row), row.name, exclude_id=row.id, otherwise=otherwise)
    return row


def _set_fields(row, values, fields):
    for field in fields:
        if field in values:
            setattr(row, field, values[field])
