"""pipeline triggers: a run on each new version of an input, or on a schedule

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27 18:30:00.000000

``pipelines.trigger`` is null (runs only when asked), ``{"on": "new_version"}`` or
``{"cron": ..., "timezone": ...}``; ``next_run_at`` is a schedule's next due time and
``pending_trigger`` the trigger of a run wanted but not yet queued (docs/guides/events.rst,
"Triggers"). Runs say what started them: ``triggered_by``, ``user`` for every earlier run.
"""
from alembic import op
import sqlalchemy as sa

import datahub.platform.database


# revision identifiers, used by Alembic.
revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


UTC = datahub.platform.database.UTCDateTime(timezone=True)


def upgrade():
    # Added columns only (plain ALTER TABLE): nothing is copied or rebuilt.
    op.add_column('pipelines', sa.Column('trigger', sa.JSON(), nullable=True))
    op.add_column('pipelines', sa.Column('next_run_at', UTC, nullable=True))
    op.add_column('pipelines', sa.Column('pending_trigger', sa.String(length=16), nullable=True))
    op.create_index('ix_pipelines_next_run_at', 'pipelines', ['next_run_at'])
    op.create_index('ix_pipelines_pending_trigger', 'pipelines', ['pending_trigger'])
    op.add_column('runs', sa.Column('triggered_by', sa.String(length=16), nullable=False,
                                    server_default='user'))


def downgrade():
    op.drop_column('runs', 'triggered_by')
    op.drop_index('ix_pipelines_pending_trigger', 'pipelines')
    op.drop_index('ix_pipelines_next_run_at', 'pipelines')
    op.drop_column('pipelines', 'pending_trigger')
    op.drop_column('pipelines', 'next_run_at')
    op.drop_column('pipelines', 'trigger')
