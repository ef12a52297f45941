"""What can be done to users, shared by the operator CLI and the admin API."""
import sqlalchemy as sa
from marshmallow import ValidationError

from datahub.auth.sessions import end_all_sessions
from datahub.errors import Conflict, NameAlreadyExists, RequestValidationError, UserNotFound
from datahub.extensions import db
from datahub.users.models import User
from datahub.users.passwords import hash_password
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
    return user


def set_roles(user, roles):
    values = _load(NewUserSchema(only=("roles",)), {"roles": list(roles)})
    if "admin" not in values["roles"]:
        _keep_an_admin(user)
    user.roles = list(dict.fromkeys(values["roles"]))
    db.session.commit()
    return user


def set_password(user, password):
    values = _load(PasswordSchema(), {"password": password})
    user.password_hash = hash_password(values["password"])
    end_all_sessions(user)
    db.session.commit()
    return user


def set_active(user, active):
    if not active:
        _keep_an_admin(user)
        end_all_sessions(user)
    user.is_active = bool(active)
    db.session.commit()
    return user
