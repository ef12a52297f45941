"""webhooks: subscriptions, their deliveries, and the events' hand-out cursor

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27 18:00:00.000000

Webhooks receive the events (0012) as Standard Webhooks messages (docs/guides/events.rst).
The cursor starts at the newest event: a new installation's webhooks receive what happens
after they exist, never the history.
"""
from alembic import op
import sqlalchemy as sa

import datahub.platform.database


# revision identifiers, used by Alembic.
revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

UTC = datahub.platform.database.UTCDateTime(timezone=True)


def upgrade():
    op.create_table(
        'webhooks',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('owner_id', sa.String(length=36), nullable=False),
        sa.Column('url', sa.String(length=2048), nullable=False),
        sa.Column('event_types', sa.JSON(), nullable=False),
        sa.Column('dataset_id', sa.Integer(), nullable=True),
        sa.Column('secret', sa.String(length=64), nullable=False),
        sa.Column('active', sa.Boolean(), nullable=False),
        sa.Column('failures', sa.Integer(), nullable=False),
        sa.Column('disabled_reason', sa.String(length=255), nullable=True),
        sa.Column('created_at', UTC, nullable=False),
        sa.ForeignKeyConstraint(['owner_id'], ['users.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sqlite_autoincrement=True,
    )
    op.create_index('ix_webhooks_owner_id_id', 'webhooks', ['owner_id', 'id'])
    op.create_table(
        'webhook_deliveries',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('webhook_id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=True),
        sa.Column('event_type', sa.String(length=64), nullable=False),
        sa.Column('payload', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_at', UTC, nullable=True),
        sa.Column('claimed_at', UTC, nullable=True),
        sa.Column('response_status', sa.Integer(), nullable=True),
        sa.Column('duration_ms', sa.Integer(), nullable=True),
        sa.Column('error', sa.String(length=255), nullable=True),
        sa.Column('created_at', UTC, nullable=False),
        sa.Column('last_attempt_at', UTC, nullable=True),
        sa.Column('delivered_at', UTC, nullable=True),
        sa.ForeignKeyConstraint(['webhook_id'], ['webhooks.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sqlite_autoincrement=True,
    )
    op.create_index('ix_webhook_deliveries_webhook_id_id', 'webhook_deliveries',
                    ['webhook_id', 'id'])
    op.create_index('ix_webhook_deliveries_status_next_attempt_at', 'webhook_deliveries',
                    ['status', 'next_attempt_at'])
    cursors = op.create_table(
        'event_cursors',
        sa.Column('name', sa.String(length=32), nullable=False),
        sa.Column('last_event_id', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('name'),
    )
    newest = op.get_bind().scalar(sa.text('SELECT coalesce(max(id), 0) FROM events'))
    op.bulk_insert(cursors, [{'name': 'webhooks', 'last_event_id': newest}])


def downgrade():
    op.drop_table('event_cursors')
    op.drop_index('ix_webhook_deliveries_status_next_attempt_at',
                  table_name='webhook_deliveries')
    op.drop_index('ix_webhook_deliveries_webhook_id_id', table_name='webhook_deliveries')
    op.drop_table('webhook_deliveries')
    op.drop_index('ix_webhooks_owner_id_id', table_name='webhooks')
    op.drop_table('webhooks')
