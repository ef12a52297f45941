"""Server-side records of refresh tokens and of access tokens ended early."""
import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from datahub.database import UTCDateTime, utcnow
from datahub.extensions import db


class RefreshToken(db.Model):
    """One issued refresh token. ``family_id`` groups every token descended from a login."""

    __tablename__ = "refresh_tokens"

    jti: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(
        sa.ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    family_id: Mapped[str] = mapped_column(sa.String(36), index=True)
    issued_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[object] = mapped_column(UTCDateTime, index=True)
    revoked_at: Mapped[object | None] = mapped_column(UTCDateTime)
    user_agent: Mapped[str | None] = mapped_column(sa.String(512))
    client_address: Mapped[str | None] = mapped_column(sa.String(64))


class RevokedAccessToken(db.Model):
    """An access token ended by logout before it expired. Forgotten once it has expired."""

    __tablename__ = "revoked_access_tokens"

    jti: Mapped[str] = mapped_column(sa.String(36), primary_key=True)
    expires_at: Mapped[object] = mapped_column(UTCDateTime, index=True)
