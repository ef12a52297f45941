"""Groups of users, to grant access to many at once (docs/guides/access.rst).

A group's ``source`` says who keeps its members: ``local`` groups are kept by admins;
``ldap`` and ``oidc`` groups are kept by the login (datahub.identity.group_sync), which
makes a user a member of exactly the groups of that source the provider names.
"""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from datahub.app.extensions import db
from datahub.platform.database import UTCDateTime, utcnow

GROUP_SOURCES = ("local", "ldap", "oidc")


class Group(db.Model):
    __tablename__ = "groups"
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(255))
    # Unique case-insensitively, as resource names (datahub.resources.services.name_key).
    name_key: Mapped[str] = mapped_column(sa.String(510), unique=True)
    description: Mapped[str] = mapped_column(sa.Text, default="")
    source: Mapped[str] = mapped_column(sa.String(16), default="local")
    created_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)

    members: Mapped[list["GroupMember"]] = relationship(
        cascade="all, delete-orphan",
        order_by="GroupMember.user_id",
        lazy="selectin",
        passive_deletes=True,
    )

    @property
    def member_ids(self):
        return [member.user_id for member in self.members]


class GroupMember(db.Model):
    """Membership. Deleting the group or the user deletes the row (ON DELETE CASCADE)."""

    __tablename__ = "group_members"

    group_id: Mapped[int] = mapped_column(
        sa.ForeignKey("groups.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(
        sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    added_at: Mapped[object] = mapped_column(UTCDateTime, default=utcnow)


def group_name_key(name):
    return name.lower()
