"""Who may read, change and manage a dataset, collection or pipeline
(docs/guides/access.rst).

* read: admins; the owner; every user when the resource is ``internal``; a user granted
  ``read`` or ``write``, directly or through a group it is a member of.
* write (change, upload, restore, members, run): admins; editors who own it or hold a
  ``write`` grant. A role is a ceiling: a viewer granted ``write`` reads.
* manage (delete, grants, visibility): admins; editors who own it.

Any user here is anything with ``id`` and ``roles`` (the request's principal, or a
``User`` row when a run re-authorises its owner). Nothing is cached: a revoked grant is
seen by the next request, on every host.
"""

import functools
import types

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.group_models import GroupMember
from datahub.identity.permissions import READ_ROLES
from datahub.resources.grants.models import GRANT_MODELS
from datahub.web.listing import kept_count, kept_count_query

VISIBILITIES = ("private", "internal")


def _roles(user):
    return set(user.roles or ())


def is_admin(user):
    return "admin" in _roles(user)


def grants_of(model):
    return GRANT_MODELS[model.__tablename__]


def groups_of(user_id):
    """The ids of the groups ``user_id`` is a member of, as a subquery."""
    return sa.select(GroupMember.group_id).where(GroupMember.user_id == user_id)


def _held_by(grants, user):
    return sa.or_(grants.user_id == user.id, grants.group_id.in_(groups_of(user.id)))


def _grant_selects(model, user, private_only=False):
    grants = grants_of(model)
    private = (grants.resource_private.is_(True),) if private_only else ()
    return (
        sa.select(grants.resource_id).where(grants.user_id == user.id, *private),
        sa.select(grants.resource_id).where(grants.group_id.in_(groups_of(user.id)), *private),
    )


def granted_ids(model, user):
    """The ids of the ``model`` rows ``user`` holds a grant on, as a subquery: the user's
    own grants and their groups' as two selects, each on its index (one select with an OR
    made PostgreSQL scan every grant: 12 ms instead of 1.5 ms with 50,000 grants)."""
    return sa.union_all(*_grant_selects(model, user))


def readable_clause(model, user):
    """A WHERE clause for the ``model`` rows ``user`` may read; None: all of them."""
    if is_admin(user):
        return None
    return sa.or_(
        model.visibility == "internal",
        model.owner_id == user.id,
        model.id.in_(granted_ids(model, user)),
    )


def filter_readable(query, model, user):
    clause = readable_clause(model, user)
    return query if clause is None else query.where(clause)


def readable_total(model, user):
    """How many ``model`` rows ``user`` may read, without counting the table: the kept
    count, less the kept count of private rows (migrations 0005 and 0010), plus the
    private rows the user owns or holds a grant on (few; the grants say which of theirs
    are private, migration 0011, so this reads indexes alone). One query; None when no
    count is kept."""
    if is_admin(user):
        return kept_count(model.__tablename__)
    total, private, granted = db.session.execute(
        _readable_total_statement(model), {"user_id": user.id}
    ).one()
    if total is None or private is None:
        return None
    return total - private + granted


@functools.cache
def _readable_total_statement(model):
    """:func:`readable_total`'s query, built once per model with the user as a parameter
    (building it anew took about a millisecond of each list request)."""
    user = types.SimpleNamespace(id=sa.bindparam("user_id"))
    table = model.__tablename__
    readable = sa.union(
        sa.select(model.id).where(model.owner_id == user.id, model.visibility == "private"),
        *_grant_selects(model, user, private_only=True),
    ).subquery()
    return sa.select(
        kept_count_query(table).scalar_subquery(),
        kept_count_query(f"{table}:private").scalar_subquery(),
        sa.select(sa.func.count()).select_from(readable).scalar_subquery(),
    )


def readable_ids(model, ids, user):
    """Those of ``ids`` (of ``model`` rows) that ``user`` may read, in their order."""
    ids = list(ids)
    clause = readable_clause(model, user)
    if not ids or clause is None:
        return ids
    found = set(db.session.scalars(sa.select(model.id).where(model.id.in_(ids), clause)))
    return [i for i in ids if i in found]


def grant_on(row, user):
    """The strongest permission ``user`` is granted on ``row``: "write", "read" or None."""
    return grant_on_id(type(row), row.id, user)


def grant_on_id(model, resource_id, user):
    """:func:`grant_on` by the row's model and id."""
    grants = grants_of(model)
    held = set(
        db.session.scalars(
            sa.select(grants.permission).where(
                grants.resource_id == resource_id, _held_by(grants, user)
            )
        )
    )
    return "write" if "write" in held else ("read" if held else None)


def as_if_unreadable(model, resource_id, user):
    """For an id with no row: the lookup :func:`may_read` makes for a private row that
    ``user`` does not own, so that the time of a 404 tells a missing row from an
    unreadable one less (docs/guides/access.rst, "Visibility")."""
    if user is not None and not is_admin(user) and _roles(user) & READ_ROLES:
        grant_on_id(model, resource_id, user)


def may_read(user, row):
    if not _roles(user) & READ_ROLES:
        return False
    if is_admin(user) or row.visibility == "internal" or row.owner_id == user.id:
        return True
    return grant_on(row, user) is not None


def may_write(user, row):
    return _may_write(_roles(user), row.owner_id == user.id, lambda: grant_on(row, user))


def may_manage(user, row):
    return _may_manage(_roles(user), row.owner_id == user.id)


def _may_write(roles, owns, grant):
    """The write rule; ``grant()`` (the caller's grant) is asked only when it decides."""
    if "admin" in roles:
        return True
    if "editor" not in roles:
        return False
    return owns or grant() == "write"


def _may_manage(roles, owns):
    return "admin" in roles or ("editor" in roles and owns)


def capabilities(user, rows):
    """``{row.id: (may_write, may_manage)}`` for ``rows`` (of one model): the rules of
    :func:`may_write` and :func:`may_manage`, with the caller's grants on all of them read
    in one query, and only when one decides (an editor's rows it does not own)."""
    roles = _roles(user)
    grants = _LazyGrants(type(rows[0]) if rows else None, rows, user)
    return {
        row.id: (
            _may_write(roles, row.owner_id == user.id, functools.partial(grants.on, row.id)),
            _may_manage(roles, row.owner_id == user.id),
        )
        for row in rows
    }


class _LazyGrants:
    """The strongest grant ``user`` holds on each of ``rows``, read at the first ask."""

    def __init__(self, model, rows, user):
        self.model, self.rows, self.user, self.held = model, rows, user, None

    def on(self, resource_id):
        if self.held is None:
            self.held = grants_on_ids(self.model, [row.id for row in self.rows], self.user)
        return self.held.get(resource_id)


def grants_on_ids(model, ids, user):
    """``{id: "write" or "read"}``: the strongest grant ``user`` holds on each of ``ids``
    that it holds one on (one query)."""
    grants = grants_of(model)
    held = {}
    query = sa.select(grants.resource_id, grants.permission).where(
        grants.resource_id.in_(ids), _held_by(grants, user)
    )
    for resource_id, permission in db.session.execute(query):
        if held.get(resource_id) != "write":
            held[resource_id] = permission
    return held
