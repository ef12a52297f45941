"""grants know whether their resource is private: a list's total counts on indexes alone

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27 14:30:00.000000

A list's total for a user who is not an admin adds the private rows the user may read
(0010). Those it holds a grant on were found by looking each granted row up in the
resource's table: 240 lookups for a viewer with 240 grants, 4 of the 6 ms that access
control added to ``GET /datasets/?limit=20`` on PostgreSQL (bench/README.rst, "Access").

Each grant now keeps ``resource_private``, and its two indexes end in it, so that count
reads the grants' indexes alone. Triggers keep it exact: a new grant copies its
resource's visibility (on PostgreSQL under a share lock on the resource row, so that a
visibility change running at the same time waits for it), and a visibility change
rewrites its resource's grants. The flag serves the count only; who may read what is
still decided from the resource's own ``visibility``.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

RESOURCES = ('datasets', 'collections', 'pipelines')

PG_FUNCTIONS = """
CREATE FUNCTION datahub_grant_copies_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SELECT visibility = ''private'' FROM %I WHERE id = $1 FOR SHARE',
                   TG_ARGV[0])
        INTO NEW.resource_private USING NEW.resource_id;
    -- No such resource: the foreign key refuses the row with its own error.
    NEW.resource_private := coalesce(NEW.resource_private, false);
    RETURN NEW;
END
$$;
CREATE FUNCTION datahub_visibility_to_grants() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('UPDATE %I SET resource_private = $1 WHERE resource_id = $2', TG_ARGV[0])
        USING NEW.visibility = 'private', NEW.id;
    RETURN NULL;
END
$$
"""


def _grants(resource):
    return f'{resource[:-1]}_grants'


def _indexes(table, private):
    middle = ['resource_private'] if private else []
    return {
        f'ix_{table}_user_id_{"private_" if private else ""}resource_id':
            ['user_id', *middle, 'resource_id'],
        f'ix_{table}_group_id_{"private_" if private else ""}resource_id':
            ['group_id', *middle, 'resource_id'],
    }


def upgrade():
    postgres = op.get_context().dialect.name == 'postgresql'
    if postgres:
        op.execute(PG_FUNCTIONS)
    for resource in RESOURCES:
        table = _grants(resource)
        op.add_column(table, sa.Column('resource_private', sa.Boolean(),
                                       server_default=sa.false(), nullable=False))
        op.execute(f"UPDATE {table} SET resource_private = EXISTS (SELECT 1 FROM {resource} "
                   f"WHERE {resource}.id = {table}.resource_id "
                   f"AND {resource}.visibility = 'private')")
        for name in _indexes(table, private=False):
            op.drop_index(name, table)
        for name, columns in _indexes(table, private=True).items():
            op.create_index(name, table, columns)
        if postgres:
            op.execute(f"CREATE TRIGGER {table}_copy_visibility BEFORE INSERT ON {table} "
                       f"FOR EACH ROW EXECUTE FUNCTION datahub_grant_copies_visibility"
                       f"('{resource}')")
            op.execute(f"CREATE TRIGGER {resource}_visibility_to_grants "
                       f"AFTER UPDATE OF visibility ON {resource} FOR EACH ROW "
                       f"WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility) "
                       f"EXECUTE FUNCTION datahub_visibility_to_grants('{table}')")
        else:
            op.execute(f"CREATE TRIGGER {table}_copy_visibility AFTER INSERT ON {table} "
                       f"BEGIN UPDATE {table} SET resource_private = (SELECT visibility = "
                       f"'private' FROM {resource} WHERE id = NEW.resource_id) "
                       f"WHERE id = NEW.id; END")
            op.execute(f"CREATE TRIGGER {resource}_visibility_to_grants "
                       f"AFTER UPDATE OF visibility ON {resource} "
                       f"WHEN OLD.visibility IS NOT NEW.visibility BEGIN "
                       f"UPDATE {table} SET resource_private = (NEW.visibility = 'private') "
                       f"WHERE resource_id = NEW.id; END")


def downgrade():
    postgres = op.get_context().dialect.name == 'postgresql'
    for resource in RESOURCES:
        table = _grants(resource)
        op.execute(f"DROP TRIGGER {resource}_visibility_to_grants"
                   + (f" ON {resource}" if postgres else ""))
        op.execute(f"DROP TRIGGER {table}_copy_visibility" + (f" ON {table}" if postgres else ""))
        for name in _indexes(table, private=True):
            op.drop_index(name, table)
        for name, columns in _indexes(table, private=False).items():
            op.create_index(name, table, columns)
        op.drop_column(table, 'resource_private')
    if postgres:
        op.execute("DROP FUNCTION datahub_visibility_to_grants()")
        op.execute("DROP FUNCTION datahub_grant_copies_visibility()")
