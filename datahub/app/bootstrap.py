"""Start-up work done once, before serving: migrate the schema, create the first admin."""

import logging
import secrets
import sys

import flask_migrate
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.models import User
from datahub.identity.users import services

DEFAULT_ADMIN_EMAIL = "admin@example.com"


def ensure_first_admin(app):
    """On an empty database, create an admin from ADMIN_EMAIL / ADMIN_PASSWORD, or with a
    generated password. Returns the lines to tell whoever started the service (the
    generated password, shown only once), or an empty list."""
    if db.session.scalar(sa.select(sa.func.count()).select_from(User)):
        return []
    email = app.config.get("ADMIN_EMAIL") or DEFAULT_ADMIN_EMAIL
    password = app.config.get("ADMIN_PASSWORD")
    generated = not password
    if generated:
        password = secrets.token_urlsafe(12)
    services.create_user(email=email, password=password, name="Administrator", roles=["admin"])
    if not generated:
        return [f"datahub: created the first admin {email} (password from ADMIN_PASSWORD)"]
    return [
        f"datahub: created the first admin {email} with password {password}",
        "datahub: it is shown only once; change it with "
        f"`flask --app datahub users set-password {email}`",
    ]


def tell(app, lines, out=sys.stderr):
    """Print ``lines`` to ``out``; with LOG_FORMAT=json, log lines (JSON) instead."""
    if app.config["LOG_FORMAT"] == "json":
        for line in lines:
            logging.getLogger("datahub.bootstrap").warning("%s", line)
    else:
        print("\n".join(lines), file=out, flush=True)


# pg_advisory_lock key held while a host prepares the database ("datahub" in ASCII).
PREPARE_LOCK = 0x64617461687562


def prepare(app):
    """Migrate to the newest schema and make sure an admin exists; the lines to tell
    (:func:`ensure_first_admin`). On PostgreSQL, hosts starting at once take turns (an
    advisory lock): the first migrates and creates the admin, the others then find
    nothing to do."""
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            return _prepare(app)
        with db.engine.connect() as lock:
            lock.execute(sa.select(sa.func.pg_advisory_lock(PREPARE_LOCK)))
            try:
                return _prepare(app)
            finally:
                lock.execute(sa.select(sa.func.pg_advisory_unlock(PREPARE_LOCK)))
                lock.commit()


def _prepare(app):
    flask_migrate.upgrade()
    lines = ensure_first_admin(app)
    db.session.commit()
    db.session.remove()
    return lines
