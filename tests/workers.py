"""What each pytest-xdist worker has of its own, so that workers run side by side
(``python -m tests`` starts them): a PostgreSQL database, Redis databases and an auth-cache
channel. Outside xdist the process is worker ``main`` and has the first worker's share.

Folders need nothing here: ``tmp_path_factory`` gives each worker a base folder of its own,
and servers the tests start listen on free ports (tests.e2e.conftest.free_port).
"""

import functools
import os
import re

import sqlalchemy as sa

DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
# Two Redis databases per worker, counted down from 15 (Redis has 16): gw0 and ``main``
# have 15 and 14, gw1 13 and 12, ... Database 0, everyone's default, is never used.
MAX_WORKERS = 7


def worker_id():
    """``gw0``, ``gw1``, ... under pytest-xdist; ``main`` otherwise."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def worker_number():
    found = re.fullmatch(r"gw(\d+)", worker_id())
    number = int(found.group(1)) if found else 0
    if number >= MAX_WORKERS:
        raise RuntimeError(f"at most {MAX_WORKERS} test workers: each has two Redis databases")
    return number


def redis_url(which=0, host="127.0.0.1:6379"):
    """``redis://`` URL of this worker's Redis database ``which`` (0 or 1). Tests may empty
    them: no other worker uses them."""
    assert which in (0, 1)
    return f"redis://{host}/{15 - 2 * worker_number() - which}"


def channel(name):
    """An auth-cache channel name of this worker's (pub/sub ignores the database number)."""
    return f"{name}:{worker_id()}"


def database_name(name):
    """``name`` under ``main``; ``name_gw1`` (for example) under xdist."""
    return name if worker_id() == "main" else f"{name}_{worker_id()}"


def postgres_server():
    """DATAHUB_TEST_DATABASE_URL when it is PostgreSQL's, else the local server's ``test``
    database."""
    url = os.environ.get("DATAHUB_TEST_DATABASE_URL") or ""
    return url if url.startswith("postgresql") else DEFAULT_POSTGRES


@functools.cache
def postgres_url():
    """The PostgreSQL database the tests use: :func:`postgres_server`'s as it is under
    ``main``; under xdist one named after the worker, created empty on first use."""
    base = postgres_server()
    if worker_id() == "main":
        return base
    return fresh_database(base, database_name(sa.engine.make_url(base).database))


def fresh_database(base, name):
    """``base`` with the database ``name``, dropped (with its connections) and created
    empty, through the server's ``postgres`` database. Fails loudly when the server is
    unreachable."""
    url = sa.engine.make_url(base)
    engine = sa.create_engine(
        url.set(drivername="postgresql+psycopg", database="postgres"), isolation_level="AUTOCOMMIT"
    )
    with engine.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return url.set(database=name).render_as_string(hide_password=False)
