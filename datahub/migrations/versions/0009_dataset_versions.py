"""dataset versions: every file a dataset is given is kept as a numbered, immutable version

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 18:00:00.000000

Each dataset's file becomes its version 1: created by the dataset's owner when the file
was uploaded, its format not known (null: it was never read at upload). The dataset's
``current_version`` is 1 then (null without a file). The stored objects stay where they
are, on either storage backend: a version refers to the object by its key.

Runs record which versions they read (``dataset_version_reads``) and which they made
(``runs.output_version``), and what they computed (``runs.fingerprint``: a run with the
fingerprint of an earlier succeeded run reuses its output, ``runs.reused_run_id``); runs
before this migration have none of these. Pipelines may pin their source's version
(``pipelines.source_version``).

Only new tables and added columns (plain ALTER TABLE): nothing is copied or rebuilt, so
neither SQLite nor PostgreSQL cascades anything.
"""
from alembic import op
import sqlalchemy as sa

import datahub.platform.database


# revision identifiers, used by Alembic.
revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'dataset_versions',
        sa.Column('dataset_id', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('file_key', sa.String(length=64), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('size_bytes', sa.BigInteger(), nullable=False),
        sa.Column('filename', sa.String(length=255), nullable=False),
        sa.Column('content_type', sa.String(length=255), nullable=False),
        sa.Column('format', sa.String(length=16), nullable=True),
        sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.Column('created_by', sa.String(length=36), nullable=True),
        sa.Column('run_id', sa.Integer(), nullable=True),
        sa.Column('message', sa.Text(), nullable=True),
        sa.Column('pinned', sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(['dataset_id'], ['datasets.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['created_by'], ['users.id'], ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['run_id'], ['runs.id'], ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('dataset_id', 'version'),
    )
    op.create_index('ix_dataset_versions_file_key', 'dataset_versions', ['file_key'])
    op.create_index('ix_dataset_versions_dataset_id_sha256', 'dataset_versions',
                    ['dataset_id', 'sha256'])
    op.create_index('ix_dataset_versions_run_id', 'dataset_versions', ['run_id'])
    op.create_table(
        'dataset_version_reads',
        sa.Column('run_id', sa.Integer(), nullable=False),
        sa.Column('dataset_id', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['run_id'], ['runs.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['dataset_id', 'version'],
                                ['dataset_versions.dataset_id', 'dataset_versions.version'],
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('run_id', 'dataset_id', 'version'),
    )
    op.create_index('ix_dataset_version_reads_dataset_id_version', 'dataset_version_reads',
                    ['dataset_id', 'version'])
    op.add_column('datasets', sa.Column('current_version', sa.Integer(), nullable=True))
    op.add_column('runs', sa.Column('output_version', sa.Integer(), nullable=True))
    op.add_column('runs', sa.Column('fingerprint', sa.String(length=64), nullable=True))
    op.add_column('runs', sa.Column('reused_run_id', sa.Integer(), nullable=True))
    op.create_index('ix_runs_fingerprint_id', 'runs', ['fingerprint', 'id'])
    op.add_column('pipelines', sa.Column('source_version', sa.Integer(), nullable=True))
    op.execute(
        "INSERT INTO dataset_versions (dataset_id, version, file_key, sha256, size_bytes, "
        "filename, content_type, format, created_at, created_by, run_id, message, pinned) "
        "SELECT id, 1, file_key, coalesce(file_sha256, ''), coalesce(file_size, 0), "
        "coalesce(file_name, 'dataset-' || id), "
        "coalesce(file_content_type, 'application/octet-stream'), NULL, "
        "coalesce(file_uploaded_at, updated_at), owner_id, NULL, NULL, false "
        "FROM datasets WHERE file_key IS NOT NULL"
    )
    op.execute("UPDATE datasets SET current_version = 1 WHERE file_key IS NOT NULL")


def downgrade():
    op.drop_column('pipelines', 'source_version')
    op.drop_index('ix_runs_fingerprint_id', 'runs')
    op.drop_column('runs', 'reused_run_id')
    op.drop_column('runs', 'fingerprint')
    op.drop_column('runs', 'output_version')
    op.drop_column('datasets', 'current_version')
    op.drop_index('ix_dataset_version_reads_dataset_id_version', 'dataset_version_reads')
    op.drop_table('dataset_version_reads')
    op.drop_index('ix_dataset_versions_run_id', 'dataset_versions')
    op.drop_index('ix_dataset_versions_dataset_id_sha256', 'dataset_versions')
    op.drop_index('ix_dataset_versions_file_key', 'dataset_versions')
    op.drop_table('dataset_versions')
