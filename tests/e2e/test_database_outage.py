"""The database goes away for a moment: JSON 503s (never HTML or a traceback), /readyz
says so, and the service recovers by itself when the database is back."""

import json
import time
import urllib.error
import urllib.request

import pytest
import sqlalchemy as sa

from tests import workers
from tests.conftest import delete_all_rows
from tests.e2e.tcp_proxy import TcpProxy

pytestmark = pytest.mark.e2e


@pytest.fixture
def proxy():
    url = sa.engine.make_url(workers.postgres_url())
    proxy = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
    proxy.up()
    yield proxy
    proxy.down()


@pytest.fixture
def gunicorn_env(proxy):
    url = sa.engine.make_url(workers.postgres_url()).set(
        drivername="postgresql+psycopg", port=proxy.port, host="127.0.0.1"
    )
    return {"DATAHUB_SQLALCHEMY_DATABASE_URI": url.render_as_string(hide_password=False)}


@pytest.fixture
def app(base_config, database_url, migrated, gunicorn_env):
    """The test database is PostgreSQL here even when the suite runs on SQLite (then its
    schema is rebuilt first, as the session does for a PostgreSQL run)."""
    import flask_migrate

    from datahub import create_app
    from datahub.app.extensions import db

    postgres = workers.postgres_url()
    app = create_app({**base_config, "SQLALCHEMY_DATABASE_URI": postgres})
    with app.app_context():
        if database_url != postgres:
            with db.engine.begin() as conn:
                conn.execute(sa.text("DROP SCHEMA public CASCADE"))
                conn.execute(sa.text("CREATE SCHEMA public"))
        flask_migrate.upgrade()
    yield app
    with app.app_context():
        db.session.remove()
        with db.engine.begin() as conn:
            delete_all_rows(conn)
        db.engine.dispose()


def call(url, method="GET", body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers["Content-Type"], json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], json.loads(error.read())


def test_database_outage_and_recovery(gunicorn_server, proxy):
    base = gunicorn_server.url
    credentials = {"email": "admin@example.com", "password": gunicorn_server.admin_password()}
    status, _, body = call(f"{base}/api/v1/auth/login", "POST", credentials)
    assert status == 200
    token = body["access_token"]
    assert call(f"{base}/api/v1/auth/me", token=token)[0] == 200

    proxy.down()
    for _ in range(3):  # each worker, with stale pooled connections and without
        assert call(f"{base}/readyz") == (
            503,
            "application/json",
            {"detail": "Database unavailable"},
        )
        assert call(f"{base}/api/v1/auth/me", token=token) == (
            503,
            "application/json",
            {"detail": "Service unavailable"},
        )
        assert call(f"{base}/api/v1/auth/login", "POST", credentials) == (
            503,
            "application/json",
            {"detail": "Service unavailable"},
        )
    for _ in range(3):  # six unanswered logins in all: more than the account's 5 a minute
        assert call(f"{base}/api/v1/auth/login", "POST", credentials)[0] == 503
    assert call(f"{base}/healthz")[0] == 200  # the process itself is fine

    proxy.up()
    deadline = time.monotonic() + 15
    while call(f"{base}/readyz")[0] != 200:
        assert time.monotonic() < deadline, "the service did not recover"
        time.sleep(0.2)
    for _ in range(4):
        assert call(f"{base}/api/v1/auth/me", token=token)[0] == 200
    # Logins the service could not answer were no attempts on the account.
    assert call(f"{base}/api/v1/auth/login", "POST", credentials)[0] == 200
    assert "Traceback" not in gunicorn_server.log()  # logged as one line, not a crash
