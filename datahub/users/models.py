"""The user account."""
import uuid

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from datahub.database import UTCDateTime, utcnow
from datahub.extensions import db

ROLES = ("viewer", "editor", "admin")
PROVIDERS = ("local", "ldap", "oidc")


class User(db.Model):
    __tablename__ = "users"

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
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    # Carried in every access token as ``ver``; bumping it voids them all at once
    # (password change, deactivation) without waiting for them to expire.
    token_version: Mapped[int] = mapped_column(sa.Integer, default=0)

    def has_role(self, role):
        return role in (self.roles or [])

    def __repr__(self):
        return f"<User {self.email}>"
