"""events: no index on time (retention walks the events in id order)

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28 09:10:00.000000

Every event's write kept a second index up to date that only the retention sweep read.
The sweep now removes events oldest first by id, whose order is the order of their times
(docs/guides/events.rst, "Retention"), so the index goes: one index and one page fewer
per event written.
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index('ix_events_time', table_name='events')


def downgrade():
    op.create_index('ix_events_time', 'events', ['time'])
