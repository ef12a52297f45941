"""Extension objects, bound to the app in ``create_app``."""

from flask_cors import CORS
from flask_jwt_extended import JWTManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

from datahub.web.api import Api
from datahub.web.ratelimit import Limiter, client_address, rate_limit_breached


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


# Limits are attached to views (datahub.identity.auth.routes); Retry-After is computed by the error
# handler (datahub.web.error_handlers), so no X-RateLimit headers are added to ordinary responses.
limiter = Limiter(
    key_func=client_address,
    headers_enabled=False,
    on_breach=rate_limit_breached,
)
cors = CORS()
