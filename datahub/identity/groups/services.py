"""What can be done to groups, shared by the operator CLI and the admin API."""

import sqlalchemy as sa
from marshmallow import ValidationError

from datahub.app.extensions import db
from datahub.identity.group_models import Group, GroupMember, group_name_key
from datahub.identity.groups.errors import GroupNotFound, MembersKeptBySource
from datahub.identity.groups.schemas import GroupCreateSchema
from datahub.identity.models import User
from datahub.identity.users.errors import UserNotFound
from datahub.platform.audit import audit
from datahub.platform.database import contains_pattern, valid_id
from datahub.platform.errors import InvalidValues, NameTaken


def _load(schema, data):
    try:
        return schema.load(data)
    except ValidationError as exc:
        raise InvalidValues(exc.messages) from exc


def get_group(group_id):
    group = db.session.get(Group, group_id) if valid_id(group_id) else None
    if group is None:
        raise GroupNotFound()
    return group


def get_by_name(name):
    group = db.session.scalar(sa.select(Group).where(Group.name_key == group_name_key(name)))
    if group is None:
        raise GroupNotFound()
    return group


def groups_query(args):
    """The groups a list shows, by name; ``q``: those whose name contains it."""
    query = sa.select(Group)
    if args.get("q"):
        query = query.where(Group.name_key.like(contains_pattern(args["q"]), escape="\\"))
    return query.order_by(Group.name_key, Group.id)


def _name_taken(name, exclude_id=None):
    query = sa.select(Group.id).where(Group.name_key == group_name_key(name))
    if exclude_id is not None:
        query = query.where(Group.id != exclude_id)
    return db.session.scalar(query) is not None


def _refuse_taken_name(name, exclude_id=None):
    """Checked before the change; the unique index on ``name_key`` decides a concurrent
    one at the commit (``_commit_named``)."""
    if _name_taken(name, exclude_id):
        raise NameTaken()


def _commit_named():
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        raise NameTaken() from None


def create_group(**data):
    values = _load(GroupCreateSchema(), data)
    _refuse_taken_name(values["name"])
    group = Group(
        name=values["name"],
        name_key=group_name_key(values["name"]),
        description=values["description"],
        source=values["source"],
    )
    db.session.add(group)
    _commit_named()
    audit("group_created", group_id=group.id, name=group.name, source=group.source)
    return group


def update_group(group, values):
    if "name" in values:
        _refuse_taken_name(values["name"], exclude_id=group.id)
        group.name, group.name_key = values["name"], group_name_key(values["name"])
    if "description" in values:
        group.description = values["description"]
    _commit_named()
    return group


def delete_group(group):
    """Its memberships and grants go with it (ON DELETE CASCADE)."""
    group_id, name = group.id, group.name
    db.session.delete(group)
    db.session.commit()
    audit("group_deleted", group_id=group_id, name=name)


def _member_user(group, user_id):
    user = (
        db.session.get(User, user_id) if isinstance(user_id, str) and len(user_id) <= 36 else None
    )
    if user is None:
        raise UserNotFound()
    if group.source != "local":
        raise MembersKeptBySource()
    return user


def add_member(group, user_id):
    """Idempotent: a member already is one."""
    user = _member_user(group, user_id)
    if user.id in group.member_ids:
        return group
    group.members.append(GroupMember(user_id=user.id))
    try:
        db.session.commit()
    except sa.exc.IntegrityError:  # a concurrent add, or the group or user deleted meanwhile
        db.session.rollback()
        group = get_group(group.id)
        if db.session.get(User, user.id) is None:
            raise UserNotFound() from None
        return group
    audit("group_member_added", group_id=group.id, name=group.name, user_id=user.id)
    return group


def remove_member(group, user_id):
    """Idempotent: removing a non-member changes nothing."""
    user = _member_user(group, user_id)
    removed = db.session.execute(
        sa.delete(GroupMember).where(
            GroupMember.group_id == group.id, GroupMember.user_id == user.id
        )
    ).rowcount
    db.session.commit()
    if removed:
        audit("group_member_removed", group_id=group.id, name=group.name, user_id=user.id)
    return group
