"""The migrations (SQLite and PostgreSQL): 0003 on a database that already has logins, and
the models agreeing with what the migrations build."""
import pprint
import uuid
from datetime import timedelta

import flask_migrate
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from datahub.database import UTCDateTime, utcnow
from datahub.extensions import db
from tests.auth.helpers import COOKIE, PATH, refresh
from tests.auth.tokens import forge


def test_0003_turns_existing_refresh_families_into_sessions(app, client):
    now = utcnow().replace(microsecond=0)
    user_id, live, ended = (str(uuid.uuid4()) for _ in range(3))
    tokens = {name: str(uuid.uuid4()) for name in ("live1", "live2", "ended")}
    insert_token = sa.text(
        "INSERT INTO refresh_tokens (jti, user_id, family_id, issued_at, expires_at, "
        "revoked_at, user_agent, client_address) VALUES (:jti, :user, :family, :issued, "
        ":expires, :revoked, 'Old/1.0', '192.0.2.1')"
    ).bindparams(*(sa.bindparam(name, type_=UTCDateTime()) for name in ("issued", "expires", "revoked")))
    with app.app_context():
        flask_migrate.downgrade(revision="0001")
        try:
            with db.engine.begin() as conn:
                conn.execute(sa.text(
                    "INSERT INTO users (id, email, name, is_active, provider, roles, created_at, "
                    "token_version) VALUES (:id, 'old@example.com', 'Old', :yes, 'local', '[]', "
                    ":created, 0)").bindparams(sa.bindparam("created", type_=UTCDateTime()),
                                               sa.bindparam("yes", type_=sa.Boolean())),
                    {"id": user_id, "created": now, "yes": True})
                rows = [
                    (tokens["live1"], live, now - timedelta(hours=2), None),
                    (tokens["live2"], live, now - timedelta(hours=1), None),
                    (tokens["ended"], ended, now - timedelta(hours=3), now - timedelta(hours=1)),
                ]
                for jti, family, issued, revoked in rows:
                    conn.execute(insert_token, {"jti": jti, "user": user_id, "family": family,
                                                "issued": issued, "expires": issued + timedelta(days=7),
                                                "revoked": revoked})
        finally:
            flask_migrate.upgrade()
        sessions = {row.id: row for row in db.session.execute(sa.text(
            "SELECT id, user_id, revoked_reason, user_agent, client_address FROM auth_sessions"))}
        db.session.remove()

    assert set(sessions) == {live, ended}
    assert sessions[live].revoked_reason is None and sessions[ended].revoked_reason == "logout"
    assert (sessions[live].user_agent, sessions[live].client_address) == ("Old/1.0", "192.0.2.1")

    # The old cookies go on working (or not) as before.
    client.set_cookie(COOKIE, forge(user_id, type_="refresh", jti=tokens["live2"], fam=live,
                                    lifetime=3600), path=PATH)
    assert refresh(client).status_code == 200
    client.set_cookie(COOKIE, forge(user_id, type_="refresh", jti=tokens["ended"], fam=ended,
                                    lifetime=3600), path=PATH)
    assert refresh(client).get_json() == {"detail": "Token has been revoked"}


def test_models_and_migrations_agree(app):
    """Alembic's autogenerate finds nothing to do on the freshly migrated database: every
    table, column (type, nullability, server default), index, unique and foreign key of
    the models is what the migrations built."""
    with app.app_context(), db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True})
        differences = compare_metadata(context, db.metadata)
    assert differences == [], pprint.pformat(differences)
