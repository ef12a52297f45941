"""profiles: each content's schema and profile, read by the workers

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-03 10:00:00.000000

``content_profiles`` holds, per content (a version's sha256 and size: versions with the
same bytes share it), its schema and profile as a worker read them, ``pending`` until
then. The versions made before it are asked for here, as a backfill the workers take
after new versions; an index finds a content's versions.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('content_profiles',
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('size_bytes', sa.BigInteger(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('backfill', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column('requested_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('claimed_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('attempts', sa.Integer(), server_default='0', nullable=False),
    sa.Column('schema', sa.JSON(), nullable=True),
    sa.Column('profile', sa.JSON(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('computed_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('sha256', 'size_bytes', name=op.f('pk_content_profiles'))
    )
    op.create_index('ix_content_profiles_status_backfill', 'content_profiles',
                    ['status', 'backfill', 'requested_at'])
    op.create_index('ix_dataset_versions_sha256_size_bytes', 'dataset_versions',
                    ['sha256', 'size_bytes'])
    # Every existing version's content, the format of which is known or not (versions
    # from before formats were recorded): a worker tells which are tables.
    op.execute(
        "INSERT INTO content_profiles (sha256, size_bytes, status, backfill, requested_at, "
        "attempts) SELECT sha256, size_bytes, 'pending', true, min(created_at), 0 "
        "FROM dataset_versions GROUP BY sha256, size_bytes"
    )


def downgrade():
    op.drop_index('ix_dataset_versions_sha256_size_bytes', 'dataset_versions')
    op.drop_index('ix_content_profiles_status_backfill', 'content_profiles')
    op.drop_table('content_profiles')
