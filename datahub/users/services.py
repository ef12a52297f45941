"""What can be done to users, shared by the operator CLI and the admin API."""
import sqlalchemy as sa
from marshmallow import ValidationError

from datahub.audit import audit
from datahub.auth.sessions import end_all_sessions
from datahub.errors import Conflict, NameAlreadyExists, RequestValidationError, UserNotFound
from datahub.extensions import db
from datahub.users.models import User
from datahub.users.passwords import check_password, hash_password
from datahub.users.schemas import NewUserSchema, PasswordSchema, normalise_email
from datahub.validation import pydantic_errors


class EmailAlreadyExists(NameAlreadyExists):
    detail = "Email already exists"


class LastAdmin(Conflict):
    detail = "The last active admin cannot be removed, deactivated or demoted"


def _keep_an_admin(user):
    """Refuse a change that would leave no active admin (``user`` is about to lose it)."""
    if not (user.is_active and user.has_role("admin")):
        return
    others = db.session.scalar(
        sa.select(sa.func.count()).select_from(User).where(
            User.id != user.id,
            User.is_active.is_(True),
            sa.cast(User.roles, sa.String).like('%"admin"%'),
        )
    )
    if not others:
        raise LastAdmin()


def _load(schema, data):
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise RequestValidationError(pydantic_errors(exc.messages)) from exc


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
    audit("roles_changed", user_id=user.id, email=user.email, roles_before=before,
          roles_after=user.roles)
    return user


def set_password(user, password):
    values = _load(PasswordSchema(), {"password": password})
    user.password_hash = hash_password(values["password"])
    ended = end_all_sessions(user, reason="password_changed")
    db.session.commit()
    audit("password_changed", user_id=user.id, email=user.email, sessions_ended=ended)
    return user


class IncorrectPassword(RequestValidationError):
    """422 rather than 401: the caller's token is fine, and a 401 would tell a client to
    refresh or log in again."""

    def __init__(self):
        super().__init__([{"loc": ["body", "current_password"],
                           "msg": "current password is incorrect",
                           "type": "value_error.password.incorrect"}])


def change_password(user, current_password, new_password, keep_session=None):
    """The user's own change: the current password must match. Every other session ends
    and every access token already out is voided (the caller gets a new one)."""
    if not check_password(current_password, user.password_hash):
        audit("password_change_failed", user_id=user.id, email=user.email)
        raise IncorrectPassword()
    values = _load(PasswordSchema(), {"password": new_password})
    user.password_hash = hash_password(values["password"])
    ended = end_all_sessions(user, reason="password_changed", keep=keep_session)
    db.session.commit()
    audit("password_changed", user_id=user.id, email=user.email, sessions_ended=ended,
          kept_session_id=keep_session)
    return user


def set_active(user, active):
    ended = None
    if not active:
        _keep_an_admin(user)
        ended = end_all_sessions(user, reason="deactivated")
    user.is_active = bool(active)
    db.session.commit()
    audit("user_activated" if active else "user_deactivated", user_id=user.id,
          email=user.email, sessions_ended=ended)
    return user
