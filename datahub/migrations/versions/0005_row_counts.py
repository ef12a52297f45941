"""row counts for unfiltered list totals

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 04:40:00.000000

Every list answers ``total``. Counting a table on every page grows with the table
(~2 ms at 100,000 datasets on SQLite, more on PostgreSQL), so ``row_counts`` keeps the
number of rows of the tables listed most, maintained by triggers in the same transaction
as the insert or delete: it is exact, whoever writes (the API, the CLI, a migration, SQL by
hand), and a rolled-back write leaves it as it was. A filtered list still counts.

The counter row is shared: on PostgreSQL concurrent inserts into one table wait for each
other's commit to update it (short, as the API writes one row per transaction), and many
separate INSERT statements in one transaction each add a version of that row, which gets
slower with their number; a bulk load should use multi-row statements or INSERT ... SELECT.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None

COUNTED = ("datasets", "collections", "pipelines")

# PostgreSQL: statement-level triggers with transition tables, so a bulk insert or delete
# updates the count once, not once per row.
PG_FUNCTION = """
CREATE FUNCTION datahub_row_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE row_counts SET row_count = row_count + (SELECT count(*) FROM new_rows)
        WHERE table_name = TG_TABLE_NAME;
    ELSE
        UPDATE row_counts SET row_count = row_count - (SELECT count(*) FROM old_rows)
        WHERE table_name = TG_TABLE_NAME;
    END IF;
    RETURN NULL;
END
$$
"""


def upgrade():
    op.create_table('row_counts',
    sa.Column('table_name', sa.String(length=64), nullable=False),
    sa.Column('row_count', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('table_name', name=op.f('pk_row_counts'))
    )
    for table in COUNTED:
        op.execute(f"INSERT INTO row_counts (table_name, row_count) "
                   f"SELECT '{table}', count(*) FROM {table}")
    if op.get_context().dialect.name == "postgresql":
        op.execute(PG_FUNCTION)
        for table in COUNTED:
            op.execute(f"CREATE TRIGGER {table}_count_insert AFTER INSERT ON {table} "
                       f"REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT "
                       f"EXECUTE FUNCTION datahub_row_count()")
            op.execute(f"CREATE TRIGGER {table}_count_delete AFTER DELETE ON {table} "
                       f"REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT "
                       f"EXECUTE FUNCTION datahub_row_count()")
    else:
        for table in COUNTED:
            op.execute(f"CREATE TRIGGER {table}_count_insert AFTER INSERT ON {table} BEGIN "
                       f"UPDATE row_counts SET row_count = row_count + 1 "
                       f"WHERE table_name = '{table}'; END")
            op.execute(f"CREATE TRIGGER {table}_count_delete AFTER DELETE ON {table} BEGIN "
                       f"UPDATE row_counts SET row_count = row_count - 1 "
                       f"WHERE table_name = '{table}'; END")


def downgrade():
    postgres = op.get_context().dialect.name == "postgresql"
    for table in COUNTED:
        for event in ("insert", "delete"):
            op.execute(f"DROP TRIGGER {table}_count_{event}" + (f" ON {table}" if postgres else ""))
    if postgres:
        op.execute("DROP FUNCTION datahub_row_count()")
    op.drop_table('row_counts')
