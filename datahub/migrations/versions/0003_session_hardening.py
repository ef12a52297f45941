"""session hardening: sessions (refresh-token families) and token rotation

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 00:28:16.533886

Touches only the auth tables: creates ``auth_sessions`` (one row per login, holding its
absolute end), records one for every family already in ``refresh_tokens`` so existing
logins keep working, and adds the rotation columns and the family foreign key.
"""
from alembic import op
import sqlalchemy as sa

import datahub.platform.database


# revision identifiers, used by Alembic.
revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('auth_sessions',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('user_id', sa.String(length=36), nullable=False),
    sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=False),
    sa.Column('last_used_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=False),
    sa.Column('expires_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=True),
    sa.Column('revoked_reason', sa.String(length=32), nullable=True),
    sa.Column('user_agent', sa.String(length=512), nullable=True),
    sa.Column('client_address', sa.String(length=64), nullable=True),
    sa.Column('csrf_token', sa.String(length=64), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_auth_sessions_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_auth_sessions'))
    )
    with op.batch_alter_table('auth_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_auth_sessions_expires_at'), ['expires_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_auth_sessions_user_id'), ['user_id'], unique=False)

    # Existing families become sessions: created at their first token, ending with their
    # last; a family whose every token is revoked was logged out.
    op.execute(
        "INSERT INTO auth_sessions (id, user_id, created_at, last_used_at, expires_at, "
        "revoked_at, revoked_reason, user_agent, client_address) "
        "SELECT family_id, MIN(user_id), MIN(issued_at), MAX(issued_at), MAX(expires_at), "
        "CASE WHEN COUNT(revoked_at) = COUNT(*) THEN MAX(revoked_at) END, "
        "CASE WHEN COUNT(revoked_at) = COUNT(*) THEN 'logout' END, "
        "MAX(user_agent), MAX(client_address) "
        "FROM refresh_tokens GROUP BY family_id"
    )

    with op.batch_alter_table('refresh_tokens', schema=None) as batch_op:
        batch_op.add_column(sa.Column('retired_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('replaced_by', sa.String(length=36), nullable=True))
        batch_op.add_column(sa.Column('last_used_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=True))
        batch_op.create_foreign_key(batch_op.f('fk_refresh_tokens_family_id_auth_sessions'), 'auth_sessions', ['family_id'], ['id'], ondelete='CASCADE')



def downgrade():
    with op.batch_alter_table('refresh_tokens', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_refresh_tokens_family_id_auth_sessions'), type_='foreignkey')
        batch_op.drop_column('last_used_at')
        batch_op.drop_column('replaced_by')
        batch_op.drop_column('retired_at')

    with op.batch_alter_table('auth_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_auth_sessions_user_id'))
        batch_op.drop_index(batch_op.f('ix_auth_sessions_expires_at'))

    op.drop_table('auth_sessions')
