"""Accounts of identity providers (``ldap``, ``oidc``): created or brought up to date at
each login from what the provider says; never a local password."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.errors import AccountExistsWithOtherProvider
from datahub.identity.models import User, normalise_email
from datahub.platform.audit import audit


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
        user = User(
            email=email,
            name=name,
            roles=roles,
            provider=provider,
            password_hash=None,
            is_active=True,
        )
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
    return _update(user, name, roles)


def _update(user, name, roles, email=None):
    before = list(user.roles or [])
    email = email or user.email
    if user.name != name or before != roles or user.email != email:
        user.name, user.roles, user.email = name, roles, email
        db.session.commit()
        if before != roles:
            audit(
                "roles_changed",
                user_id=user.id,
                email=email,
                roles_before=before,
                roles_after=roles,
                provider=user.provider,
            )
    return user


def sync_oidc_user(issuer, subject, email, name, roles):
    """The ``oidc`` user that is ``subject`` at ``issuer``, created or updated (email,
    name, roles) and committed. The email follows the provider's; an email held by
    another account (of another provider, or another subject) is a 409, as in
    ``sync_provider_user``."""
    email = normalise_email(email)
    roles = list(dict.fromkeys(roles))
    user = db.session.scalar(
        sa.select(User).where(User.provider_issuer == issuer, User.provider_subject == subject)
    )
    holder = _find(email)
    if holder is not None and holder is not user:
        if user is not None or holder.provider != "oidc" or holder.provider_subject:
            raise AccountExistsWithOtherProvider()
        # An oidc account made before its first login (no subject yet): this login is it.
        holder.provider_issuer, holder.provider_subject = issuer, subject
        user = holder
    if user is None:
        user = User(
            email=email,
            name=name,
            roles=roles,
            provider="oidc",
            password_hash=None,
            is_active=True,
            provider_issuer=issuer,
            provider_subject=subject,
        )
        db.session.add(user)
        try:
            db.session.commit()
        except sa.exc.IntegrityError:  # a concurrent first login of the same user or email
            db.session.rollback()
            return sync_oidc_user(issuer, subject, email, name, roles)
        audit("user_created", user_id=user.id, email=email, roles=roles, provider="oidc")
        return user
    try:
        return _update(user, name, roles, email)
    except sa.exc.IntegrityError:  # the new email was taken meanwhile
        db.session.rollback()
        raise AccountExistsWithOtherProvider() from None
