"""What each pytest-xdist worker has of its own, so that workers run side by side
(``python -m tests`` starts them): a PostgreSQL database, Redis databases and an auth-cache
channel. Outside xdist the process is worker ``main`` and has the first worker's share.

Folders need nothing here: ``tmp_path_factory`` gives each worker a base folder of its own.
Servers the tests start listen on ports from :func:`free_port`, a range of each worker's.
"""

import functools
import itertools
import os
import random
import re
import socket

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


# Ports for the servers the tests start, below the kernel's ephemeral range (32768-60999:
# what bind(("127.0.0.1", 0)) and outgoing connections take) and away from the machine's
# own services. Each worker has a block of its own: a port found free and released here
# cannot be taken by another worker's server before ours binds it (as happened when every
# worker probed the ephemeral range: a host of the cluster bound nothing and its "ready"
# check was answered by another worker's gunicorn).
PORTS_BASE, PORTS_PER_WORKER = 10000, 1500
# Ports of those blocks that Chromium refuses to load a page from (its restricted ports:
# net::ERR_UNSAFE_PORT; 10080 is the only one above 10000): never given to a server.
BROWSER_UNSAFE_PORTS = frozenset({10080})


@functools.cache
def _port_candidates():
    number = MAX_WORKERS if worker_id() == "main" else worker_number()
    first = PORTS_BASE + number * PORTS_PER_WORKER
    start = random.randrange(PORTS_PER_WORKER)  # a rerun skips the last run's TIME_WAITs
    ports = [first + (start + i) % PORTS_PER_WORKER for i in range(PORTS_PER_WORKER)]
    return itertools.cycle([port for port in ports if port not in BROWSER_UNSAFE_PORTS])


def free_port():
    """A loopback port of this worker's block that nothing holds now (bound, then
    released; the next call gives another)."""
    candidates = _port_candidates()
    for _ in range(PORTS_PER_WORKER):
        port = next(candidates)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port left in test worker {worker_id()}'s block")


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
