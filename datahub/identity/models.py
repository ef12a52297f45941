"""The user account, its sessions, their refresh tokens, and access tokens ended early."""

import uuid

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime, utcnow

ROLES = ("viewer", "editor", "admin")
PROVIDERS = ("local", "ldap", "oidc")


def normalise_email(value):
    """Emails are stored and compared lower-cased, without surrounding spaces."""
    return value.strip().lower() if isinstance(value, str) else value


class User(db.Model):
    __tablename__ = "users"
    # An OIDC user is the pair (issuer, subject): the email may change at the provider.
    __table_args__ = (
        sa.Index("uq_users_provider_identity", "provider_issuer", "provider_subject", unique=True),
    )

    id: Mapped[str] = mapped_column(
        sa.String(36), primary_key=True, default=lambda: str(uuid.uuid4())
    )
    # Stored lower-cased, so the unique index compares case-insensitively.
    email: Mapped[str] = mapped_column(sa.String(320), unique=True)
    name: Mapped[str] = mapped_column(sa.String(255), default="")
    password_hash: Mapped[str | None] = mapped_column(sa.String(60))
    is_active: Mapped[bool] = mapped_column(sa.Boolean, default=True)
    provider: Mapped[str] = mapped_column(sa.String(16), default="local")
    roles: Mapped[list] = mapped_column(sa.JSON, default=list)
    # Set for users of provider ``oidc`` only (the ID token's ``iss`` and ``sub``).
    provider_issuer: Mapped[str | None] = mapped_column(sa.String(512))
    provider_subject: Mapped[str | None] = mapped_column(sa.String(255))
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    # Carried in every access token as ``ver``; bumping it voids them all at once
    # (password change, deactivation) without waiting for them to expire.
    token_version: Mapped[int] = mapped_column(sa.Integer, default=0)

    def has_role(self, role):
        return role in (self.roles or [])

    def __repr__(self):
        return f"<User {self.email}>"


class AuthSession(db.Model):
    """One login, and with it the family of refresh tokens rotated from it.

    ``expires_at`` is fixed at login: rotation never carries a session beyond it.
    Ending the session (logout, logout-all, deletion, reuse detection, password change)
    sets ``revoked_at``; the access tokens issued for it carry its id as ``sid`` and die
    with it.
    """

    __tablename__ = "auth_sessions"

    id: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    last_used_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[object] = mapped_column(UTCDateTime, index=True)
    revoked_at: Mapped[object | None] = mapped_column(UTCDateTime)
    revoked_reason: Mapped[str | None] = mapped_column(sa.String(32))
    user_agent: Mapped[str | None] = mapped_column(sa.String(512))
    client_address: Mapped[str | None] = mapped_column(sa.String(64))
    # The double-submit CSRF value (JWT_COOKIE_CSRF_PROTECT), one per session so that it
    # survives rotation: every tab of an SPA can go on using the value it has.
    csrf_token: Mapped[str | None] = mapped_column(sa.String(64))


class RefreshToken(db.Model):
    """One issued refresh token. ``family_id`` is the session it belongs to.

    A refresh retires the token it was given (``retired_at``) and links it to the token
    it was exchanged for (``replaced_by``); retired tokens are kept so that a replay is
    recognised (reuse detection) until they expire.
    """

    __tablename__ = "refresh_tokens"

    jti: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), index=True)
    family_id: Mapped[str] = mapped_column(
        sa.ForeignKey("auth_sessions.id", ondelete="CASCADE"), index=True
    )
    issued_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[object] = mapped_column(UTCDateTime, index=True)
    revoked_at: Mapped[object | None] = mapped_column(UTCDateTime)
    retired_at: Mapped[object | None] = mapped_column(UTCDateTime)
    replaced_by: Mapped[str | None] = mapped_column(sa.String(36))
    last_used_at: Mapped[object | None] = mapped_column(UTCDateTime)
    user_agent: Mapped[str | None] = mapped_column(sa.String(512))
    client_address: Mapped[str | None] = mapped_column(sa.String(64))


class RevokedAccessToken(db.Model):
    """An access token ended by logout before it expired. Forgotten once it has expired
    (``flask --app datahub sessions purge``; a logout also sweeps expired entries)."""

    __tablename__ = "revoked_access_tokens"

    jti: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    expires_at: Mapped[object] = mapped_column(UTCDateTime, index=True)


class PersonalAccessToken(db.Model):
    """A token for scripts (``dhp_...``), stored as the SHA-256 of its text: the text is
    shown once, at creation (docs/guides/access.rst). Deleting it revokes it."""

    __tablename__ = "personal_access_tokens"

    id: Mapped[str] = mapped_column(
        sa.String(36), primary_key=True, default=lambda: str(uuid.uuid4())
    )
    user_id: Mapped[str] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(sa.String(255))
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    scopes: Mapped[list] = mapped_column(sa.JSON, default=list)
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[object] = mapped_column(UTCDateTime)
    # Kept to the minute, with the address it was last used from (bookkeeping: changing
    # them voids no cached lookup).
    last_used_at: Mapped[object | None] = mapped_column(UTCDateTime)
    last_used_address: Mapped[str | None] = mapped_column(sa.String(64))
