"""What can be done to users, shared by the operator CLI and the admin API."""

import sqlalchemy as sa
from marshmallow import ValidationError

from datahub.app.extensions import db
from datahub.identity.errors import PasswordManagedByProvider
from datahub.identity.models import User, normalise_email
from datahub.identity.passwords import check_password, hash_password
from datahub.identity.personal_tokens.services import revoke_all_tokens
from datahub.identity.sessions import end_all_sessions
from datahub.identity.users.errors import (
    EmailAlreadyExists,
    IncorrectPassword,
    LastAdmin,
    UserNotFound,
    UserOwnsResources,
)
from datahub.identity.users.schemas import NewUserSchema, PasswordSchema
from datahub.platform.audit import audit
from datahub.platform.database import contains_pattern
from datahub.platform.errors import InvalidValues


def _keep_an_admin(user):
    """Refuse a change that would leave no active admin (``user`` is about to lose it)."""
    if not (user.is_active and user.has_role("admin")):
        return
    # Lock every active admin's row, always in id order: two admins demoting each other at
    # once are serialised (the second then sees the first's change) instead of both
    # passing, and the fixed order cannot deadlock. (SQLite serialises writers anyway.)
    admins = db.session.scalars(
        sa.select(User.id)
        .where(User.is_active.is_(True), sa.cast(User.roles, sa.String).like('%"admin"%'))
        .order_by(User.id)
        .with_for_update()
    ).all()
    if not [admin_id for admin_id in admins if admin_id != user.id]:
        raise LastAdmin()


def _load(schema, data):
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise InvalidValues(exc.messages) from exc


def find_by_email(email):
    return db.session.scalar(sa.select(User).where(User.email == normalise_email(email)))


def get_by_email(email):
    user = find_by_email(email)
    if user is None:
        raise UserNotFound()
    return user


def create_user(**data):
    values = _load(NewUserSchema(), data)
    if find_by_email(values["email"]) is not None:
        raise EmailAlreadyExists()
    user = User(
        email=values["email"],
        name=values["name"],
        roles=list(dict.fromkeys(values["roles"])),
        password_hash=hash_password(values["password"]),
        provider="local",
        is_active=True,
    )
    db.session.add(user)
    try:
        db.session.commit()
    except sa.exc.IntegrityError as exc:  # a concurrent create of the same email
        db.session.rollback()
        raise EmailAlreadyExists() from exc
    audit("user_created", user_id=user.id, email=user.email, roles=user.roles)
    return user


def set_roles(user, roles):
    values = _load(NewUserSchema(only=("roles",)), {"roles": list(roles)})
    if "admin" not in values["roles"]:
        _keep_an_admin(user)
    before = list(user.roles or [])
    user.roles = list(dict.fromkeys(values["roles"]))
    db.session.commit()
    audit(
        "roles_changed",
        user_id=user.id,
        email=user.email,
        roles_before=before,
        roles_after=user.roles,
    )
    return user


def _local_password(user):
    """Only a local user has a password here; any other logs in at its provider."""
    if user.provider != "local":
        raise PasswordManagedByProvider()


def set_password(user, password, keep_session=None):
    """Every session but ``keep_session`` (a session id) ends, and every access token
    already out is voided."""
    _local_password(user)
    values = _load(PasswordSchema(), {"password": password})
    user.password_hash = hash_password(values["password"])
    ended = end_all_sessions(user, reason="password_changed", keep=keep_session)
    db.session.commit()
    audit(
        "password_changed",
        user_id=user.id,
        email=user.email,
        sessions_ended=ended,
        kept_session_id=keep_session,
    )
    return user


def change_password(user, current_password, new_password, keep_session=None):
    """The user's own change: the current password must match. Every other session ends
    and every access token already out is voided (the caller gets a new one)."""
    _local_password(user)
    if not check_password(current_password, user.password_hash):
        audit("password_change_failed", user_id=user.id, email=user.email)
        raise IncorrectPassword()
    return set_password(user, new_password, keep_session)


def set_active(user, active):
    """Activate or deactivate; deactivating ends every session and deletes every personal
    access token for good (reactivating brings none back)."""
    ended = revoked = None
    if not active:
        _keep_an_admin(user)
        ended = end_all_sessions(user, reason="deactivated")
        revoked = revoke_all_tokens(user.id)
    user.is_active = bool(active)
    db.session.commit()
    audit(
        "user_activated" if active else "user_deactivated",
        user_id=user.id,
        email=user.email,
        sessions_ended=ended,
        tokens_revoked=revoked,
    )
    return user


def get_user(user_id):
    user = None
    if isinstance(user_id, str) and len(user_id) <= 36:  # ids are UUID strings
        user = db.session.get(User, user_id)
    if user is None:
        raise UserNotFound()
    return user


def users_query(args):
    """The users a list shows, oldest first; ``q``: those whose email or name contains it."""
    query = sa.select(User)
    if args.get("q"):
        pattern = contains_pattern(args["q"])
        query = query.where(
            sa.or_(
                User.email.like(pattern, escape="\\"),
                sa.func.lower(User.name).like(pattern, escape="\\"),
            )
        )
    return query.order_by(User.created_at, User.id)


def update_user(user, values):
    """Apply a PATCH in one transaction: either every change or none."""
    if "password" in values:
        _local_password(user)
    demoted = "roles" in values and "admin" not in values["roles"]
    deactivated = values.get("is_active") is False
    if demoted or deactivated:
        _keep_an_admin(user)
    if "name" in values:
        user.name = values["name"]
    if "roles" in values:
        user.roles = list(dict.fromkeys(values["roles"]))
    if "password" in values:
        user.password_hash = hash_password(values["password"])
    if "is_active" in values:
        user.is_active = values["is_active"]
    if "password" in values or deactivated:
        end_all_sessions(user)
    if deactivated:
        revoke_all_tokens(user.id)
    db.session.commit()
    return user


def delete_user(user):
    """Delete an account; its sessions and refresh tokens go with it (ON DELETE CASCADE).
    Refused while the user owns datasets, collections or pipelines: their ``owner_id``
    foreign keys are ON DELETE RESTRICT, so the database refuses (their data stays until
    an admin deletes it; deactivating keeps both). No feature is imported here: a new
    owned resource only needs such a key."""
    _keep_an_admin(user)
    db.session.delete(user)
    try:
        db.session.commit()
    except sa.exc.IntegrityError as exc:
        db.session.rollback()
        raise UserOwnsResources() from exc


def directory_query(args):
    """Active users for ``GET /api/v1/users/directory``: those whose name or email
    contains ``q`` (those that start with it first), or whose id is in ``ids``, or all
    of them; then by name."""
    query = sa.select(User).where(User.is_active.is_(True))
    order = []
    if args.get("ids") is not None:
        query = query.where(User.id.in_(args["ids"]))
    if args.get("q"):
        name, pattern = sa.func.lower(User.name), contains_pattern(args["q"])
        query = query.where(
            sa.or_(User.email.like(pattern, escape="\\"), name.like(pattern, escape="\\"))
        )
        starts = pattern[1:]  # "%text%" → "text%"
        order.append(
            sa.case(
                (
                    sa.or_(User.email.like(starts, escape="\\"), name.like(starts, escape="\\")),
                    0,
                ),
                else_=1,
            )
        )
    return query.order_by(*order, sa.func.lower(User.name), User.email, User.id)
