"""datasets, collections, pipelines: indexes for lists sorted by time

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-01 10:00:00.000000

Lists take ``sort`` (docs/reference/http.rst, "Lists"): ``name`` reads the unique index on
``name_key``; ``created_at`` and ``updated_at`` (ties by id, either direction) read these,
so that a sorted page of a large table reads its rows in index order rather than sorting
the table.
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None

TABLES = ('datasets', 'collections', 'pipelines')
COLUMNS = ('created_at', 'updated_at')


def upgrade():
    for table in TABLES:
        for column in COLUMNS:
            op.create_index(f'ix_{table}_{column}_id', table, [column, 'id'])


def downgrade():
    for table in TABLES:
        for column in COLUMNS:
            op.drop_index(f'ix_{table}_{column}_id', table)
