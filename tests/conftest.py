"""Fixtures: ``app``, ``client``, ``runner``, users and logged-in headers.

The suite runs on SQLite by default and on PostgreSQL when DATAHUB_TEST_DATABASE_URL is set
(for example ``postgresql+psycopg://postgres@127.0.0.1:5432/test``). The schema is built
once per session by the real migrations; every test starts from empty tables.
"""

import os

import flask_migrate
import pytest
import sqlalchemy as sa

from datahub import create_app
from datahub.app.extensions import db
from datahub.datasets import usage
from datahub.identity.users.services import create_user
from tests import workers
from tests.s3_server import s3_prefix, s3_server  # noqa: F401  (fixtures)

PASSWORD = "correct horse battery"
TEST_SECRET = "test-secret-" + "x" * 40

# Tests whose subject does not touch the database's dialect: the client package's own tests
# and the Python client's against a server, generated clients, the browser, OpenLineage's
# events, nginx in front of gunicorn, gunicorn facing slow clients and streaming uploads,
# curl's cookie jar, gunicorn's metrics, workers and shutdown, the rate-limit counts (kept
# in the instance folder, not the database), the documentation's walk-through, the
# contract fuzz (what a hostile value does to each database is tests/test_hostile_values.py,
# run on both), DuckDB's side of pipelines and datasets (the engine, its bounds, damaged
# files, each step operator and cast, the sql step's checks and sandbox, previews and
# diffs), the steps' request validation, and the 422 mapping's independence of
# marshmallow's English. The cluster (tests/e2e/cluster.py) runs on PostgreSQL in either
# pass, and the fault tests' on a PostgreSQL server of their own. With DATAHUB_TEST_SKIP_DATABASE_INDEPENDENT=1 they are deselected: CI's second pass
# (on PostgreSQL) does so to stay within its time budget, the first pass having run them.
DATABASE_INDEPENDENT = (
    "clients/python/tests/",
    "tests/client/",
    "tests/clients/",
    "tests/e2e/test_cluster.py",
    "tests/e2e/test_contract_fuzz.py",
    "tests/e2e/test_docs_javascript.py",
    "tests/e2e/test_docs_offline.py",
    "tests/e2e/test_faults.py",
    "tests/e2e/test_gunicorn_curl.py",
    "tests/e2e/test_metrics_gunicorn.py",
    "tests/e2e/test_nginx.py",
    "tests/e2e/test_nginx_slow_clients.py",
    "tests/e2e/test_rate_limits_workers.py",
    "tests/e2e/test_readme.py",
    "tests/e2e/test_shutdown.py",
    "tests/e2e/test_slow_clients.py",
    "tests/e2e/test_unauthenticated_uploads.py",
    "tests/e2e/test_uploads.py",
    "tests/spa/",
    "tests/web/",
    "tests/datasets/test_diffs.py",
    "tests/datasets/test_preview.py",
    "tests/datasets/test_preview_bounds.py",
    "tests/pipelines/test_bounds.py",
    "tests/pipelines/test_cast.py",
    "tests/pipelines/test_damaged_files.py",
    "tests/pipelines/test_engine.py",
    "tests/pipelines/lineage/test_openlineage.py",
    "tests/pipelines/test_sandbox.py",
    "tests/pipelines/test_sql_check.py",
    "tests/pipelines/test_step_validation.py",
    "tests/pipelines/test_steps.py",
    "tests/pipelines/test_validation.py",
    "tests/test_docs_site.py",
    "tests/test_validation_identity.py",
)


def pytest_collection_modifyitems(config, items):
    # The end-to-end tests first (a stable sort): they are the long ones, and started
    # early on pytest-xdist's workers they do not leave one worker busy at the end.
    items.sort(key=lambda item: item.get_closest_marker("e2e") is None)
    if os.environ.get("DATAHUB_TEST_SKIP_DATABASE_INDEPENDENT") != "1":
        return
    root = str(config.rootpath) + os.sep
    kept, left_out = [], []
    for item in items:
        path = str(item.path).removeprefix(root).replace(os.sep, "/")
        (left_out if path.startswith(DATABASE_INDEPENDENT) else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.fixture(scope="session")
def database_url(tmp_path_factory):
    """SQLite in a temporary folder, or PostgreSQL: DATAHUB_TEST_DATABASE_URL's database,
    emptied, or under pytest-xdist a database of the worker's own (tests.workers)."""
    if not os.environ.get("DATAHUB_TEST_DATABASE_URL"):
        return f"sqlite:///{tmp_path_factory.mktemp('db') / 'test.sqlite'}"
    url = workers.postgres_url()
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as conn:  # fails loudly when the server is unreachable
        conn.execute(sa.text("DROP SCHEMA public CASCADE"))
        conn.execute(sa.text("CREATE SCHEMA public"))
    engine.dispose()
    return url


@pytest.fixture(scope="session", autouse=True)
def instance_outside_the_repository(tmp_path_factory):
    """Every app the tests build keeps its instance folder (rate-limit counts, a generated
    secret) in a temporary folder, never in the repository's ``instance/``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DATAHUB_INSTANCE_PATH", str(tmp_path_factory.mktemp("instance")))
        yield


@pytest.fixture(scope="session")
def base_config(database_url, tmp_path_factory):
    return {
        "TESTING": True,
        "SQLALCHEMY_DATABASE_URI": database_url,
        "SECRET_KEY": TEST_SECRET,
        "JWT_SECRET_KEY": TEST_SECRET,
        "BCRYPT_ROUNDS": 4,
        "PIPELINE_EMBEDDED_WORKER": False,  # tests execute runs with worker.run_once
        "STORAGE_PATH": str(tmp_path_factory.mktemp("storage")),
    }


@pytest.fixture(scope="session")
def migrated(base_config):
    app = create_app(base_config)
    with app.app_context():
        flask_migrate.upgrade()
        db.engine.dispose()
    return True


@pytest.fixture
def config_overrides():
    """Override in a test module (or parametrize) to change the app's configuration."""
    return {}


@pytest.fixture
def app(migrated, base_config, config_overrides, tmp_path_factory):
    from datahub.app.extensions import limiter

    # A fresh instance folder, hence a fresh rate-limit file (the default storage), per
    # test: no count carries over from another test. (Not the ``monkeypatch`` fixture: a
    # test's own patches must be undone before this teardown runs.)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DATAHUB_INSTANCE_PATH", str(tmp_path_factory.mktemp("instance")))
        app = create_app({**base_config, **config_overrides})
        if app.config["RATELIMIT_STORAGE_URI"].startswith("memory"):
            with app.app_context():
                limiter.reset()
        yield app
        usage.counts_of(app).take()  # a test's unwritten counts: not written at exit
        with app.app_context():
            db.session.remove()
            with db.engine.begin() as conn:
                delete_all_rows(conn)
            db.engine.dispose()
        # The guard's lookup connections are outside the pool: closed now, not when the
        # app is collected (PostgreSQL's 100 connections ran out with apps left to the GC).
        app.extensions["datahub.access_guard"].connections.close()
        empty_storage(app.config["STORAGE_PATH"])


def empty_storage(folder):
    """The files of the rows just deleted: no test finds another test's files."""
    if os.path.isdir(folder):
        for entry in os.scandir(folder):
            if entry.is_file():
                os.unlink(entry.path)


def delete_all_rows(conn):
    """Empty every table but ``row_counts``, which its triggers keep as the rows go."""
    for table in reversed(db.metadata.sorted_tables):
        if table.name != "row_counts":
            conn.execute(table.delete())


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def make_user(app):
    """Create a local user; returns it (detached, attributes loaded)."""

    def make(email="user@example.com", password=PASSWORD, name="A User", roles=("viewer",)):
        with app.app_context():
            user = create_user(email=email, password=password, name=name, roles=list(roles))
            db.session.refresh(user)
            db.session.expunge(user)
            return user

    return make


def login(client, email="user@example.com", password=PASSWORD):
    return client.post("/api/v1/auth/login", json={"email": email, "password": password})


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def auth_headers(client, make_user):
    """Log a new user in; returns ``headers_for(email, roles)`` → bearer headers."""

    def headers_for(email="user@example.com", roles=("viewer",)):
        make_user(email=email, roles=roles)
        response = login(client, email)
        assert response.status_code == 200, response.get_json()
        return bearer(response.get_json()["access_token"])

    return headers_for
