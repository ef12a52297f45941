"""The auth cache (datahub.identity.auth_cache): two apps on one database stand for two
hosts, with the real Redis on 127.0.0.1:6379 (pub/sub, on channels of their own). A
change committed on host A is seen on host B at the very next request; the cache is used
only while its channel is live. Redis unreachable: the tests fail, they do not skip."""

import shutil
import socket
import subprocess
import threading
import time
import uuid

import pytest
import redis

from datahub import create_app
from datahub.app.extensions import db
from datahub.identity.users import services
from tests import workers
from tests.conftest import PASSWORD, bearer, login
from tests.processes import popen

REDIS_URL = workers.redis_url(0)
ME = "/api/v1/auth/me"
REVOKED = {"detail": "Token has been revoked"}


def cache_config(url=REDIS_URL, channel=None):
    return {
        "AUTH_CACHE_REDIS_URL": url,
        "AUTH_CACHE_CHANNEL": channel or f"datahub-test:{uuid.uuid4().hex}",
        "AUTH_CACHE_PING_SECONDS": 0.2,
        "AUTH_CACHE_LIVE_SECONDS": 1.0,
        "AUTH_CACHE_REDIS_TIMEOUT": 1.0,
    }


@pytest.fixture
def redis_url():
    redis.Redis.from_url(REDIS_URL).ping()  # errors (the test fails) when unreachable
    return REDIS_URL


@pytest.fixture
def shared_channel():
    return f"datahub-test:{uuid.uuid4().hex}"


@pytest.fixture
def config_overrides(redis_url, shared_channel):
    return cache_config(redis_url, shared_channel)


@pytest.fixture
def host_b(app, base_config, config_overrides):
    """A second app on the same database and channel: another host."""
    other = create_app({**base_config, **config_overrides})
    yield other
    other.extensions["datahub.auth_cache"].close()
    with other.app_context():
        db.engine.dispose()


@pytest.fixture(autouse=True)
def _stop_host_a(app):
    yield
    cache = app.extensions.get("datahub.auth_cache")
    if cache is not None:
        cache.close()


class Lookups:
    """Counts the guard's queries (the one lookup per request, when not kept)."""

    def __init__(self, app, monkeypatch):
        guard = app.extensions["datahub.access_guard"]
        self.count = 0
        fetch = guard._fetch_one

        def counting(params):
            self.count += 1
            return fetch(params)

        monkeypatch.setattr(guard, "_fetch_one", counting)


def wait_live(app, timeout=10):
    """Make the app's subscriber start (first use) and wait for its acknowledgement."""
    cache = app.extensions["datahub.auth_cache"]
    deadline = time.monotonic() + timeout
    while True:
        with cache.channel.lock:
            if cache.channel.live():
                return cache
        assert time.monotonic() < deadline, "the invalidation channel never became live"
        time.sleep(0.02)


@pytest.fixture
def two_hosts(app, host_b, make_user, monkeypatch):
    """A user logged in on host A; its token kept by host B's cache."""
    make_user(email="admin@example.com", roles=["admin"])
    make_user(roles=["editor"])
    a, b = app.test_client(), host_b.test_client()
    response = login(a)
    headers = bearer(response.get_json()["access_token"])
    wait_live(app), wait_live(host_b)
    lookups = Lookups(host_b, monkeypatch)
    assert b.get(ME, headers=headers).status_code == 200
    assert b.get(ME, headers=headers).status_code == 200
    assert lookups.count == 1, "host B did not keep the lookup"
    return a, b, headers, lookups


def admin_headers(client):
    return bearer(login(client, "admin@example.com").get_json()["access_token"])


def test_a_repeated_request_does_not_query_while_the_channel_is_live(app, two_hosts):
    _, b, headers, lookups = two_hosts
    for _ in range(20):
        assert b.get(ME, headers=headers).get_json()["email"] == "user@example.com"
    assert lookups.count == 1
    assert app.extensions["datahub.auth_cache"] is not None


def test_logout_on_one_host_is_refused_by_the_other_at_the_next_request(two_hosts):
    a, b, headers, lookups = two_hosts
    assert a.post("/api/v1/auth/logout", headers=headers).status_code == 200
    response = b.get(ME, headers=headers)
    assert response.status_code == 401 and response.get_json() == REVOKED
    assert lookups.count == 2  # the kept answer was dropped: B queried


def test_a_logout_published_while_the_other_host_looks_the_token_up_is_not_kept(
    app, two_hosts, host_b, monkeypatch
):
    """B reads the session row; A ends the session and publishes before B keeps what it
    read. The message, drained as B keeps the answer, must void it."""
    a, b, headers, _ = two_hosts
    cache = host_b.extensions["datahub.auth_cache"]
    with cache.channel.lock:
        cache.reset()
    # Re-entrant, so that the test can hold it from the read to the keeping: B's
    # subscriber thread cannot read the message first (the race this test is about).
    lock = threading.RLock()
    monkeypatch.setattr(cache.channel, "lock", lock)
    guard = host_b.extensions["datahub.access_guard"]
    fetch, put = guard._fetch_one, cache.put

    def fetch_then_logout_on_a(params):
        row = fetch(params)  # the row as it was: the session still open
        monkeypatch.setattr(guard, "_fetch_one", fetch)
        lock.acquire()
        assert a.post("/api/v1/auth/logout", headers=headers).status_code == 200
        return row  # the message is now in B's socket, unread

    def put_then_let_go(*args):
        try:
            put(*args)
        finally:
            monkeypatch.setattr(cache, "put", put)
            lock.release()

    monkeypatch.setattr(guard, "_fetch_one", fetch_then_logout_on_a)
    monkeypatch.setattr(cache, "put", put_then_let_go)
    assert b.get(ME, headers=headers).status_code == 200  # answered from the old row
    response = b.get(ME, headers=headers)
    assert response.status_code == 401 and response.get_json() == REVOKED


def test_deactivation_on_one_host_is_seen_by_the_other(two_hosts, host_b):
    a, b, headers, _ = two_hosts
    user_id = b.get(ME, headers=headers).get_json()["id"]
    response = a.patch(
        f"/api/v1/users/{user_id}", json={"is_active": False}, headers=admin_headers(a)
    )
    assert response.status_code == 200, response.get_json()
    response = b.get(ME, headers=headers)
    assert response.status_code == 401 and response.get_json() == REVOKED


def test_demotion_by_the_cli_is_seen_by_the_other_host_at_once(app, two_hosts):
    _, b, headers, _ = two_hosts
    assert b.get(ME, headers=headers).get_json()["roles"] == ["editor"]
    result = app.test_cli_runner().invoke(
        args=["users", "set-roles", "user@example.com", "--role", "viewer"]
    )
    assert result.exit_code == 0, result.output
    assert b.get(ME, headers=headers).get_json()["roles"] == ["viewer"]
    # And B refuses what only an editor may do, at once.
    response = b.post("/api/v1/datasets/", json={"name": "x"}, headers=headers)
    assert response.status_code == 403


def test_deactivation_by_the_cli_is_seen_by_the_other_host(app, two_hosts):
    _, b, headers, _ = two_hosts
    result = app.test_cli_runner().invoke(args=["users", "deactivate", "user@example.com"])
    assert result.exit_code == 0, result.output
    response = b.get(ME, headers=headers)
    assert response.status_code == 401 and response.get_json() == REVOKED


def test_a_change_inside_a_savepoint_is_published_by_the_outer_commit(app, two_hosts):
    """Releasing a savepoint is not the commit: B must not be told (and re-read the old
    row) before the outer transaction commits."""
    from datahub.identity.models import User

    _, b, headers, lookups = two_hosts
    with app.app_context():
        user = db.session.scalar(db.select(User).where(User.email == "user@example.com"))
        with db.session.begin_nested():
            user.roles = ["viewer"]
        # Between the savepoint and the commit, B still has (and may re-read) the old row.
        assert b.get(ME, headers=headers).get_json()["roles"] == ["editor"]
        db.session.commit()
    assert b.get(ME, headers=headers).get_json()["roles"] == ["viewer"]


def test_a_password_change_voids_the_kept_token_on_the_other_host(two_hosts):
    a, b, headers, _ = two_hosts
    changed = a.put(
        "/api/v1/auth/me/password",
        headers=headers,
        json={"current_password": PASSWORD, "new_password": "another long one"},
    )
    assert changed.status_code == 200, changed.get_json()
    response = b.get(ME, headers=headers)
    assert response.status_code == 401 and response.get_json() == REVOKED
    # The token the change answered works on B.
    assert b.get(ME, headers=bearer(changed.get_json()["access_token"])).status_code == 200


def test_ending_a_session_through_the_api_is_seen_by_the_other_host(app, two_hosts):
    _, b, headers, _ = two_hosts
    laptop = app.test_client()
    laptop_headers = bearer(login(laptop).get_json()["access_token"])
    sessions = laptop.get("/api/v1/auth/sessions", headers=laptop_headers).get_json()["items"]
    (phone,) = [s for s in sessions if not s["current"]]
    assert (
        laptop.delete(f"/api/v1/auth/sessions/{phone['id']}", headers=laptop_headers).status_code
        == 204
    )
    response = b.get(ME, headers=headers)
    assert response.status_code == 401 and response.get_json() == REVOKED
    assert b.get(ME, headers=laptop_headers).status_code == 200  # the other session lives


def test_an_expired_entry_queries_again(app, two_hosts, host_b):
    _, b, headers, lookups = two_hosts
    cache = host_b.extensions["datahub.auth_cache"]
    cache.ttl = 0.05
    with cache.channel.lock:
        cache.reset()
    assert b.get(ME, headers=headers).status_code == 200
    time.sleep(0.1)
    assert b.get(ME, headers=headers).status_code == 200
    assert lookups.count == 3


def test_a_change_on_the_same_host_is_seen_without_the_channel(app, two_hosts, monkeypatch):
    """The committing process drops its own entries at once, before publishing."""
    a, _, headers, _ = two_hosts
    lookups = Lookups(app, monkeypatch)
    assert a.get(ME, headers=headers).status_code == 200
    assert a.get(ME, headers=headers).status_code == 200
    assert lookups.count == 1
    with app.app_context():
        services.set_roles(services.get_by_email("user@example.com"), ["viewer"])
    assert a.get(ME, headers=headers).get_json()["roles"] == ["viewer"]


def test_a_failed_publish_turns_the_cache_off_until_the_channel_is_back(
    app, two_hosts, host_b, monkeypatch
):
    a, b, headers, _ = two_hosts
    channel = app.extensions["datahub.auth_cache"].channel
    # Host A's publisher now talks to a port where nothing listens (a real refusal).
    channel.publisher = redis.Redis(port=closed_port(), socket_connect_timeout=1)
    a_lookups = Lookups(app, monkeypatch)
    with app.app_context():
        services.set_roles(services.get_by_email("user@example.com"), ["viewer"])
    assert channel.owed_everything
    # Host A falls back to the query at once: every request queries, none is a 500.
    for _ in range(3):
        assert a.get(ME, headers=headers).get_json()["roles"] == ["viewer"]
    assert a_lookups.count == 3
    # Its publisher back, A resubscribes and publishes "everything" it owes: B drops
    # what it kept (what B kept meanwhile is bounded by AUTH_CACHE_TTL_SECONDS).
    channel.publisher = None
    wait_live(app)
    deadline = time.monotonic() + 10
    while channel.owed_everything:
        assert time.monotonic() < deadline, "the owed invalidation was never published"
        time.sleep(0.02)
    assert b.get(ME, headers=headers).get_json()["roles"] == ["viewer"]


def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("config_overrides", [cache_config(f"redis://127.0.0.1:{closed_port()}/6")])
def test_redis_unreachable_every_request_queries(app, client, make_user, monkeypatch):
    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    lookups = Lookups(app, monkeypatch)
    for _ in range(5):
        assert client.get(ME, headers=headers).status_code == 200
    assert lookups.count == 5
    # Writes still work (the publish fails quietly), and are seen at once.
    assert client.post("/api/v1/auth/logout", headers=headers).status_code == 200
    response = client.get(ME, headers=headers)
    assert response.status_code == 401 and response.get_json() == REVOKED


@pytest.fixture
def own_redis(tmp_path):
    """A redis-server of this test's own (it is stopped while the apps run)."""
    binary = shutil.which("redis-server")
    assert binary, "redis-server is needed (Debian's redis-server package)"
    port = closed_port()
    process = popen(
        [binary, "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
    yield process, f"redis://127.0.0.1:{port}/0"
    process.kill()
    process.wait()


@pytest.fixture
def own_redis_hosts(own_redis, base_config, migrated, make_user):
    _, url = own_redis
    config = {**base_config, **cache_config(url)}
    hosts = [create_app(config), create_app(config)]
    yield hosts
    for host in hosts:
        host.extensions["datahub.auth_cache"].close()
        with host.app_context():
            db.engine.dispose()


def test_redis_going_away_turns_every_cache_off(own_redis, own_redis_hosts, make_user, monkeypatch):
    process, _ = own_redis
    host_a, host_b_ = own_redis_hosts
    make_user()
    a, b = host_a.test_client(), host_b_.test_client()
    headers = bearer(login(a).get_json()["access_token"])
    wait_live(host_a), wait_live(host_b_)
    lookups = Lookups(host_b_, monkeypatch)
    b.get(ME, headers=headers), b.get(ME, headers=headers)
    assert lookups.count == 1
    process.kill()
    process.wait()
    # No 500 anywhere; B queries; a logout on A (which cannot publish) is seen on B.
    assert b.get(ME, headers=headers).status_code == 200
    assert lookups.count == 2
    assert a.post("/api/v1/auth/logout", headers=headers).status_code == 200
    response = b.get(ME, headers=headers)
    assert response.status_code == 401 and response.get_json() == REVOKED


def test_a_redis_that_stops_answering_turns_the_cache_off(
    own_redis, own_redis_hosts, make_user, monkeypatch
):
    """No PONG within AUTH_CACHE_LIVE_SECONDS: not live, every request queries; the cache
    comes back (emptied) once Redis answers again."""
    import signal

    process, _ = own_redis
    host = own_redis_hosts[1]
    make_user()
    client = host.test_client()
    headers = bearer(login(client).get_json()["access_token"])
    wait_live(host)
    lookups = Lookups(host, monkeypatch)
    client.get(ME, headers=headers), client.get(ME, headers=headers)
    assert lookups.count == 1
    process.send_signal(signal.SIGSTOP)
    try:
        time.sleep(1.5)  # > AUTH_CACHE_LIVE_SECONDS (1.0 here)
        for _ in range(3):
            assert client.get(ME, headers=headers).status_code == 200
        assert lookups.count == 4
    finally:
        process.send_signal(signal.SIGCONT)
    wait_live(host)
    client.get(ME, headers=headers), client.get(ME, headers=headers)
    assert lookups.count == 5
