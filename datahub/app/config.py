"""Default settings. Overridden by instance/config.py, then DATAHUB_* env, then test_config."""

import ipaddress
import os
import re
from datetime import timedelta
from urllib.parse import urlsplit

from datahub.platform.errors import ConfigurationError
from datahub.platform.ratelimit_store import storage_uri
from datahub.platform.storage import check_storage_config

_ORIGIN = re.compile(
    r"^https?://[a-z0-9.-]+(:[0-9]{1,5})?$|^https?://\[[0-9a-f:.]+\](:[0-9]{1,5})?$"
)


class DefaultConfig:
    """Every setting and its default. Each is documented by its comments (the comment
    lines above it and at the end of its line), from which docs/reference/configuration.rst
    is generated; a ``# -- Title --`` line starts a section of that page."""

    # -- Secrets and the first admin ----------------------------------------------------
    # The secrets are left unset here on purpose: create_app generates one and keeps it in
    # the instance folder (``<instance>/secret_key``) unless it is configured.

    # Signs Flask's own values. None → generated into the instance folder; a configured
    # one under 32 bytes stops start-up. Several hosts need the same one, set explicitly.
    SECRET_KEY = None
    # Signs the access and refresh tokens; as for SECRET_KEY.
    JWT_SECRET_KEY = None
    BCRYPT_ROUNDS = 12  # bcrypt cost of the password hashes
    ADMIN_EMAIL = None  # the first admin, created on an empty database; None → admin@example.com
    # The first admin's password. None → generated, and printed once when the service
    # first starts.
    ADMIN_PASSWORD = None

    # -- Database ----------------------------------------------------------------------
    # ``postgresql://`` URLs use psycopg 3.

    # The database. None → ``sqlite:///<instance>/datahub.sqlite``.
    SQLALCHEMY_DATABASE_URI = None
    SQLALCHEMY_ENGINE_OPTIONS: dict = {}  # SQLAlchemy's ``create_engine`` options
    SQLALCHEMY_TRACK_MODIFICATIONS = False  # Flask-SQLAlchemy's event system, unused
    SQLITE_BUSY_TIMEOUT_MS = 15000  # how long SQLite waits for a lock

    # -- Tokens and cookies ------------------------------------------------------------
    # flask-jwt-extended's names. Lifetimes may be given as seconds.

    JWT_ALGORITHM = "HS256"  # the algorithm tokens are signed with, and the only one accepted
    JWT_DECODE_ALGORITHMS = None  # None → only JWT_ALGORITHM
    JWT_ACCESS_TOKEN_EXPIRES = 1800  # access token lifetime, seconds
    JWT_REFRESH_TOKEN_EXPIRES = 604800  # refresh token lifetime, seconds
    JWT_ENCODE_ISSUER = "datahub"  # the tokens' ``iss``
    JWT_DECODE_ISSUER = None  # None → JWT_ENCODE_ISSUER
    JWT_ENCODE_AUDIENCE = "datahub-api"  # the tokens' ``aud``
    JWT_DECODE_AUDIENCE = None  # None → JWT_ENCODE_AUDIENCE
    JWT_ENCODE_NBF = True  # tokens carry ``nbf`` (not before)
    # The refresh cookie is ``Secure``; false only for plain-http setups (the cookie is
    # then called ``refresh_token``).
    JWT_COOKIE_SECURE = True
    JWT_COOKIE_SAMESITE = "Strict"  # the refresh cookie's SameSite; ``None`` needs Secure
    # Double-submit CSRF, for cross-site SPAs (``SameSite=None``): see the security page.
    JWT_COOKIE_CSRF_PROTECT = False
    JWT_REFRESH_COOKIE_PATH = "/api/v1/auth"  # the refresh cookie goes to the auth endpoints only
    # None → ``__Secure-refresh_token``, or ``refresh_token`` without Secure.
    JWT_REFRESH_COOKIE_NAME = None
    JWT_SESSION_COOKIE = False  # false: the refresh cookie has a Max-Age that ends with its token
    # Double-submit CSRF for cross-site SPA deployments that must use SameSite=None
    # (flask-jwt-extended's names): the non-HttpOnly cookie the SPA reads...
    JWT_REFRESH_CSRF_COOKIE_NAME = "csrf_refresh_token"
    JWT_REFRESH_CSRF_COOKIE_PATH = "/"  # ...its path...
    # ...and the header it sends back on refresh and logout.
    JWT_REFRESH_CSRF_HEADER_NAME = "X-CSRF-TOKEN"
    JWT_CSRF_CHECK_FORM = False  # the CSRF value is never read from a form

    # -- Sessions ----------------------------------------------------------------------
    # A session is a login and the refresh tokens rotated from it.

    REFRESH_REUSE_GRACE_SECONDS = 10  # a retired refresh token is accepted this long (two tabs)
    # Seconds a login lives, however often it is refreshed. None → JWT_REFRESH_TOKEN_EXPIRES.
    REFRESH_ABSOLUTE_LIFETIME = None

    # -- Rate limits -------------------------------------------------------------------
    # Flask-Limiter. Limit strings like ``5/minute;20/hour``; ``""`` turns one off.

    RATELIMIT_ENABLED = True  # rate limits on or off
    # Where counts are kept. None → ``sqlite:///<instance>/ratelimits.sqlite``, shared by
    # this host's workers; ``redis://host:6379/0`` shares counts across hosts.
    RATELIMIT_STORAGE_URI = None
    RATELIMIT_KEY_PREFIX = "datahub"  # key prefix (one per deployment sharing a Redis)
    # Flask-Limiter's strategy; the moving window allows no double burst at a window's edge.
    RATELIMIT_STRATEGY = "moving-window"
    RATELIMIT_IN_MEMORY_FALLBACK_ENABLED = True  # store unreachable → per-worker counts, not 500s
    RATE_LIMIT_LOGIN_PER_EMAIL = "5/minute;20/hour"  # login attempts per account, any outcome
    RATE_LIMIT_LOGIN_PER_ADDRESS = "30/minute"  # login attempts per client address
    RATE_LIMIT_REFRESH_PER_ADDRESS = "60/minute"  # refreshes per client address
    # ``PUT /auth/me/password`` (current-password guesses) per user.
    RATE_LIMIT_PASSWORD_CHANGE_PER_USER = "5/minute;20/hour"

    # -- Library internals -------------------------------------------------------------
    # Speed-ups that rely on a library's undocumented internals, each kept in one module
    # (docs/contributing/internals.rst). false: that library's public API only, a bit
    # slower.

    RATELIMIT_FAST_PATH = True  # datahub.web.ratelimit: skip the limiter where nothing is checked
    AUTH_LOOKUP_DIRECT_CONNECTIONS = True  # datahub.platform.database: the user lookup off the pool

    # -- Auth cache --------------------------------------------------------------------
    # datahub.identity.auth_cache: each process keeps the per-request user lookup's
    # answers while a Redis pub/sub invalidation channel is live (every commit that changes
    # a user, a session or the logout blocklist publishes on it).

    # Redis for the cache's invalidations. None: no cache, every request queries.
    # ``redis://[user:password@]host[:port]`` (pub/sub ignores the database number; the
    # channel name keeps deployments apart).
    AUTH_CACHE_REDIS_URL = None
    AUTH_CACHE_CHANNEL = "datahub:auth-cache"  # the pub/sub channel
    AUTH_CACHE_TTL_SECONDS = 10  # an answer is kept at most this long, whatever the channel
    AUTH_CACHE_MAX_ENTRIES = 10000  # kept answers per process (the oldest go first)
    AUTH_CACHE_PING_SECONDS = 0.5  # the subscriber PINGs Redis this often...
    AUTH_CACHE_LIVE_SECONDS = 1.5  # ...and the cache is used only while answered this recently
    AUTH_CACHE_REDIS_TIMEOUT = 2.0  # seconds to connect to / hear from Redis (publish, subscribe)

    # -- LDAP logins -------------------------------------------------------------------
    # datahub.identity.ldap, on when LDAP_URL is set. The service account searches
    # LDAP_USER_BASE with LDAP_USER_FILTER ({email} is replaced by the typed email,
    # escaped), then the found entry binds with the typed password. Roles: the groups
    # under LDAP_GROUP_BASE whose ``member`` is the user, mapped by LDAP_GROUP_ROLES.

    LDAP_URL = None  # ``ldap://host:389`` or ``ldaps://host:636``; None: LDAP off
    LDAP_START_TLS = False  # StartTLS on an ``ldap://`` connection before binding
    # CA certificates (PEM) to verify the server's. None → the system's CAs. Certificates
    # and host names are always verified.
    LDAP_CA_FILE = None
    LDAP_BIND_DN = None  # the service account that searches (None: anonymous)
    LDAP_BIND_PASSWORD = None  # its password
    LDAP_USER_BASE = None  # where users are searched (the whole subtree); required
    LDAP_USER_FILTER = "(mail={email})"  # the search filter; must contain ``{email}``
    LDAP_NAME_ATTRIBUTE = "cn"  # the attribute that becomes the user's ``name``
    LDAP_GROUP_BASE = None  # where groups are searched (required with group roles)
    # ``{"admin": "<group DN>", "editor": "<group DN>"}``
    LDAP_GROUP_ROLES: dict = {}
    LDAP_CONNECT_TIMEOUT = 3  # seconds to open a connection
    LDAP_RECEIVE_TIMEOUT = 5  # seconds to wait for any answer
    LDAP_POOL_SIZE = 4  # service connections a worker process keeps open

    # -- OpenID Connect logins ---------------------------------------------------------
    # datahub.identity.oidc, on when the issuer, client id and secret are all set. The
    # endpoints come from ``<issuer>/.well-known/openid-configuration``.

    OIDC_ISSUER = None  # the issuer URL, exactly as the discovery document names it; None: OIDC off
    OIDC_CLIENT_ID = None  # the client registered at the provider
    # Its secret (sent with HTTP Basic, or in the form when the provider supports only
    # ``client_secret_post``).
    OIDC_CLIENT_SECRET = None
    OIDC_SCOPES = "openid email profile"  # the scopes asked for; must contain ``openid``
    OIDC_ROLES_CLAIM = "roles"  # the ID token claim that lists datahub roles
    OIDC_PROVIDER_NAME = "OpenID Connect"  # the SPA's "Sign in with ..." button
    OIDC_TIMEOUT = 5  # seconds to connect to the provider, and to wait for each answer
    # The callback URL registered at the provider. None →
    # ``https://<host>/api/v1/auth/oidc/callback`` as the request names the host (behind a
    # proxy, with PROXY_FIX_X_PROTO / PROXY_FIX_X_HOST).
    OIDC_REDIRECT_URI = None
    OIDC_LOGIN_MAX_AGE = 600  # seconds a started login may take (its cookie's lifetime)

    # -- Requests and serving ----------------------------------------------------------
    # datahub.platform.serving.gunicorn_worker and the body bounds.

    MAX_CONTENT_LENGTH = 100 * 1024 * 1024  # the largest file (a file body: 400 File too large)
    MAX_JSON_BODY_BYTES = 1024 * 1024  # every other body (413 Request body too large)
    # A client that sends or reads nothing for this many seconds is dropped; one that keeps
    # making progress is never cut.
    CLIENT_IDLE_TIMEOUT = 60
    # Under gunicorn, read upload bodies from the socket directly (false: ``wsgi.input``).
    SOCKET_UPLOADS = True
    CORS_ORIGINS: list = []  # SPA origins allowed with credentials (exact origins only)
    PROXY_FIX_X_FOR = 0  # trusted proxies in front, for X-Forwarded-For (1 behind nginx)
    PROXY_FIX_X_PROTO = 0  # trust X-Forwarded-Proto from that many proxies
    PROXY_FIX_X_HOST = 0  # trust X-Forwarded-Host from that many proxies

    # -- Quotas ------------------------------------------------------------------------
    # Per user (datahub.quotas). None → no limit.

    QUOTA_STORAGE_BYTES = None  # bytes of the files of the datasets a user owns (507)
    QUOTA_DATASETS = None  # datasets a user owns (403)
    QUOTA_QUEUED_RUNS = 5  # runs queued or running over a user's pipelines (429)

    # -- Metrics and logs --------------------------------------------------------------
    # datahub.web.metrics, datahub.web.logs.

    # Who may read ``GET /metrics``: CIDR networks of client addresses as the app sees
    # them, after PROXY_FIX_X_FOR (a JSON list or comma-separated).
    METRICS_ALLOWED_NETWORKS: list = ["127.0.0.0/8", "::1/128"]
    # The log lines' format, ``text`` or ``json`` (one JSON object per line, gunicorn's
    # lines too).
    LOG_FORMAT = "text"

    # -- Pipelines and previews --------------------------------------------------------
    # datahub.pipelines: where runs execute and how. Runs never execute in a process that
    # answers HTTP. The bounds (PIPELINE_MAX_*, the timeouts) make a pathological file or
    # step list fail fast instead of holding a worker.

    # True: gunicorn's master starts and supervises one ``flask --app datahub worker``
    # process (restarted if it dies); False: start workers yourself (any number, any host).
    PIPELINE_EMBEDDED_WORKER = True
    PIPELINE_CONCURRENCY = 1  # runs at once per worker process (each in its own process)
    PIPELINE_POLL_SECONDS = 1.0  # an idle worker looks for queued runs this often
    PIPELINE_HEARTBEAT_SECONDS = 0.5  # a running run's heartbeat (and how soon cancel stops it)
    PIPELINE_STALE_AFTER_SECONDS = 60  # no heartbeat this long: the run is failed
    # DuckDB's memory per run (and per preview) before it spills to PIPELINE_TEMP_DIR.
    PIPELINE_MEMORY_LIMIT = "512MB"
    # A run's (or preview's) process is killed once its resident memory passes
    # PIPELINE_MEMORY_LIMIT plus this (DuckDB's limit does not bound every allocation).
    PIPELINE_MEMORY_MARGIN = "150MB"
    PIPELINE_THREADS = None  # DuckDB's threads per run; None → one per CPU
    # Where each run's folder (spills, staged output) goes. None → the system's temporary
    # folder.
    PIPELINE_TEMP_DIR = None
    PIPELINE_MAX_STEPS = 100  # steps in a pipeline (422 at create/patch; a run fails)
    PIPELINE_MAX_COLUMNS = 10000  # columns in the source (and in any step's result)
    PIPELINE_MAX_LINE_SIZE = 4194304  # bytes in one line of a CSV source
    PIPELINE_TIMEOUT_SECONDS = 300  # a run still working after this long is failed
    PIPELINE_MAX_OUTPUT_BYTES = None  # a run's output file (None → MAX_CONTENT_LENGTH)
    PREVIEW_MAX_ROWS = 1000  # the largest ``limit`` of GET /datasets/{id}/preview
    PREVIEW_MAX_BYTES = 1024 * 1024  # a preview's JSON, long cells cut (else 422)
    PREVIEW_TIMEOUT_SECONDS = 10  # a preview still working after this long: 422
    PREVIEW_CONCURRENCY = 2  # previews at once per web process (each in its own process)

    # -- Pipeline runs through Celery --------------------------------------------------
    # datahub.pipelines.tasks, on when CELERY_BROKER_URL is set. Then creating a run sends
    # a task, ``flask --app datahub worker`` is a Celery worker, and
    # PIPELINE_EMBEDDED_WORKER is ignored (false).

    CELERY_BROKER_URL = None  # the Redis broker, e.g. ``redis://host:6379/5``; None: no Celery
    CELERY_VISIBILITY_TIMEOUT = 3600  # seconds before an unacked message is delivered again
    # Runs at once per worker process. 1: a run's DuckDB already uses every CPU
    # (PIPELINE_THREADS) and up to PIPELINE_MEMORY_LIMIT; start more workers to scale.
    CELERY_CONCURRENCY = 1
    PIPELINE_REDISPATCH_SECONDS = 30  # a run still queued this long after its send is re-sent

    # -- File storage ------------------------------------------------------------------
    # datahub.platform.storage. Credentials and region for S3 come from boto3's usual chain
    # (``AWS_ACCESS_KEY_ID``, ``AWS_DEFAULT_REGION``, ``~/.aws``, an instance role...).

    STORAGE_PATH = None  # the folder uploaded files go to; None → ``<instance>/storage``
    # None or ``file://...`` → the folder STORAGE_PATH; ``s3://bucket/prefix`` → that
    # bucket, under that prefix.
    STORAGE_URL = None
    S3_ENDPOINT_URL = None  # None → AWS; ``http://host:9000`` for MinIO, Ceph, moto
    S3_REGION = None  # the bucket's region; None → boto3's chain
    # Bytes per part of a multipart upload: 5 MiB to 5 GiB, and MAX_CONTENT_LENGTH in at
    # most 10,000 parts.
    S3_PART_SIZE = 8 * 1024 * 1024
    S3_UPLOAD_CONCURRENCY = 2  # parts of one upload sent at once (memory: this + 1 parts)
    # Incomplete uploads and unreferenced objects younger than this are left alone by the
    # sweep at worker start: another host may be uploading them right now.
    S3_SWEEP_AFTER_SECONDS = 86400
    STORAGE_PRESIGNED_DOWNLOADS = False  # S3: downloads answer 302 to a presigned URL
    STORAGE_PRESIGNED_EXPIRES = 300  # seconds a presigned URL stays valid

    # -- OpenAPI document --------------------------------------------------------------
    # flask-smorest's names.

    API_TITLE = "datahub"  # the document's title
    API_VERSION = "v1"  # the document's version
    OPENAPI_VERSION = "3.0.3"  # the OpenAPI version it is written in
    OPENAPI_URL_PREFIX = "/api/v1"  # where the document and its docs page are served
    OPENAPI_JSON_PATH = "openapi.json"  # the document, under OPENAPI_URL_PREFIX
    OPENAPI_SWAGGER_UI_PATH = "docs"  # the Swagger UI page, under OPENAPI_URL_PREFIX
    # Served by datahub.docs from the installed swagger-ui-bundle package, never a CDN.
    OPENAPI_SWAGGER_UI_URL = "docs/assets/"
    # No validator badge: it would send the document's URL to validator.swagger.io.
    OPENAPI_SWAGGER_UI_CONFIG = {"validatorUrl": None}
    OPENAPI_REDOC_PATH = None  # no ReDoc page


def as_timedelta(value):
    """Lifetimes may come from JSON env values as plain seconds."""
    if isinstance(value, timedelta):
        return value
    return timedelta(seconds=int(value))


def normalise_origins(value):
    """CORS_ORIGINS as a list of exact ``scheme://host[:port]`` origins (lower-cased).

    A pattern, a path or ``*`` stops start-up: the list is used both by flask-cors and by
    the Origin check of the cookie endpoints, and a credentialed wildcard would let any
    site read the API as the user.
    """
    from datahub.platform.errors import ConfigurationError

    if value is None:
        return []
    if isinstance(value, str):
        value = [item for item in value.split(",") if item.strip()]
    origins = []
    for item in value:
        origin = normalise_origin(str(item))
        if not _ORIGIN.match(origin):
            raise ConfigurationError(
                f"CORS_ORIGINS entry {item!r} is not an origin like https://app.example.com "
                "(scheme, host and optional port; no path, pattern or wildcard)"
            )
        origins.append(origin)
    return origins


_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_origin(origin):
    """``scheme://host[:port]`` lower-cased, without a default port: how browsers write
    the Origin header. Anything that is not such an origin comes back merely trimmed."""
    origin = origin.strip().rstrip("/").lower()
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return origin
    if (
        not parts.scheme
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username
        or parts.password
    ):
        return origin
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if port is None or port == _DEFAULT_PORTS.get(parts.scheme):
        return f"{parts.scheme}://{host}"
    return f"{parts.scheme}://{host}:{port}"


def parse_networks(value):
    """METRICS_ALLOWED_NETWORKS as ``ip_network`` objects, from a list or a comma-separated
    string of CIDR networks; anything else stops start-up."""
    if isinstance(value, str):
        value = [item for item in value.split(",") if item.strip()]
    if not isinstance(value, (list, tuple)):
        raise ConfigurationError(
            "METRICS_ALLOWED_NETWORKS must be a list of CIDR networks, e.g. "
            '["127.0.0.0/8", "10.0.0.0/8"]'
        )
    networks = []
    for item in value:
        try:
            networks.append(ipaddress.ip_network(str(item).strip()))
        except ValueError as exc:
            raise ConfigurationError(
                f"METRICS_ALLOWED_NETWORKS entry {item!r} is not a CIDR network like "
                f"10.0.0.0/8 or ::1/128 ({exc})"
            ) from None
    return tuple(networks)


def check_ldap_config(config):
    """LDAP settings that cannot work are refused at start-up, not at the first login."""
    if not config.get("LDAP_URL"):
        return
    if not str(config["LDAP_URL"]).lower().startswith(("ldap://", "ldaps://")):
        raise ConfigurationError("LDAP_URL must start with ldap:// or ldaps://")
    if not config.get("LDAP_USER_BASE"):
        raise ConfigurationError("LDAP_URL is set but LDAP_USER_BASE is not")
    if "{email}" not in str(config.get("LDAP_USER_FILTER") or ""):
        raise ConfigurationError("LDAP_USER_FILTER must contain {email}")
    roles = config.get("LDAP_GROUP_ROLES") or {}
    if not isinstance(roles, dict) or not set(roles) <= {"viewer", "editor", "admin"}:
        raise ConfigurationError(
            'LDAP_GROUP_ROLES must map roles to group DNs: {"admin": "cn=...", ...}'
        )
    if roles and not config.get("LDAP_GROUP_BASE"):
        raise ConfigurationError("LDAP_GROUP_ROLES is set but LDAP_GROUP_BASE is not")


def check_oidc_config(config):
    """OIDC settings half set, or an issuer that is not a URL, stop the start-up."""
    keys = ("OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET")
    given = [key for key in keys if config.get(key)]
    if not given:
        return
    if len(given) < len(keys):
        missing = ", ".join(key for key in keys if key not in given)
        raise ConfigurationError(f"OIDC logins need {missing} too (or none of {', '.join(keys)})")
    if not str(config["OIDC_ISSUER"]).lower().startswith(("https://", "http://")):
        raise ConfigurationError("OIDC_ISSUER must be an https:// URL")
    if "openid" not in str(config.get("OIDC_SCOPES") or "").split():
        raise ConfigurationError("OIDC_SCOPES must contain openid")


def check_isolation_config(config):
    """The memory settings must be sizes DuckDB and the process watch read alike."""
    from datahub.platform.isolation import parse_size

    for key in ("PIPELINE_MEMORY_LIMIT", "PIPELINE_MEMORY_MARGIN"):
        try:
            if parse_size(config[key]) <= 0 and key == "PIPELINE_MEMORY_LIMIT":
                raise ValueError("must be more than 0")
        except ValueError as exc:
            raise ConfigurationError(f"{key}: {exc}") from None
    for key in ("PIPELINE_CONCURRENCY", "PREVIEW_CONCURRENCY"):
        if int(config[key]) < 1:
            raise ConfigurationError(f"{key} must be at least 1")


def finish_config(config, instance_path):
    """Derive the settings whose defaults depend on the instance folder or other keys."""
    if not config.get("SQLALCHEMY_DATABASE_URI"):
        path = os.path.join(instance_path, "datahub.sqlite")
        config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{path}"
    uri = config["SQLALCHEMY_DATABASE_URI"]
    if uri.startswith(("postgres://", "postgresql://")):  # psycopg 3, not psycopg2
        config["SQLALCHEMY_DATABASE_URI"] = "postgresql+psycopg://" + uri.split("://", 1)[1]
    if uri.startswith("sqlite"):
        engine_options = dict(config.get("SQLALCHEMY_ENGINE_OPTIONS") or {})
        engine_options.setdefault("connect_args", {}).setdefault(
            "timeout", config["SQLITE_BUSY_TIMEOUT_MS"] / 1000
        )
        config["SQLALCHEMY_ENGINE_OPTIONS"] = engine_options
    else:
        config["SQLALCHEMY_ENGINE_OPTIONS"] = {
            "pool_pre_ping": True,
            **(config.get("SQLALCHEMY_ENGINE_OPTIONS") or {}),
        }
    if not config.get("STORAGE_PATH"):
        config["STORAGE_PATH"] = os.path.join(instance_path, "storage")
    if not config.get("RATELIMIT_STORAGE_URI"):
        config["RATELIMIT_STORAGE_URI"] = storage_uri(
            os.path.join(instance_path, "ratelimits.sqlite")
        )

    config["JWT_ACCESS_TOKEN_EXPIRES"] = as_timedelta(config["JWT_ACCESS_TOKEN_EXPIRES"])
    config["JWT_REFRESH_TOKEN_EXPIRES"] = as_timedelta(config["JWT_REFRESH_TOKEN_EXPIRES"])
    config["JWT_DECODE_ALGORITHMS"] = config.get("JWT_DECODE_ALGORITHMS") or [
        config["JWT_ALGORITHM"]
    ]
    config["JWT_DECODE_ISSUER"] = config.get("JWT_DECODE_ISSUER") or config["JWT_ENCODE_ISSUER"]
    config["JWT_DECODE_AUDIENCE"] = (
        config.get("JWT_DECODE_AUDIENCE") or config["JWT_ENCODE_AUDIENCE"]
    )
    # Access tokens come only from the header; refresh tokens only from the cookie (each
    # view names its one location explicitly).
    config["JWT_TOKEN_LOCATION"] = ["headers", "cookies"]
    config["JWT_HEADER_TYPE"] = "Bearer"
    config["REFRESH_ABSOLUTE_LIFETIME"] = as_timedelta(
        config.get("REFRESH_ABSOLUTE_LIFETIME") or config["JWT_REFRESH_TOKEN_EXPIRES"]
    )
    config["CORS_ORIGINS"] = normalise_origins(config.get("CORS_ORIGINS"))
    config["METRICS_ALLOWED_NETWORKS"] = parse_networks(config.get("METRICS_ALLOWED_NETWORKS"))
    config["LOG_FORMAT"] = str(config.get("LOG_FORMAT") or "text").strip().lower()
    if config["LOG_FORMAT"] not in ("text", "json"):
        raise ConfigurationError("LOG_FORMAT must be text or json")
    check_ldap_config(config)
    check_oidc_config(config)
    check_storage_config(config)
    check_isolation_config(config)
    if str(config["JWT_COOKIE_SAMESITE"]).lower() == "none" and not config["JWT_COOKIE_SECURE"]:
        raise ConfigurationError(
            "JWT_COOKIE_SAMESITE=None needs JWT_COOKIE_SECURE: browsers drop such a cookie"
        )
    if not config.get("JWT_REFRESH_COOKIE_NAME"):
        secure = config["JWT_COOKIE_SECURE"]
        config["JWT_REFRESH_COOKIE_NAME"] = "__Secure-refresh_token" if secure else "refresh_token"
