"""Memberships in the groups an identity provider keeps (source ``ldap`` or ``oidc``),
brought up to date at each login: the user is a member of exactly the groups of that
source whose name (case-insensitively) the provider names. Groups are never created
here: an admin creates those that matter."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.group_models import Group, GroupMember, group_name_key
from datahub.platform.audit import audit

MAX_NAME_LENGTH = 255  # no group has a longer name


def _groups(query):
    return {group.id: group for group in db.session.scalars(query)}


def sync_groups(user, source, names, retry=True):
    """Make ``user`` a member of exactly the ``source`` groups named in ``names``;
    committed, and audited when anything changed."""
    keys = {group_name_key(name) for name in names if len(name) <= MAX_NAME_LENGTH}
    wanted = {}
    if keys:
        wanted = _groups(sa.select(Group).where(Group.source == source, Group.name_key.in_(keys)))
    current = _groups(
        sa.select(Group)
        .join(GroupMember, GroupMember.group_id == Group.id)
        .where(GroupMember.user_id == user.id, Group.source == source)
    )
    added = sorted((wanted[i] for i in wanted.keys() - current.keys()), key=lambda g: g.id)
    removed = sorted((current[i] for i in current.keys() - wanted.keys()), key=lambda g: g.id)
    if not added and not removed:
        return
    for group in added:
        db.session.add(GroupMember(group_id=group.id, user_id=user.id))
    if removed:
        db.session.execute(
            sa.delete(GroupMember).where(
                GroupMember.user_id == user.id,
                GroupMember.group_id.in_([group.id for group in removed]),
            )
        )
    added_names = [group.name for group in added]
    removed_names = [group.name for group in removed]
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        # A concurrent login of the same user added a membership first, or a group was
        # deleted meanwhile: once more, from what is stored now.
        db.session.rollback()
        if not retry:
            raise
        return sync_groups(user, source, names, retry=False)
    audit(
        "group_membership_synced",
        user_id=user.id,
        email=user.email,
        source=source,
        added=added_names,
        removed=removed_names,
    )
