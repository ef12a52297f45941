"""access: visibility, groups, grants and personal access tokens

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 21:00:00.000000

Datasets, collections and pipelines get a ``visibility``; what exists already is
``internal`` (every user reads it, as before). Groups and their members, grants of read
or write on each kind of resource (deleted with the resource, the user or the group),
and personal access tokens (stored as hashes).

Only new tables and added columns: nothing is copied or rebuilt.
"""
from alembic import op
import sqlalchemy as sa

import datahub.platform.database


# revision identifiers, used by Alembic.
revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

RESOURCES = ('datasets', 'collections', 'pipelines')


def _grant_table(resource):
    table = f'{resource[:-1]}_grants'
    op.create_table(
        table,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('principal', sa.String(length=64), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=True),
        sa.Column('group_id', sa.Integer(), nullable=True),
        sa.Column('permission', sa.String(length=8), nullable=False),
        sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.Column('created_by', sa.String(length=36), nullable=True),
        sa.Column('resource_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['group_id'], ['groups.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['created_by'], ['users.id'], ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['resource_id'], [f'{resource}.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('resource_id', 'principal', name=f'uq_{table}_resource_principal'),
        sqlite_autoincrement=True,
    )
    op.create_index(f'ix_{table}_user_id_resource_id', table, ['user_id', 'resource_id'])
    op.create_index(f'ix_{table}_group_id_resource_id', table, ['group_id', 'resource_id'])


def upgrade():
    for resource in RESOURCES:
        op.add_column(resource, sa.Column('visibility', sa.String(length=16),
                                          server_default='internal', nullable=False))
        op.create_index(f'ix_{resource}_visibility', resource, ['visibility'])
    op.create_table(
        'groups',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('name_key', sa.String(length=510), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('source', sa.String(length=16), nullable=False),
        sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name_key'),
        sqlite_autoincrement=True,
    )
    op.create_table(
        'group_members',
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('added_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['groups.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('group_id', 'user_id'),
    )
    op.create_index('ix_group_members_user_id', 'group_members', ['user_id'])
    for resource in RESOURCES:
        _grant_table(resource)
    op.create_table(
        'personal_access_tokens',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('scopes', sa.JSON(), nullable=False),
        sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.Column('expires_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.Column('last_used_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=True),
        sa.Column('last_used_address', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'),
    )
    op.create_index('ix_personal_access_tokens_user_id', 'personal_access_tokens',
                    ['user_id'])


def downgrade():
    op.drop_index('ix_personal_access_tokens_user_id', 'personal_access_tokens')
    op.drop_table('personal_access_tokens')
    for resource in reversed(RESOURCES):
        table = f'{resource[:-1]}_grants'
        op.drop_index(f'ix_{table}_group_id_resource_id', table)
        op.drop_index(f'ix_{table}_user_id_resource_id', table)
        op.drop_table(table)
    op.drop_index('ix_group_members_user_id', 'group_members')
    op.drop_table('group_members')
    op.drop_table('groups')
    for resource in reversed(RESOURCES):
        op.drop_index(f'ix_{resource}_visibility', resource)
        op.drop_column(resource, 'visibility')
