"""access: visibility, groups, grants and personal access tokens

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 21:00:00.000000

Datasets, collections and pipelines get a ``visibility``; what exists already is
``internal`` (every user reads it, as before). Groups and their members, grants of read
or write on each kind of resource (deleted with the resource, the user or the group),
and personal access tokens (stored as hashes).

Only new tables and added columns: nothing is copied or rebuilt. ``row_counts`` (0005)
also keeps how many rows of each are private (``datasets:private``...), by triggers as
0005's: a list's total for a user who is not an admin is then the kept count, less the
private rows, plus the private rows the user may read (few, on indexes), without counting
the table.
"""
from alembic import op
import sqlalchemy as sa

import datahub.platform.database


# revision identifiers, used by Alembic.
revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

RESOURCES = ('datasets', 'collections', 'pipelines')


def _grant_table(resource):
    table = f'{resource[:-1]}_grants'
    op.create_table(
        table,
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('principal', sa.String(length=64), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=True),
        sa.Column('group_id', sa.Integer(), nullable=True),
        sa.Column('permission', sa.String(length=8), nullable=False),
        sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.Column('created_by', sa.String(length=36), nullable=True),
        sa.Column('resource_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['group_id'], ['groups.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['created_by'], ['users.id'], ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['resource_id'], [f'{resource}.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('resource_id', 'principal', name=f'uq_{table}_resource_principal'),
        sqlite_autoincrement=True,
    )
    op.create_index(f'ix_{table}_user_id_resource_id', table, ['user_id', 'resource_id'])
    op.create_index(f'ix_{table}_group_id_resource_id', table, ['group_id', 'resource_id'])


# PostgreSQL: statement-level, with transition tables (a bulk write updates the count
# once); the counter row is written only when the number of private rows changed, so
# that updates of other columns never wait on it.
PG_FUNCTION = """
CREATE FUNCTION datahub_private_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE delta bigint := 0;
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        delta := delta + (SELECT count(*) FROM new_rows WHERE visibility = 'private');
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        delta := delta - (SELECT count(*) FROM old_rows WHERE visibility = 'private');
    END IF;
    IF delta <> 0 THEN
        UPDATE row_counts SET row_count = row_count + delta
        WHERE table_name = TG_TABLE_NAME || ':' || 'private';
    END IF;
    RETURN NULL;
END
$$
"""
PG_TRIGGERS = {
    'insert': 'AFTER INSERT ON {t} REFERENCING NEW TABLE AS new_rows',
    'delete': 'AFTER DELETE ON {t} REFERENCING OLD TABLE AS old_rows',
    'update': 'AFTER UPDATE ON {t} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows',
}
SQLITE_TRIGGERS = {
    'insert': ("AFTER INSERT ON {t} WHEN NEW.visibility = 'private'", '+ 1'),
    'delete': ("AFTER DELETE ON {t} WHEN OLD.visibility = 'private'", '- 1'),
    'update': ('AFTER UPDATE OF visibility ON {t} WHEN OLD.visibility IS NOT NEW.visibility',
               "+ (NEW.visibility = 'private') - (OLD.visibility = 'private')"),
}


def _count_private_rows():
    postgres = op.get_context().dialect.name == 'postgresql'
    if postgres:
        op.execute(PG_FUNCTION)
    for t in RESOURCES:
        op.execute(f"INSERT INTO row_counts (table_name, row_count) "
                   f"SELECT '{t}:private', count(*) FROM {t} WHERE visibility = 'private'")
        for event in ('insert', 'delete', 'update'):
            if postgres:
                op.execute(f"CREATE TRIGGER {t}_private_{event} {PG_TRIGGERS[event].format(t=t)} "
                           f"FOR EACH STATEMENT EXECUTE FUNCTION datahub_private_count()")
            else:
                when, change = SQLITE_TRIGGERS[event]
                op.execute(f"CREATE TRIGGER {t}_private_{event} {when.format(t=t)} BEGIN "
                           f"UPDATE row_counts SET row_count = row_count {change} "
                           f"WHERE table_name = '{t}:private'; END")


def _forget_private_rows():
    postgres = op.get_context().dialect.name == 'postgresql'
    for t in RESOURCES:
        for event in ('insert', 'delete', 'update'):
            op.execute(f"DROP TRIGGER {t}_private_{event}" + (f" ON {t}" if postgres else ""))
        op.execute(f"DELETE FROM row_counts WHERE table_name = '{t}:private'")
    if postgres:
        op.execute("DROP FUNCTION datahub_private_count()")


def upgrade():
    for resource in RESOURCES:
        op.add_column(resource, sa.Column('visibility', sa.String(length=16),
                                          server_default='internal', nullable=False))
    op.create_table(
        'groups',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('name_key', sa.String(length=510), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('source', sa.String(length=16), nullable=False),
        sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name_key'),
        sqlite_autoincrement=True,
    )
    op.create_table(
        'group_members',
        sa.Column('group_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('added_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.ForeignKeyConstraint(['group_id'], ['groups.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('group_id', 'user_id'),
    )
    op.create_index('ix_group_members_user_id', 'group_members', ['user_id'])
    for resource in RESOURCES:
        _grant_table(resource)
    op.create_table(
        'personal_access_tokens',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('scopes', sa.JSON(), nullable=False),
        sa.Column('created_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.Column('expires_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=False),
        sa.Column('last_used_at', datahub.platform.database.UTCDateTime(timezone=True),
                  nullable=True),
        sa.Column('last_used_address', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'),
    )
    op.create_index('ix_personal_access_tokens_user_id', 'personal_access_tokens',
                    ['user_id'])
    _count_private_rows()


def downgrade():
    _forget_private_rows()
    op.drop_index('ix_personal_access_tokens_user_id', 'personal_access_tokens')
    op.drop_table('personal_access_tokens')
    for resource in reversed(RESOURCES):
        table = f'{resource[:-1]}_grants'
        op.drop_index(f'ix_{table}_group_id_resource_id', table)
        op.drop_index(f'ix_{table}_user_id_resource_id', table)
        op.drop_table(table)
    op.drop_index('ix_group_members_user_id', 'group_members')
    op.drop_table('group_members')
    op.drop_table('groups')
    for resource in reversed(RESOURCES):
        op.drop_column(resource, 'visibility')
