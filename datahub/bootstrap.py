"""Start-up work done once, before serving: migrate the schema, create the first admin."""
import secrets
import sys

import flask_migrate
import sqlalchemy as sa

from datahub.extensions import db
from datahub.identity.models import User
from datahub.users import services

DEFAULT_ADMIN_EMAIL = "admin@example.com"


def ensure_first_admin(app, out=sys.stderr):
    """On an empty database, create an admin from ADMIN_EMAIL / ADMIN_PASSWORD, or with a
    generated password printed once to ``out``. Returns the new user or None."""
    if db.session.scalar(sa.select(sa.func.count()).select_from(User)):
        return None
    email = app.config.get("ADMIN_EMAIL") or DEFAULT_ADMIN_EMAIL
    password = app.config.get("ADMIN_PASSWORD")
    generated = not password
    if generated:
        password = secrets.token_urlsafe(12)
    user = services.create_user(email=email, password=password, name="Administrator",
                                roles=["admin"])
    if generated:
        print(
            f"datahub: created the first admin {email} with password {password}\n"
            "datahub: it is shown only once; change it with "
            f"`flask --app datahub users set-password {email}`",
            file=out, flush=True,
        )
    else:
        print(f"datahub: created the first admin {email} (password from ADMIN_PASSWORD)",
              file=out, flush=True)
    return user


def prepare(app):
    """Migrate to the newest schema and make sure an admin exists."""
    with app.app_context():
        flask_migrate.upgrade()
        ensure_first_admin(app)
