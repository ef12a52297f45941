"""SQLite: ids of deleted resources are never given again (AUTOINCREMENT)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-08 10:00:00.000000

On SQLite an ``INTEGER PRIMARY KEY`` without ``AUTOINCREMENT`` takes the largest id in the
table plus one: delete the newest dataset and the next one gets its id, so a URL, a
pipeline's source or a client's cache that named the deleted one names the new one. With
``AUTOINCREMENT`` SQLite keeps the largest id ever given in ``sqlite_sequence`` and never
goes below it. The tables whose integer ids appear in the API (datasets, collections,
pipelines, runs) are rebuilt with it; their rows, ids, indexes, constraints, foreign keys
and row-count triggers stay as they were. The ids of users and sessions are UUIDs.

PostgreSQL: nothing to do (a serial/identity sequence never gives an id twice).

SQLite cannot add ``AUTOINCREMENT`` to a table, so each is copied into a new one (alembic's
batch "recreate"). Dropping the old table with foreign keys enforced would cascade into
every row that refers to it (tags, memberships, runs...), and ``PRAGMA foreign_keys``
cannot change inside a transaction: the rebuild therefore runs outside the migration's
transaction, in one transaction of its own with foreign keys off, checks every foreign key
(``PRAGMA foreign_key_check``) before it commits, and turns them on again afterwards. Run
again after an interruption between that commit and alembic's, it rebuilds the tables
once more, which changes nothing.
"""
from alembic import op


# revision identifiers, used by Alembic.
revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

# In any order: foreign keys are off while they are rebuilt.
TABLES = ("datasets", "collections", "pipelines", "runs")
# Migration 0005's row counters: dropped with their table, made again on the new one.
COUNTED = ("datasets", "collections", "pipelines")


def upgrade():
    if op.get_context().dialect.name == "sqlite":
        _rebuild(autoincrement=True)


def downgrade():
    if op.get_context().dialect.name == "sqlite":
        _rebuild(autoincrement=False)


def _rebuild(autoincrement):
    bind = op.get_bind()
    enforced = bind.exec_driver_sql("PRAGMA foreign_keys").scalar()
    # The driver leaves transactions to us (datahub.platform.database.tune_sqlite): end the
    # migration's, rebuild in one of our own with foreign keys off, and begin a new one for
    # alembic to record the version in. (Not alembic's autocommit_block: it would leave the
    # pooled connection with another isolation level than tune_sqlite gave it.)
    in_transaction = bind.connection.dbapi_connection.in_transaction
    if in_transaction:
        bind.exec_driver_sql("COMMIT")
    bind.exec_driver_sql("PRAGMA foreign_keys = OFF")
    try:
        bind.exec_driver_sql("BEGIN IMMEDIATE")
        try:
            for table in TABLES:
                with op.batch_alter_table(
                    table, recreate="always",
                    table_kwargs={"sqlite_autoincrement": autoincrement},
                ) as batch_op:
                    if not autoincrement:  # AUTOINCREMENT's inline key has no name
                        batch_op.create_primary_key(f"pk_{table}", ["id"])
            for table in COUNTED:
                _create_count_triggers(bind, table)
            broken = bind.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise RuntimeError(f"the rebuild would break foreign keys: {broken}")
        except BaseException:
            if bind.connection.dbapi_connection.in_transaction:
                bind.exec_driver_sql("ROLLBACK")
            raise
        bind.exec_driver_sql("COMMIT")
    finally:
        bind.exec_driver_sql(f"PRAGMA foreign_keys = {'ON' if enforced else 'OFF'}")
        if in_transaction:
            bind.exec_driver_sql("BEGIN IMMEDIATE")


def _create_count_triggers(bind, table):
    """Migration 0005's SQLite triggers, unchanged."""
    bind.exec_driver_sql(
        f"CREATE TRIGGER {table}_count_insert AFTER INSERT ON {table} BEGIN "
        f"UPDATE row_counts SET row_count = row_count + 1 WHERE table_name = '{table}'; END")
    bind.exec_driver_sql(
        f"CREATE TRIGGER {table}_count_delete AFTER DELETE ON {table} BEGIN "
        f"UPDATE row_counts SET row_count = row_count - 1 WHERE table_name = '{table}'; END")
