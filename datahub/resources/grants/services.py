"""Grants on datasets, collections and pipelines, and their visibility: what the owner
(or an admin) changes about who may read or write (docs/guides/access.rst). Every
change is in the audit log."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.group_models import Group
from datahub.identity.models import User, normalise_email
from datahub.platform.audit import audit
from datahub.platform.database import utcnow, valid_id
from datahub.platform.errors import Conflict, ErrorMessage, InvalidValues, NotFound
from datahub.resources.access import grants_of


class GrantNotFound(NotFound):
    message = "Grant not found"


class GrantExists(Conflict):
    message = "Grant already exists"


class UnknownPrincipal(InvalidValues):
    """A 422 at ``principal``: no such user or group."""

    def __init__(self):
        message = ErrorMessage("No such user or group", "value_error.principal_not_found")
        super().__init__({"principal": [message]})


def grants_query(row):
    grants = grants_of(type(row))
    return sa.select(grants).where(grants.resource_id == row.id).order_by(grants.id)


def _principal_ids(principal):
    """``(principal, user_id, group_id)`` of ``"user:<uuid>"``, ``"user:<email>"`` (then
    the principal kept is ``"user:<uuid>"``) or ``"group:<id>"`` (the schema has checked
    the form); :class:`UnknownPrincipal` when there is no such user or group."""
    kind, _, value = principal.partition(":")
    if kind == "user":
        if "@" in value:
            found = sa.select(User.id).where(User.email == normalise_email(value))
        else:
            found = sa.select(User.id).where(User.id == value)
        user_id = db.session.scalar(found)
        if user_id is None:
            raise UnknownPrincipal()
        return f"user:{user_id}", user_id, None
    group_id = int(value)
    if not valid_id(group_id) or db.session.get(Group, group_id) is None:
        raise UnknownPrincipal()
    return principal, None, group_id


def add_grant(row, principal, permission, by):
    grants = grants_of(type(row))
    principal, user_id, group_id = _principal_ids(principal)
    grant = grants(
        resource_id=row.id,
        principal=principal,
        user_id=user_id,
        group_id=group_id,
        permission=permission,
        created_at=utcnow(),
        created_by=by.id,
    )
    db.session.add(grant)
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        taken = sa.select(grants.id).where(
            grants.resource_id == row.id, grants.principal == principal
        )
        if db.session.scalar(taken) is not None:
            raise GrantExists() from None
        raise UnknownPrincipal() from None  # the user or group was deleted meanwhile
    audit(
        "grant_created",
        user_id=by.id,
        resource=f"{row.__tablename__}/{row.id}",
        principal=principal,
        permission=permission,
    )
    return grant


def remove_grant(row, grant_id, by):
    grants = grants_of(type(row))
    grant = db.session.get(grants, grant_id) if valid_id(grant_id) else None
    if grant is None or grant.resource_id != row.id:
        raise GrantNotFound()
    db.session.delete(grant)
    db.session.commit()
    audit(
        "grant_deleted",
        user_id=by.id,
        resource=f"{row.__tablename__}/{row.id}",
        principal=grant.principal,
        permission=grant.permission,
    )


def note_visibility(row, before, by):
    """After the commit of a change: the audit line, when the visibility changed."""
    if row.visibility != before:
        audit(
            "visibility_changed",
            user_id=by.id,
            resource=f"{row.__tablename__}/{row.id}",
            visibility=row.visibility,
            previous=before,
        )
