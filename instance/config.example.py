# Copy to instance/config.py and adjust. Environment variables DATAHUB_<KEY> override these.

# PostgreSQL instead of the embedded SQLite file (psycopg 3):
# SQLALCHEMY_DATABASE_URI = "postgresql+psycopg://datahub@127.0.0.1:5432/datahub"

# Secrets are generated into instance/secret_key when unset; a configured one must be
# at least 32 bytes:
# JWT_SECRET_KEY = "..."

# Plain-http development only: drop Secure from the refresh cookie (it is then named
# refresh_token instead of __Secure-refresh_token).
# JWT_COOKIE_SECURE = False

# BCRYPT_ROUNDS = 12
# MAX_CONTENT_LENGTH = 100 * 1024 * 1024
# ADMIN_EMAIL = "admin@example.com"
# ADMIN_PASSWORD = "change-me-please"
# PROXY_FIX_X_FOR = 1   # behind one nginx
