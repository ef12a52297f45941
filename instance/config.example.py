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

# Rate-limit counts: by default in instance/ratelimits.sqlite, shared by this host's
# workers. Several hosts: share them through Redis.
# RATELIMIT_STORAGE_URI = "redis://127.0.0.1:6379/0"
# RATE_LIMIT_LOGIN_PER_EMAIL = "5/minute;20/hour"
# RATE_LIMIT_LOGIN_PER_ADDRESS = "30/minute"           # failed logins
# RATE_LIMIT_LOGIN_SUCCESS_PER_ADDRESS = "120/minute"  # successful logins
# RATE_LIMIT_REFRESH_PER_ADDRESS = "60/minute"

# Sessions: a login lives at most this long however often it is refreshed (seconds), and
# a retired refresh cookie is still answered this long (two tabs refreshing at once).
# REFRESH_ABSOLUTE_LIFETIME = 7 * 24 * 3600
# REFRESH_REUSE_GRACE_SECONDS = 10

# Single-page apps on other origins (exact origins, no wildcards):
# CORS_ORIGINS = ["https://app.example.com"]
# An SPA on another *site* needs the cookie sent cross-site, and then double-submit CSRF:
# JWT_COOKIE_SAMESITE = "None"
# JWT_COOKIE_CSRF_PROTECT = True
