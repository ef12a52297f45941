"""The application factory: settings, then extensions, blueprints, error handlers,
commands and request hooks, each registered by a function of its own."""

import logging
import os

from flask import has_request_context, request

log = logging.getLogger("datahub.database")

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def create_app(test_config=None):
    from datahub.app.config import DefaultConfig
    from datahub.app.config_checks import finish_config
    from datahub.app.flask_app import DataHub, NoSessions
    from datahub.app.secrets import configure_secrets

    # DATAHUB_INSTANCE_PATH moves the instance folder (database, secret, files), for
    # example to /var/lib/datahub; by default it is ./instance beside the package.
    app = DataHub(
        "datahub",
        instance_relative_config=True,
        instance_path=os.environ.get("DATAHUB_INSTANCE_PATH") or None,
    )
    app.json.sort_keys = False  # keep fields in the order the schemas declare them
    app.session_interface = NoSessions()
    app.config.from_object(DefaultConfig)
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("DATAHUB")
    if test_config is not None:
        app.config.from_mapping(test_config)

    os.makedirs(app.instance_path, exist_ok=True)
    finish_config(app.config, app.instance_path)
    configure_secrets(app)

    if app.config["ROUTING_BUILDER_CACHE"]:
        from datahub.web.url_rules import use_cached_builders

        use_cached_builders(app)
    register_extensions(app)
    register_subscribers()
    register_blueprints(app)
    register_error_handlers(app)
    register_commands(app)
    register_request_hooks(app)
    return app


def register_extensions(app):
    from werkzeug.middleware.proxy_fix import ProxyFix

    from datahub.app.extensions import api, cors, db, jwt, limiter, migrate
    from datahub.platform.database import end_reads_with_commit, tune_sqlite

    db.init_app(app)
    with app.app_context():
        tune_sqlite(db.engine, app.config["SQLITE_BUSY_TIMEOUT_MS"], request_only_reads)
        if app.config["END_READS_WITH_COMMIT"] and end_reads_with_commit(db.engine):
            app.teardown_appcontext(commit_reads)  # runs before Flask-SQLAlchemy's own
    migrate.init_app(app, db, directory=os.path.join(PACKAGE_DIR, "migrations"))
    jwt.init_app(app)
    from datahub.identity import guard
    from datahub.identity.token_loaders import register_jwt_loaders

    register_jwt_loaders(jwt)

    guard.init_app(app)

    api.init_app(app)
    limiter.init_app(app)
    if app.config["CELERY_BROKER_URL"]:  # before the request hooks: it turns the
        from datahub.pipelines.tasks import celery_init_app  # embedded worker off

        celery_init_app(app)
    if app.config["CORS_ORIGINS"]:  # no origins: no CORS, and no per-request work for it
        cors.init_app(
            app,
            resources=r"/api/*",
            origins=app.config["CORS_ORIGINS"],  # exact origins only, never a pattern or "*"
            supports_credentials=True,
            methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "X-Request-ID",
                app.config["JWT_REFRESH_CSRF_HEADER_NAME"],
            ],
            expose_headers=[
                "Retry-After",
                "X-Request-ID",
                "WWW-Authenticate",
                "Content-Disposition",
                "ETag",
                app.config["JWT_REFRESH_CSRF_HEADER_NAME"],
            ],
            max_age=600,
            send_wildcard=False,
        )
    x_for = int(app.config["PROXY_FIX_X_FOR"])
    if x_for or app.config["PROXY_FIX_X_PROTO"] or app.config["PROXY_FIX_X_HOST"]:
        app.wsgi_app = ProxyFix(
            app.wsgi_app,
            x_for=x_for,
            x_proto=int(app.config["PROXY_FIX_X_PROTO"]),
            x_host=int(app.config["PROXY_FIX_X_HOST"]),
        )


def commit_reads(exc):
    """Before the app context's session is removed: a transaction that only read ends
    with COMMIT (datahub.platform.database.end_transaction). Never raises: a failure is
    logged, and the session's close rolls back as it would have."""
    from datahub.app.extensions import db
    from datahub.events import outbox
    from datahub.platform.database import end_transaction

    if exc is not None or not db.session.registry.has():
        return
    session = db.session()
    if outbox.has_pending(session):  # events are written only with the change they tell of
        return
    try:
        end_transaction(session)
    except Exception:  # the connection is gone, say: Flask-SQLAlchemy's close must still run
        log.warning("ending a transaction that only read failed", exc_info=True)
        try:
            session.rollback()
        except Exception:
            log.debug("and so did its rollback", exc_info=True)


def request_only_reads():
    """Whether the current request, if any, only reads (SQLite's BEGIN then takes no lock)."""
    return has_request_context() and request.method in READ_METHODS


def register_subscribers():
    """What acts on events in their change's transaction (datahub.events.outbox)."""
    import datahub.pipelines.triggers  # noqa: F401  (a new version wants triggered runs)
    import datahub.search.sync  # noqa: F401  (the index follows each change, in its transaction)


def register_blueprints(app):
    from datahub.app.extensions import api
    from datahub.collections.routes import blp as collections_blp
    from datahub.datasets.checks.schemas import register_check_schemas
    from datahub.datasets.routes import blp as datasets_blp
    from datahub.docs import blp as docs_blp
    from datahub.docs import serve_docs_with_slash
    from datahub.events.routes import blp as events_blp
    from datahub.events.webhooks.routes import blp as webhooks_blp
    from datahub.identity.auth.oidc_routes import blp as oidc_blp
    from datahub.identity.auth.routes import blp as auth_blp
    from datahub.identity.groups.routes import blp as groups_blp
    from datahub.identity.users.directory_routes import blp as user_directory_blp
    from datahub.identity.users.routes import blp as users_blp
    from datahub.ops import blp as ops_blp
    from datahub.pipelines.lineage.routes import blp as lineage_blp
    from datahub.pipelines.routes import blp as pipelines_blp
    from datahub.pipelines.schemas import register_trigger_schemas
    from datahub.pipelines.steps import register_openapi_schemas
    from datahub.query.routes import blp as query_blp
    from datahub.search.routes import blp as search_blp
    from datahub.spa import blp as spa_blp

    api.register_blueprint(auth_blp)
    api.register_blueprint(oidc_blp)
    api.register_blueprint(datasets_blp)
    api.register_blueprint(collections_blp)
    api.register_blueprint(users_blp)
    api.register_blueprint(user_directory_blp)
    api.register_blueprint(groups_blp)
    api.spec.later(register_openapi_schemas)
    api.spec.later(register_trigger_schemas)
    api.spec.later(register_check_schemas)
    api.register_blueprint(pipelines_blp)
    api.register_blueprint(lineage_blp)
    api.register_blueprint(events_blp)
    api.register_blueprint(webhooks_blp)
    api.register_blueprint(search_blp)
    api.register_blueprint(query_blp)
    app.register_blueprint(ops_blp)
    app.register_blueprint(spa_blp)
    app.register_blueprint(docs_blp)
    serve_docs_with_slash(app)


def register_error_handlers(app):
    from datahub.web.error_handlers import register_error_handlers as register

    register(app)


def register_commands(app):
    from datahub.identity.commands import sessions_cli
    from datahub.identity.groups.commands import groups_cli
    from datahub.identity.users.commands import users_cli
    from datahub.pipelines.commands import worker_command
    from datahub.search.commands import search_cli

    app.cli.add_command(users_cli)
    app.cli.add_command(groups_cli)
    app.cli.add_command(worker_command)
    app.cli.add_command(sessions_cli)
    app.cli.add_command(search_cli)


def register_request_hooks(app):
    from datahub.datasets import usage
    from datahub.platform import audit
    from datahub.web import metrics
    from datahub.web.bodies import bound_request_body, settle_unread_body
    from datahub.web.logs import configure_logging
    from datahub.web.request_ids import RequestIds, audit_origin

    app.wsgi_app = RequestIds(app.wsgi_app)
    audit.read_origin_from(audit_origin)
    app.before_request(bound_request_body)  # first: before a byte of any body is read
    app.after_request(settle_unread_body)
    configure_logging(app)
    metrics.init_app(app)
    usage.init_app(app)  # views and downloads of datasets, counted as requests end
