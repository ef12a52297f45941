"""Who someone logging in is: an email and password (a local user checked here, anyone
else asked of the directory, LDAP, when it is configured), or the answer of an OpenID
Connect provider. Failures are audited and raised; the caller starts the session."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity import ldap, oidc
from datahub.identity.accounts import sync_oidc_user, sync_provider_user
from datahub.identity.errors import (
    AccountExistsWithOtherProvider,
    AuthServiceUnavailable,
    InvalidCredentials,
    OIDCLoginFailed,
)
from datahub.identity.group_sync import sync_groups
from datahub.identity.models import User, normalise_email
from datahub.identity.passwords import check_password
from datahub.platform.audit import audit
from datahub.platform.metrics import count_login

_UNAVAILABLE = frozenset({"directory_unavailable", "provider_unavailable"})


def _audit_failure(reason, provider=None, email=None, user=None, error=None):
    count_login(provider or "local", "unavailable" if reason in _UNAVAILABLE else "failure")
    audit(
        "login_failed",
        email=email[:320] if email else None,
        user_id=user.id if user else None,
        reason=reason,
        provider=provider,
        error=str(error)[:200] if error else None,
    )


def _fail(email, reason, user=None, provider=None):
    _audit_failure(reason, provider, email, user)
    raise InvalidCredentials()


def authenticate(email, password):
    """The active ``User`` these credentials are. Raises ``InvalidCredentials`` (401, the
    same for every reason), ``AuthServiceUnavailable`` (503: the directory is down) or
    ``AccountExistsWithOtherProvider`` (409)."""
    email = normalise_email(email)
    user = db.session.scalar(sa.select(User).where(User.email == email))
    if (user is not None and user.provider == "local") or not ldap.enabled():
        return _local(email, password, user)
    return _from_directory(email, password, user)


def _local(email, password, user):
    password_ok = check_password(password, user.password_hash if user else None)
    if not (password_ok and user.is_active and user.provider == "local"):
        reason = (
            "unknown_email"
            if user is None
            else "wrong_password"
            if not password_ok
            else "inactive"
            if not user.is_active
            else "not_local"
        )
        _fail(email, reason, user)
    count_login("local", "success")
    return user


def _from_directory(email, password, user):
    # The bcrypt check a local login spends: an email without a local account costs
    # the same time as a local user's wrong password.
    check_password(password, None)
    try:
        found, reason = ldap.authenticate(email, password)
    except ldap.DirectoryUnavailable as exc:
        _audit_failure("directory_unavailable", "ldap", email, user, exc)
        raise AuthServiceUnavailable() from exc
    if found is None:
        _fail(email, reason, user, "ldap")
    try:
        user = sync_provider_user("ldap", email, found.name, found.roles)
    except AccountExistsWithOtherProvider:
        _audit_failure("other_provider", "ldap", email, user)
        raise
    sync_groups(user, "ldap", found.groups)
    if not user.is_active:
        _fail(email, "inactive", user, "ldap")
    count_login("ldap", "success")
    return user


def oidc_failed(reason, email=None, user=None, error=None):
    """Audit a failed OIDC login and raise its 401."""
    _audit_failure(reason, "oidc", email, user, error)
    raise OIDCLoginFailed()


def authenticate_oidc(code, pending):
    """The active ``User`` the provider's authorization ``code`` (for the
    ``oidc.PendingLogin`` the browser started) is. Raises ``OIDCLoginFailed`` (401),
    ``AuthServiceUnavailable`` (503: the provider is unreachable) or
    ``AccountExistsWithOtherProvider`` (409)."""
    try:
        found = oidc.provider().finish(code, pending)
    except oidc.ProviderUnavailable as exc:
        _audit_failure("provider_unavailable", "oidc", error=exc)
        raise AuthServiceUnavailable() from exc
    except oidc.LoginFailed as exc:
        oidc_failed(exc.reason, error=exc)
    try:
        user = sync_oidc_user(found.issuer, found.subject, found.email, found.name, found.roles)
    except AccountExistsWithOtherProvider:
        _audit_failure("other_provider", "oidc", found.email)
        raise
    sync_groups(user, "oidc", found.groups)
    if not user.is_active:
        oidc_failed("inactive", found.email, user)
    count_login("oidc", "success")
    return user
