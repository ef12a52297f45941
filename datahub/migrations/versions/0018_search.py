"""search: the index, READMEs, column descriptions and usage

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02 10:00:00.000000

``search_documents`` holds one row per dataset, collection and pipeline: the text that is
searched, in four weights (name; tags and column names; description, README and column
descriptions; column values), and what results are filtered, faceted and ranked by. It is
written in the transaction of each change (datahub.search.sync).

SQLite indexes it with FTS5 (external content: the index refers to the rows, triggers keep
it in step): ``search_text`` (stemmed, case- and accent-insensitive words, ranked by
``bm25``) and ``search_trigrams`` (substrings of names, tags and column names, for
suggestions). PostgreSQL with a weighted ``tsvector`` column (generated, GIN-indexed) in
the ``datahub_search`` text search configuration (English stemming after ``unaccent``) and
``pg_trgm`` indexes on the same substrings.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None

TEXT_COLUMNS = ("name", "tags", "columns", "body", "cell_values")
TRIGRAM_COLUMNS = ("name", "tags", "columns")

PG_SETUP = (
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE TEXT SEARCH CONFIGURATION datahub_search (COPY = pg_catalog.english)",
    "ALTER TEXT SEARCH CONFIGURATION datahub_search ALTER MAPPING FOR hword, hword_part, "
    "word WITH unaccent, english_stem",
)
PG_DOCUMENT = (
    "ALTER TABLE search_documents ADD COLUMN document tsvector GENERATED ALWAYS AS ("
    "setweight(to_tsvector('datahub_search'::regconfig, name), 'A') || "
    "setweight(to_tsvector('datahub_search'::regconfig, tags || ' ' || columns), 'B') || "
    "setweight(to_tsvector('datahub_search'::regconfig, body), 'C') || "
    "setweight(to_tsvector('datahub_search'::regconfig, cell_values), 'D')) STORED"
)
PG_INDEXES = (
    "CREATE INDEX ix_search_documents_document ON search_documents USING gin (document)",
    "CREATE INDEX ix_search_documents_name_trgm ON search_documents "
    "USING gin (lower(name) gin_trgm_ops)",
    "CREATE INDEX ix_search_documents_labels_trgm ON search_documents "
    "USING gin (lower(tags || ' ' || columns) gin_trgm_ops)",
)


# Letters that unicode61's remove_diacritics keeps but PostgreSQL's unaccent (and the
# query parser, datahub.search.query.fold) turn into plain ones: Tromsø is found by tromso.
FOLDED = (("ø", "o"), ("Ø", "O"), ("æ", "ae"), ("Æ", "AE"), ("ß", "ss"), ("đ", "d"),
          ("Đ", "D"), ("ł", "l"), ("Ł", "L"))


def _folded(expression):
    for letter, plain in FOLDED:
        expression = f"replace({expression}, '{letter}', '{plain}')"
    return expression


def _sqlite_fts(table, columns, tokenize, fold=False):
    names = ", ".join(columns)
    value = _folded if fold else (lambda expression: expression)
    new = ", ".join(value(f"new.{c}") for c in columns)
    old = ", ".join(value(f"old.{c}") for c in columns)
    return (
        f"CREATE VIRTUAL TABLE {table} USING fts5({names}, content='search_documents', "
        f"content_rowid='id', tokenize='{tokenize}')",
        f"CREATE TRIGGER {table}_insert AFTER INSERT ON search_documents BEGIN "
        f"INSERT INTO {table}(rowid, {names}) VALUES (new.id, {new}); END",
        f"CREATE TRIGGER {table}_delete AFTER DELETE ON search_documents BEGIN "
        f"INSERT INTO {table}({table}, rowid, {names}) VALUES ('delete', old.id, {old}); END",
        f"CREATE TRIGGER {table}_update AFTER UPDATE OF {names} ON search_documents BEGIN "
        f"INSERT INTO {table}({table}, rowid, {names}) VALUES ('delete', old.id, {old}); "
        f"INSERT INTO {table}(rowid, {names}) VALUES (new.id, {new}); END",
    )


def upgrade():
    op.add_column('datasets', sa.Column('readme', sa.Text(), server_default=sa.text("''"), nullable=False))
    op.create_table('dataset_column_descriptions',
    sa.Column('dataset_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['dataset_id'], ['datasets.id'], name=op.f('fk_dataset_column_descriptions_dataset_id_datasets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('dataset_id', 'name', name=op.f('pk_dataset_column_descriptions'))
    )
    op.create_table('dataset_usage',
    sa.Column('dataset_id', sa.Integer(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('views', sa.Integer(), server_default='0', nullable=False),
    sa.Column('downloads', sa.Integer(), server_default='0', nullable=False),
    sa.ForeignKeyConstraint(['dataset_id'], ['datasets.id'], name=op.f('fk_dataset_usage_dataset_id_datasets'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('dataset_id', 'day', name=op.f('pk_dataset_usage'))
    )
    op.create_table('search_documents',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('resource_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('tags', sa.Text(), server_default=sa.text("''"), nullable=False),
    sa.Column('columns', sa.Text(), server_default=sa.text("''"), nullable=False),
    sa.Column('body', sa.Text(), server_default=sa.text("''"), nullable=False),
    sa.Column('cell_values', sa.Text(), server_default=sa.text("''"), nullable=False),
    sa.Column('column_data', sa.JSON(), nullable=True),
    sa.Column('values_version', sa.Integer(), nullable=True),
    sa.Column('owner_id', sa.String(length=36), nullable=False),
    sa.Column('visibility', sa.String(length=16), nullable=False),
    sa.Column('format', sa.String(length=16), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('popularity', sa.Integer(), server_default='0', nullable=False),
    sa.Column('documented', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_search_documents')),
    sa.UniqueConstraint('kind', 'resource_id', name=op.f('uq_search_documents_kind')),
    sqlite_autoincrement=True,
    )
    op.create_index('ix_search_documents_updated_at', 'search_documents', ['updated_at', 'id'])
    op.create_index('ix_search_documents_owner_id', 'search_documents', ['owner_id'])
    if op.get_context().dialect.name == "postgresql":
        for statement in (*PG_SETUP, PG_DOCUMENT, *PG_INDEXES):
            op.execute(statement)
    else:
        for statement in (
            *_sqlite_fts("search_text", TEXT_COLUMNS, "porter unicode61 remove_diacritics 2", True),
            *_sqlite_fts("search_trigrams", TRIGRAM_COLUMNS, "trigram"),
        ):
            op.execute(statement)
    # What exists is searchable at once by its names, descriptions and tags; the worker
    # reads the columns and values of each current version (values_version is null).
    postgres = op.get_context().dialect.name == "postgresql"
    tags = ("string_agg(tag, chr(10) ORDER BY position)" if postgres
            else "group_concat(tag, char(10))")
    for kind, table, fmt in (
        ("dataset", "datasets", "(SELECT format FROM dataset_versions v WHERE "
         "v.dataset_id = t.id AND v.version = t.current_version)"),
        ("collection", "collections", "NULL"),
        ("pipeline", "pipelines", "NULL"),
    ):
        tag_text = (f"coalesce((SELECT {tags} FROM dataset_tags WHERE dataset_id = t.id), '')"
                    if kind == "dataset" else "''")
        op.execute(
            "INSERT INTO search_documents (kind, resource_id, name, tags, body, owner_id, "
            f"visibility, format, updated_at) SELECT '{kind}', id, name, {tag_text}, "
            f"description, owner_id, visibility, {fmt}, updated_at FROM {table} t"
        )


def downgrade():
    if op.get_context().dialect.name == "postgresql":
        op.drop_table('search_documents')
        op.execute("DROP TEXT SEARCH CONFIGURATION datahub_search")
    else:
        for table in ("search_text", "search_trigrams"):
            for event in ("insert", "delete", "update"):
                op.execute(f"DROP TRIGGER {table}_{event}")
            op.execute(f"DROP TABLE {table}")
        op.drop_table('search_documents')
    op.drop_table('dataset_usage')
    op.drop_table('dataset_column_descriptions')
    op.drop_column('datasets', 'readme')
