"""runs: where a run's time went

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-29 11:00:00.000000

``timings`` holds a finished run's milliseconds by phase (claim, plan, job start, compile,
query, row counts, job end, write, hash, store, publish, events: datahub.pipelines.timings),
shown in the run's JSON. Null for runs from before, and while a run works.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None


def upgrade():
    # An added nullable column only (plain ALTER TABLE): nothing is copied or rebuilt.
    op.add_column('runs', sa.Column('timings', sa.JSON(), nullable=True))


def downgrade():
    op.drop_column('runs', 'timings')
