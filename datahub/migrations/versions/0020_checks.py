"""checks: a dataset's quality checks, each version's audit, and its state

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-03 12:00:00.000000

A version is ``published`` (every existing one), ``pending`` while its dataset's checks
run on it, or ``quarantined`` when one failed: write, audit, publish.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('dataset_versions') as batch:
        batch.add_column(sa.Column('state', sa.String(length=16), server_default='published',
                                   nullable=False))
    op.create_table('dataset_checks',
    sa.Column('dataset_id', sa.Integer(), nullable=False),
    sa.Column('checks', sa.JSON(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['dataset_id'], ['datasets.id'],
                            name=op.f('fk_dataset_checks_dataset_id_datasets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('dataset_id', name=op.f('pk_dataset_checks'))
    )
    op.create_table('version_audits',
    sa.Column('dataset_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('checks', sa.JSON(), nullable=False),
    sa.Column('results', sa.JSON(), nullable=True),
    sa.Column('requested_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('claimed_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('attempts', sa.Integer(), server_default='0', nullable=False),
    sa.Column('checked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('published_by', sa.String(length=36), nullable=True),
    sa.ForeignKeyConstraint(['dataset_id', 'version'],
                            ['dataset_versions.dataset_id', 'dataset_versions.version'],
                            name=op.f('fk_version_audits_dataset_id_dataset_versions'),
                            ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['published_by'], ['users.id'],
                            name=op.f('fk_version_audits_published_by_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('dataset_id', 'version', name=op.f('pk_version_audits'))
    )
    op.create_index('ix_version_audits_status_requested_at', 'version_audits',
                    ['status', 'requested_at'])


def downgrade():
    op.drop_index('ix_version_audits_status_requested_at', 'version_audits')
    op.drop_table('version_audits')
    op.drop_table('dataset_checks')
    with op.batch_alter_table('dataset_versions') as batch:
        batch.drop_column('state')
