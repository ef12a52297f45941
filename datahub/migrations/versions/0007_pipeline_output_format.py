"""pipelines: the output file's format (csv, parquet or jsonl)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 14:30:00.000000

Existing pipelines keep writing CSV (the server default).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


# Plain ALTER TABLE, not a batch (table copy) on SQLite: dropping the old pipelines table
# there would cascade into every run.
def upgrade():
    op.add_column('pipelines', sa.Column('output_format', sa.String(length=16),
                                         server_default='csv', nullable=False))


def downgrade():
    op.drop_column('pipelines', 'output_format')
