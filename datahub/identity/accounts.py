"""Accounts of identity providers (``ldap``, later ``oidc``): created or brought up to
date at each login from what the provider says; never a local password."""
import sqlalchemy as sa

from datahub.audit import audit
from datahub.extensions import db
from datahub.identity.errors import AccountExistsWithOtherProvider
from datahub.identity.models import User, normalise_email


def _find(email):
    return db.session.scalar(sa.select(User).where(User.email == email))


def sync_provider_user(provider, email, name, roles):
    """The user of ``provider`` with this email, created or updated (name, roles) and
    committed. An email held by an account of another provider (``local`` included) is
    a 409: accounts are never linked silently. Whether the user is active is not
    changed: a deactivated account stays deactivated."""
    email = normalise_email(email)
    roles = list(dict.fromkeys(roles))
    user = _find(email)
    if user is None:
        user = User(email=email, name=name, roles=roles, provider=provider,
                    password_hash=None, is_active=True)
        db.session.add(user)
        try:
            db.session.commit()
        except sa.exc.IntegrityError:  # the same user's concurrent first login
            db.session.rollback()
            user = _find(email)
            if user is None:
                raise
        else:
            audit("user_created", user_id=user.id, email=email, roles=roles, provider=provider)
            return user
    if user.provider != provider:
        raise AccountExistsWithOtherProvider()
    before = list(user.roles or [])
    if user.name != name or before != roles:
        user.name, user.roles = name, roles
        db.session.commit()
        if before != roles:
            audit("roles_changed", user_id=user.id, email=email, roles_before=before,
                  roles_after=roles, provider=provider)
    return user
