"""Default settings. Overridden by instance/config.py, then DATAHUB_* env, then test_config."""
from datetime import timedelta


class DefaultConfig:
    # Secrets: left unset here on purpose. create_app generates one and keeps it in the
    # instance folder (see datahub.secrets) unless SECRET_KEY / JWT_SECRET_KEY are configured.
    SECRET_KEY = None
    JWT_SECRET_KEY = None

    SQLALCHEMY_DATABASE_URI = None  # None → sqlite:///<instance>/datahub.sqlite
    SQLALCHEMY_ENGINE_OPTIONS: dict = {}
    SQLALCHEMY_TRACK_MODIFICATIONS = False
    SQLITE_BUSY_TIMEOUT_MS = 15000

    # Tokens (flask-jwt-extended names). Lifetimes may be given as seconds.
    JWT_ALGORITHM = "HS256"
    JWT_DECODE_ALGORITHMS = None  # None → only JWT_ALGORITHM
    JWT_ACCESS_TOKEN_EXPIRES = 1800
    JWT_REFRESH_TOKEN_EXPIRES = 604800
    JWT_ENCODE_ISSUER = "datahub"
    JWT_DECODE_ISSUER = None  # None → JWT_ENCODE_ISSUER
    JWT_ENCODE_AUDIENCE = "datahub-api"
    JWT_DECODE_AUDIENCE = None  # None → JWT_ENCODE_AUDIENCE
    JWT_ENCODE_NBF = True
    JWT_COOKIE_SECURE = True
    JWT_COOKIE_SAMESITE = "Strict"
    JWT_COOKIE_CSRF_PROTECT = False
    JWT_REFRESH_COOKIE_PATH = "/api/v1/auth"
    JWT_REFRESH_COOKIE_NAME = None  # None → __Secure-refresh_token, or refresh_token without Secure
    JWT_SESSION_COOKIE = False

    BCRYPT_ROUNDS = 12
    MAX_CONTENT_LENGTH = 100 * 1024 * 1024
    STORAGE_PATH = None  # None → <instance>/storage
    CORS_ORIGINS: list = []
    ADMIN_EMAIL = None
    ADMIN_PASSWORD = None
    PROXY_FIX_X_FOR = 0
    PROXY_FIX_X_PROTO = 0
    PROXY_FIX_X_HOST = 0

    # OpenAPI (flask-smorest names)
    API_TITLE = "datahub"
    API_VERSION = "v1"
    OPENAPI_VERSION = "3.0.3"
    OPENAPI_URL_PREFIX = "/api/v1"
    OPENAPI_JSON_PATH = "openapi.json"
    OPENAPI_SWAGGER_UI_PATH = "docs"
    OPENAPI_SWAGGER_UI_URL = "https://cdn.jsdelivr.net/npm/swagger-ui-dist/"
    OPENAPI_REDOC_PATH = None


def as_timedelta(value):
    """Lifetimes may come from JSON env values as plain seconds."""
    if isinstance(value, timedelta):
        return value
    return timedelta(seconds=int(value))
