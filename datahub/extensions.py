"""Extension objects, bound to the app in ``create_app``."""
import flask_limiter
from flask import request
from flask_cors import CORS
from flask_jwt_extended import JWTManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

from datahub.api import Api


class Base(DeclarativeBase):
    # Named constraints, so later migrations can alter them (SQLite batch mode needs names).
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
jwt = JWTManager()
api = Api()


def client_address():
    """The client's address as the app sees it: after ProxyFix, which trusts
    X-Forwarded-For only for the configured number of proxies (PROXY_FIX_X_FOR)."""
    return request.remote_addr or "unknown"


class Limiter(flask_limiter.Limiter):
    """Flask-Limiter keeps a few settings from the first ``init_app`` it sees. One process
    serves one app, but tests build an app per test: rebinding takes the new app's
    configuration (storage, key prefix, enabled) instead of the first one's."""

    def init_app(self, app):
        self.enabled = True
        self._strategy = None
        self._swallow_errors = None
        self._fail_on_first_breach = None
        self._key_prefix = ""
        self._storage_options = {}
        self._storage_dead = False
        self._in_memory_fallback_enabled = False
        super().init_app(app)


def _rate_limit_breached(request_limit):
    from datahub.audit import audit

    audit("rate_limited", limit=str(request_limit.limit), endpoint=request.endpoint)


# Limits are attached to views (datahub.auth.routes); Retry-After is computed by the error
# handler (datahub.errors), so no X-RateLimit headers are added to ordinary responses.
limiter = Limiter(
    key_func=client_address,
    headers_enabled=False,
    on_breach=_rate_limit_breached,
)
cors = CORS()
