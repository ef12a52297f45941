"""pipelines: why a trigger was turned off

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 14:00:00.000000

A schedule that can never be computed again, or a trigger whose pipeline failed in the
sweep, is turned off instead of stopping the sweep for every other pipeline
(docs/guides/events.rst, "Triggers"). ``trigger_disabled_reason`` says why, for the
owner to read; null while the trigger works, and cleared when the trigger is changed.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade():
    # An added nullable column only (plain ALTER TABLE): nothing is copied or rebuilt.
    op.add_column('pipelines', sa.Column('trigger_disabled_reason', sa.String(length=255),
                                         nullable=True))


def downgrade():
    op.drop_column('pipelines', 'trigger_disabled_reason')
