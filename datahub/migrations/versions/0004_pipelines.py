"""pipelines and runs

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 01:40:00.000000

Creates ``pipelines`` and ``runs``. ``ux_runs_active_pipeline`` is a partial unique index:
at most one queued or running run per pipeline, whatever number of web workers and hosts
try to start one at the same moment.
"""
from alembic import op
import sqlalchemy as sa

import datahub.platform.database


# revision identifiers, used by Alembic.
revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

ACTIVE = sa.text("status IN ('queued', 'running')")


def upgrade():
    op.create_table('pipelines',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('name_key', sa.String(length=510), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('owner_id', sa.String(length=36), nullable=False),
    sa.Column('source_dataset_id', sa.Integer(), nullable=True),
    sa.Column('steps', sa.JSON(), nullable=False),
    sa.Column('output_dataset_name', sa.String(length=255), nullable=False),
    sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=False),
    sa.Column('updated_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['owner_id'], ['users.id'], name=op.f('fk_pipelines_owner_id_users'), ondelete='RESTRICT'),
    sa.ForeignKeyConstraint(['source_dataset_id'], ['datasets.id'], name=op.f('fk_pipelines_source_dataset_id_datasets'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pipelines')),
    sa.UniqueConstraint('name_key', name=op.f('uq_pipelines_name_key'))
    )
    with op.batch_alter_table('pipelines', schema=None) as batch_op:
        batch_op.create_index('ix_pipelines_owner_id_id', ['owner_id', 'id'], unique=False)
        batch_op.create_index(batch_op.f('ix_pipelines_source_dataset_id'), ['source_dataset_id'], unique=False)

    op.create_table('runs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('pipeline_id', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=False),
    sa.Column('started_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=True),
    sa.Column('finished_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=True),
    sa.Column('rows_in', sa.BigInteger(), nullable=True),
    sa.Column('rows_out', sa.BigInteger(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('output_dataset_id', sa.Integer(), nullable=True),
    sa.Column('worker', sa.String(length=255), nullable=True),
    sa.Column('heartbeat_at', datahub.platform.database.UTCDateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['output_dataset_id'], ['datasets.id'], name=op.f('fk_runs_output_dataset_id_datasets'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['pipeline_id'], ['pipelines.id'], name=op.f('fk_runs_pipeline_id_pipelines'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_runs'))
    )
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.create_index('ix_runs_pipeline_id_id', ['pipeline_id', 'id'], unique=False)
        batch_op.create_index('ix_runs_status_id', ['status', 'id'], unique=False)
        batch_op.create_index('ux_runs_active_pipeline', ['pipeline_id'], unique=True,
                              sqlite_where=ACTIVE, postgresql_where=ACTIVE)


def downgrade():
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.drop_index('ux_runs_active_pipeline')
        batch_op.drop_index('ix_runs_status_id')
        batch_op.drop_index('ix_runs_pipeline_id_id')

    op.drop_table('runs')
    with op.batch_alter_table('pipelines', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pipelines_source_dataset_id'))
        batch_op.drop_index('ix_pipelines_owner_id_id')

    op.drop_table('pipelines')
