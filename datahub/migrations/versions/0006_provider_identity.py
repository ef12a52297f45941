"""users of an OpenID Connect provider: issuer and subject

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 09:00:00.000000

An OIDC user is found by the ID token's ``iss`` and ``sub`` (unique together); both are
NULL for local and LDAP users, and NULLs never collide in a unique index.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


# Plain ALTER TABLE and a unique index, not a batch (table copy) on SQLite: dropping the
# old users table there would cascade into every session and refresh token.
def upgrade():
    op.add_column('users', sa.Column('provider_issuer', sa.String(length=512), nullable=True))
    op.add_column('users', sa.Column('provider_subject', sa.String(length=255), nullable=True))
    op.create_index('uq_users_provider_identity', 'users',
                    ['provider_issuer', 'provider_subject'], unique=True)


def downgrade():
    op.drop_index('uq_users_provider_identity', table_name='users')
    op.drop_column('users', 'provider_subject')
    op.drop_column('users', 'provider_issuer')
