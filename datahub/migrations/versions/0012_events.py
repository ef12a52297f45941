"""events: the outbox of CloudEvents about datasets, versions, pipelines and runs

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27 17:30:00.000000

Each change to a dataset, a version, a pipeline or a run writes its event in the same
transaction (docs/guides/events.rst). A new table only: nothing existing changes, and no
event is made up for what happened before it.
"""
from alembic import op
import sqlalchemy as sa

import datahub.platform.database


# revision identifiers, used by Alembic.
revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'events',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('type', sa.String(length=64), nullable=False),
        sa.Column('source', sa.String(length=255), nullable=False),
        sa.Column('time', datahub.platform.database.UTCDateTime(timezone=True), nullable=False),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.Column('dataset_id', sa.Integer(), nullable=True),
        sa.Column('pipeline_id', sa.Integer(), nullable=True),
        sa.Column('owner_id', sa.String(length=36), nullable=True),
        sa.Column('private', sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sqlite_autoincrement=True,
    )
    op.create_index('ix_events_time', 'events', ['time'])
    op.create_index('ix_events_dataset_id_id', 'events', ['dataset_id', 'id'])


def downgrade():
    op.drop_index('ix_events_dataset_id_id', table_name='events')
    op.drop_index('ix_events_time', table_name='events')
    op.drop_table('events')
