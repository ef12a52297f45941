"""Default settings. Overridden by instance/config.py, then DATAHUB_* env, then test_config."""


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
    # PostgreSQL: a transaction that only read ends with COMMIT rather than ROLLBACK, so
    # that psycopg keeps the statements it prepared (a rollback drops them). false: each
    # request's ROLLBACK drops them, and statements are parsed and planned nearly every
    # time they run (``{"connect_args": {"prepare_threshold": null}}`` in
    # SQLALCHEMY_ENGINE_OPTIONS: psycopg prepares none at all).
    END_READS_WITH_COMMIT = True

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
    # A store error the fall back does not catch (the store lost between a request's check
    # and its count after the view, or while another thread was falling back) is logged and
    # that one count skipped: never a 500.
    RATELIMIT_SWALLOW_ERRORS = True
    # While counting in memory, how often (seconds) each process asks the store whether it
    # is back.
    RATELIMIT_STORE_RECHECK_SECONDS = 1.0
    # A Redis store's wait for connecting and for each answer (seconds): a hung store costs
    # a request this much, then the limiter counts in memory.
    RATELIMIT_STORE_TIMEOUT_SECONDS = 0.5
    # Login attempts per account; a successful login starts the account's count again, so
    # only failures in a row lock it out.
    RATE_LIMIT_LOGIN_PER_EMAIL = "5/minute;20/hour"
    RATE_LIMIT_LOGIN_PER_ADDRESS = "30/minute"  # failed logins per client address
    # Successful logins per client address (many people may share one, behind a NAT).
    RATE_LIMIT_LOGIN_SUCCESS_PER_ADDRESS = "120/minute"
    RATE_LIMIT_REFRESH_PER_ADDRESS = "60/minute"  # refreshes per client address
    # ``PUT /auth/me/password`` (current-password guesses) per user.
    RATE_LIMIT_PASSWORD_CHANGE_PER_USER = "5/minute;20/hour"

    # -- Library internals -------------------------------------------------------------
    # Speed-ups that rely on a library's undocumented internals, each kept in one module
    # (docs/contributing/internals.rst). false: that library's public API only, a bit
    # slower.

    RATELIMIT_FAST_PATH = True  # datahub.web.ratelimit: skip the limiter where nothing is checked
    AUTH_LOOKUP_DIRECT_CONNECTIONS = True  # datahub.platform.database: the user lookup off the pool
    OPENAPI_DEFERRED = True  # datahub.web.api: the OpenAPI paths made when first read, not at start
    ROUTING_BUILDER_CACHE = True  # datahub.web.url_rules: URL builders made once per process

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
    # under LDAP_GROUP_BASE whose ``member`` is the user, mapped by LDAP_GROUP_ROLES;
    # their ``cn`` also decides the user's ``ldap`` groups (datahub.identity.group_sync).

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
    LDAP_GROUP_BASE = None  # where groups are searched (required with group roles); None: none
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
    # The ID token claim that lists the user's groups: at each login the user becomes a
    # member of exactly the ``oidc`` groups it names (docs/guides/access.rst).
    OIDC_GROUPS_CLAIM = "groups"
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
    # datahub.web.metrics, datahub.platform.metrics, datahub.web.logs.

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
    # folder. On a local storage's file system, a run's output is moved into storage, not
    # copied (docs/reference/pipelines.rst, "Output").
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
    # The SQL console (POST /api/v1/query): each query in a process of its own, with the
    # pipelines' memory limit and threads.
    QUERY_MAX_ROWS = 10000  # the largest ``limit`` of a query's JSON answer
    QUERY_MAX_RESPONSE_BYTES = 8 * 1024 * 1024  # a JSON answer: rows past it are not shown
    QUERY_MAX_BYTES = 1024**3  # a result exported as a file (?format=): else 422, nothing cut
    QUERY_TIMEOUT_SECONDS = 30  # a query still working after this long: 422
    QUERY_CONCURRENCY = 2  # queries at once per web process
    QUERY_USER_CONCURRENCY = 1  # queries at once per user per web process (else 429)
    # How often a pipeline worker reads the values of datasets whose current version the
    # search index has not read yet (a few datasets at a time, each in its own process).
    SEARCH_VALUES_SECONDS = 5
    # Reading one version's values (its first 10,000 rows) still working after this long:
    # the version is indexed without its values.
    SEARCH_VALUES_TIMEOUT_SECONDS = 30
    # How often a pipeline worker looks for versions to profile (schema and statistics,
    # once per content, each in its own process).
    PROFILE_SECONDS = 1
    # Profiling one version still working after this long: recorded as failed.
    PROFILE_TIMEOUT_SECONDS = 300
    # How often a pipeline worker looks for versions whose checks are to run, besides being
    # woken when one is made on its host (datahub.datasets.checks).
    CHECKS_SECONDS = 1
    # A version's checks still running after this long: they are errors (quarantined).
    CHECKS_TIMEOUT_SECONDS = 300

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

    # -- Dataset versions --------------------------------------------------------------
    # Every upload, run output and restore is a new version of its dataset
    # (docs/guides/versions.rst).

    # How many of a dataset's newest versions are kept; None → all. The current version,
    # pinned ones and any a running or succeeded run read are kept besides; the others are
    # removed (and their bytes, once no version refers to them) by a pipeline worker's
    # periodic sweep.
    VERSIONS_KEEP = None
    VERSIONS_PRUNE_SECONDS = 300  # how often a pipeline worker applies VERSIONS_KEEP
    # A diff between two versions still working after this long (waiting for one of the
    # PREVIEW_CONCURRENCY turns included): 422 ``Diff timed out``. Its memory is bounded
    # as a run's (PIPELINE_MEMORY_LIMIT).
    DIFF_TIMEOUT_SECONDS = 60

    # -- Dataset usage -----------------------------------------------------------------
    # Views and downloads of each dataset, its ``stats`` (docs/reference/datasets.rst,
    # "Usage statistics"), counted in each web process's memory and written in batches.

    # A process writes its counts once this many seconds have passed since it last did
    # (checked as a request ends), and when it exits: ``stats`` lag by up to this long.
    USAGE_FLUSH_SECONDS = 10

    # -- Access ------------------------------------------------------------------------
    # Who may read what (docs/guides/access.rst).

    # The visibility of a new dataset, collection or pipeline that does not say:
    # ``internal`` (every user reads it) or ``private`` (its owner, grantees and admins).
    # A run's new output dataset is private anyway when any input is.
    DEFAULT_VISIBILITY = "internal"

    # -- Search ------------------------------------------------------------------------
    # The index of datasets, collections and pipelines (docs/guides/search.rst).

    # Each change writes its search document in its own transaction. Off: changes leave
    # the index as it is (a bulk load), and ``flask --app datahub search reindex``
    # rebuilds it afterwards.
    SEARCH_INDEX_ON_WRITE = True

    # -- Events ------------------------------------------------------------------------
    # CloudEvents about datasets, versions, pipelines and runs (docs/guides/events.rst).

    # Days an event is kept; older ones are removed by the sweep that applies
    # VERSIONS_KEEP (every VERSIONS_PRUNE_SECONDS).
    EVENTS_RETENTION_DAYS = 30
    # The live stream (docs/guides/events.rst, "The live stream"), in each web worker
    # process: how often it looks for new events for its open streams.
    EVENTS_STREAM_POLL_SECONDS = 0.25
    EVENTS_STREAM_HEARTBEAT_SECONDS = 15  # a comment on a stream that sent nothing so long
    EVENTS_STREAM_RECHECK_SECONDS = 5  # how often a stream's token and user are checked again
    EVENTS_STREAMS_PER_USER = 20  # open streams of one user a worker process holds (429 past)
    EVENTS_STREAMS_MAX = 1000  # open streams a worker process holds in all (429 past)
    # Webhooks (docs/guides/events.rst, "Webhooks"), delivered by the pipeline worker
    # processes. Their URLs must be https unless this is true (development).
    WEBHOOK_ALLOW_HTTP = False
    # Addresses that resolve to loopback, private, link-local (the clouds' metadata service)
    # or reserved ranges are refused, at creation and at each delivery, unless this is true.
    WEBHOOK_ALLOW_PRIVATE = False
    WEBHOOK_TIMEOUT_SECONDS = 5  # the most one attempt takes, answer included
    # The waits before each retry of a failed delivery; after the last, it has failed.
    WEBHOOK_RETRY_SECONDS = [5, 30, 120, 600, 3600, 21600]
    WEBHOOK_MAX_FAILURES = 20  # failed attempts in a row that turn a webhook off
    WEBHOOK_POLL_SECONDS = 0.1  # how often a worker looks for events and due deliveries
    # Webhooks a worker process sends to at once (a thread each; a webhook's messages go
    # one after another, never two batches at once from all the workers).
    WEBHOOK_CONCURRENCY = 8
    WEBHOOK_CONCURRENCY_PER_OWNER = 2  # of those, how many may be one owner's webhooks
    # An owner's pings and redeliveries not yet tried: one more is a 429.
    WEBHOOK_QUEUED_REQUESTS = 5

    # -- OpenLineage -------------------------------------------------------------------
    # Pipeline runs as OpenLineage RunEvents: START, then COMPLETE, FAIL or ABORT
    # (docs/guides/versions.rst).

    # The receiver's base URL (Marquez: ``http://marquez:5000``); None → no events.
    OPENLINEAGE_URL = None
    OPENLINEAGE_ENDPOINT = "api/v1/lineage"  # the path events are POSTed to, under the URL
    OPENLINEAGE_NAMESPACE = "datahub"  # the namespace of the runs' jobs and datasets
    OPENLINEAGE_TIMEOUT_SECONDS = 5  # how long sending one event may take

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
