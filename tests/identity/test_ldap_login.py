"""Logins of directory users (provider ``ldap``) against a real slapd."""

import json
import logging
import re
import socket
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from datahub.app.extensions import db
from datahub.identity import ldap
from datahub.identity.models import User
from tests.conftest import PASSWORD, bearer, login
from tests.e2e.tcp_proxy import TcpProxy
from tests.identity.conftest import directory_password, ldap_settings
from tests.identity.ldap_server import EDITORS, PEOPLE, SERVICE_DN
from tests.workers import free_port

STARTTLS_OID = "1.3.6.1.4.1.1466.20037"

INVALID = b'{"detail":"Invalid email or password"}\n'
UNAVAILABLE = {"detail": "Authentication service unavailable"}
MANAGED = {"detail": "Password is managed by the identity provider"}


@pytest.fixture
def config_overrides(slapd):
    return ldap_settings(slapd.url)


@pytest.fixture(autouse=True)
def close_directory_connections(app):
    """The app's pooled LDAP connections close with the test."""
    yield
    directory = app.extensions.get("datahub.ldap")
    if directory is not None:
        directory.close()


@pytest.fixture
def audit_log(caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")

    def events(name):
        found = [json.loads(r.getMessage()) for r in caplog.records if r.name == "datahub.audit"]
        return [event for event in found if event["event"] == name]

    return events


def ldap_login(client, email):
    return login(client, email, directory_password(email))


def user_row(app, email):
    with app.app_context():
        user = db.session.scalar(db.select(User).where(User.email == email))
        if user is not None:
            db.session.expunge(user)
        return user


def user_binds(slapd):
    """The binds slapd received, but the service account's."""
    return [line for line in slapd.binds() if f'dn="{SERVICE_DN}"' not in line]


@pytest.mark.parametrize(
    ("email", "name", "roles"),
    [
        ("alice@example.org", "Alice Admin", ["admin"]),
        ("bob@example.org", "Bob Editor", ["editor"]),
        ("carol@example.org", "Carol Viewer", ["viewer"]),
    ],
)
def test_a_directory_user_logs_in_with_the_roles_of_their_groups(
    app, client, audit_log, email, name, roles
):
    response = ldap_login(client, email)
    assert response.status_code == 200, response.get_json()
    me = client.get("/api/v1/auth/me", headers=bearer(response.get_json()["access_token"]))
    body = me.get_json()
    assert (body["email"], body["name"], body["provider"], body["roles"]) == (
        email,
        name,
        "ldap",
        roles,
    )
    assert user_row(app, email).password_hash is None
    (created,) = audit_log("user_created")
    assert created["provider"] == "ldap"
    (success,) = audit_log("login_succeeded")
    assert success["provider"] == "ldap" and success["user_id"] == body["id"]


def test_a_group_change_shows_at_the_next_login(app, client, slapd):
    email = "dave@example.org"
    assert ldap_login(client, email).status_code == 200
    assert user_row(app, email).roles == ["viewer"]
    dave = f"uid=dave,{PEOPLE}"
    slapd.set_member(EDITORS, dave, True)
    try:
        token = ldap_login(client, email).get_json()["access_token"]
        me = client.get("/api/v1/auth/me", headers=bearer(token)).get_json()
        assert me["roles"] == ["editor"]
    finally:
        slapd.set_member(EDITORS, dave, False)
    assert ldap_login(client, email).status_code == 200
    assert user_row(app, email).roles == ["viewer"]


@pytest.mark.parametrize(
    ("email", "password", "reason", "directory_binds"),
    [
        ("alice@example.org", "wrong password", "wrong_password", 1),
        ("nobody@example.org", "alice password", "unknown_email", 1),
        # Unescaped, these filters would find alice, and her password would bind.
        ("alic*", "alice password", "unknown_email", 1),
        ("*", "alice password", "unknown_email", 1),
        ("*)(mail=*", "alice password", "unknown_email", 1),
        ("x*", "alice password", "unknown_email", 1),
        ("alice@example.org)(|(mail=*", "alice password", "unknown_email", 1),
        # An empty password would be an anonymous bind, which succeeds: it never leaves.
        ("alice@example.org", "", "empty_password", 0),
    ],
    ids=[
        "wrong-password",
        "unknown",
        "prefix",
        "star",
        "or-injection",
        "x-star",
        "closing-paren",
        "empty-password",
    ],
)
def test_a_failed_login_is_the_same_401_whatever_the_reason(
    app, client, slapd, audit_log, email, password, reason, directory_binds
):
    before, user_before = len(slapd.binds()), len(user_binds(slapd))
    response = login(client, email, password)
    assert response.status_code == 401
    assert response.get_data() == INVALID
    assert len(user_binds(slapd)) - user_before == directory_binds
    if not directory_binds:
        assert len(slapd.binds()) == before  # not even the service account's
    (failed,) = audit_log("login_failed")
    assert (failed["reason"], failed["provider"]) == (reason, "ldap")
    assert user_row(app, "alice@example.org") is None


@pytest.mark.serial  # compares response times
def test_unknown_emails_and_wrong_passwords_take_the_same_time(app, client, make_user):
    app.config["BCRYPT_ROUNDS"] = 10  # read at each hash and check
    make_user(email="local@example.org")
    cases = {
        "unknown": ("nobody@example.org", "some password"),
        "ldap-wrong": ("alice@example.org", "wrong password"),
        "local-wrong": ("local@example.org", "wrong password"),
    }
    for email, password in cases.values():  # warm up: the pool, the dummy hash
        login(client, email, password)
    timings = {name: [] for name in cases}
    for _ in range(15):
        for name, (email, password) in cases.items():  # interleaved, so drift hits all
            started = time.perf_counter()
            response = login(client, email, password)
            timings[name].append(time.perf_counter() - started)
            assert response.get_data() == INVALID
    medians = {name: statistics.median(values) for name, values in timings.items()}
    assert min(medians.values()) > 0.01  # the bcrypt check really ran at cost 10
    assert max(medians.values()) - min(medians.values()) <= 0.2 * max(medians.values()), medians


def silent_server():
    """A socket that accepts connections (the kernel's backlog) and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    return listener


@pytest.mark.parametrize("kind", ["nothing-listening", "never-answers"])
def test_an_unreachable_directory_is_a_503_and_local_users_still_log_in(
    app, client, make_user, audit_log, kind
):
    listener = silent_server() if kind == "never-answers" else None
    port = listener.getsockname()[1] if listener else free_port()
    app.config["LDAP_URL"] = f"ldap://127.0.0.1:{port}"
    try:
        started = time.perf_counter()
        response = login(client, "alice@example.org", "alice password")
        elapsed = time.perf_counter() - started
    finally:
        if listener:
            listener.close()
    assert (response.status_code, response.get_json()) == (503, UNAVAILABLE)
    assert response.headers["Retry-After"] == "1"
    assert elapsed < 2.5  # one receive timeout (1 s), not the OS's minutes
    (failed,) = audit_log("login_failed")
    assert failed["reason"] == "directory_unavailable"
    make_user(email="local@example.org")
    assert login(client, "local@example.org").status_code == 200


def tls_settings(slapd, kind, ca_file, host="127.0.0.1"):
    """``kind`` ``ldaps`` (TLS from the start) or ``starttls`` (ldap:// upgraded)."""
    if kind == "ldaps":
        return {
            "LDAP_URL": f"ldaps://{host}:{slapd.tls_port}",
            "LDAP_START_TLS": False,
            "LDAP_CA_FILE": ca_file,
        }
    return {
        "LDAP_URL": f"ldap://{host}:{slapd.port}",
        "LDAP_START_TLS": True,
        "LDAP_CA_FILE": ca_file,
    }


def bind_strengths(bind_lines):
    """``{dn: [ssf, ...]}`` of slapd's BIND lines: ssf 0 is a bind in clear."""
    found = {}
    for line in bind_lines:
        match = re.search(r' BIND dn="([^"]*)" mech=SIMPLE .*\bssf=(\d+)', line)
        if match:
            found.setdefault(match[1], []).append(int(match[2]))
    return found


@pytest.mark.parametrize("kind", ["ldaps", "starttls"])
def test_a_directory_user_logs_in_over_tls_verified_with_ldap_ca_file(app, client, slapd, kind):
    app.config.update(tls_settings(slapd, kind, slapd.ca_file))
    before = len(slapd.binds())
    response = ldap_login(client, "alice@example.org")
    assert response.status_code == 200, response.get_json()
    me = client.get("/api/v1/auth/me", headers=bearer(response.get_json()["access_token"]))
    assert (me.get_json()["provider"], me.get_json()["roles"]) == ("ldap", ["admin"])
    strengths = bind_strengths(slapd.binds()[before:])
    assert set(strengths) == {SERVICE_DN, f"uid=alice,{PEOPLE}"}
    assert all(ssf > 0 for ssfs in strengths.values() for ssf in ssfs), strengths


@pytest.mark.parametrize("problem", ["unknown-ca", "wrong-host-name"])
@pytest.mark.parametrize("kind", ["ldaps", "starttls"])
def test_a_certificate_that_does_not_verify_is_a_503_before_any_bind(
    app, client, slapd, other_ca, audit_log, kind, problem
):
    """Another CA, or ``localhost`` against a certificate for the IP 127.0.0.1 only."""
    if problem == "unknown-ca":
        app.config.update(tls_settings(slapd, kind, other_ca))
    else:
        app.config.update(tls_settings(slapd, kind, slapd.ca_file, host="localhost"))
    log_before, binds_before = len(slapd.log().splitlines()), len(slapd.binds())
    response = ldap_login(client, "alice@example.org")
    assert (response.status_code, response.get_json()) == (503, UNAVAILABLE)
    assert response.headers["Retry-After"] == "1"
    (failed,) = audit_log("login_failed")
    assert failed["reason"] == "directory_unavailable"
    assert user_row(app, "alice@example.org") is None
    # The user's own bind, which the failed service connection never reached, fails alike.
    with app.app_context(), pytest.raises(ldap.DirectoryUnavailable):
        ldap.directory().bind(f"uid=alice,{PEOPLE}", directory_password("alice@example.org"))
    log = slapd.log().splitlines()[log_before:]
    assert any(" ACCEPT from " in line for line in log)  # slapd was reached...
    if kind == "starttls":
        assert any(f"EXT oid={STARTTLS_OID}" in line for line in log)
    assert slapd.binds()[binds_before:] == []  # ...and saw no password, the service's neither


def test_an_email_held_by_another_provider_is_a_409(app, client):
    with app.app_context():
        db.session.add(
            User(
                email="erin@example.org",
                name="Erin",
                roles=["viewer"],
                provider="oidc",
                password_hash=None,
                is_active=True,
            )
        )
        db.session.commit()
    response = ldap_login(client, "erin@example.org")
    assert (response.status_code, response.get_json()) == (
        409,
        {"detail": "Account exists with another provider"},
    )
    assert user_row(app, "erin@example.org").provider == "oidc"
    assert login(client, "erin@example.org", "wrong password").status_code == 401


def test_a_local_user_is_never_checked_against_the_directory(client, slapd, make_user):
    make_user(email="bob@example.org")  # the directory's bob has another password
    before = len(user_binds(slapd))
    assert ldap_login(client, "bob@example.org").status_code == 401
    assert login(client, "bob@example.org", PASSWORD).status_code == 200
    assert len(user_binds(slapd)) == before


def test_the_password_of_a_directory_user_cannot_be_set_here(app, client, runner, auth_headers):
    admin = auth_headers("admin@example.com", roles=("admin",))
    response = ldap_login(client, "carol@example.org")
    token = response.get_json()["access_token"]
    carol = user_row(app, "carol@example.org")

    change = client.put(
        "/api/v1/auth/me/password",
        headers=bearer(token),
        json={"current_password": "carol password", "new_password": "a new password"},
    )
    assert (change.status_code, change.get_json()) == (409, MANAGED)
    patch = client.patch(
        f"/api/v1/users/{carol.id}",
        headers=admin,
        json={"password": "a new password", "name": "Renamed"},
    )
    assert (patch.status_code, patch.get_json()) == (409, MANAGED)
    result = runner.invoke(
        args=["users", "set-password", "carol@example.org", "--password-from-env"],
        env={"DATAHUB_PASSWORD": "a new password"},
    )
    assert result.exit_code == 1
    assert "Password is managed by the identity provider" in result.output
    assert user_row(app, "carol@example.org").password_hash is None
    assert user_row(app, "carol@example.org").name == "Carol Viewer"

    listed = client.get("/api/v1/users", headers=admin).get_json()["items"]
    assert {u["email"]: u["provider"] for u in listed} == {
        "admin@example.com": "local",
        "carol@example.org": "ldap",
    }
    table = runner.invoke(args=["users", "list"]).output
    assert [line.split()[-2] for line in table.splitlines() if "carol" in line] == ["ldap"]


def test_a_deactivated_directory_user_stays_out(app, client, auth_headers, audit_log):
    admin = auth_headers("admin@example.com", roles=("admin",))
    token = ldap_login(client, "bob@example.org").get_json()["access_token"]
    bob = user_row(app, "bob@example.org")
    response = client.patch(f"/api/v1/users/{bob.id}", headers=admin, json={"is_active": False})
    assert response.status_code == 200
    assert client.get("/api/v1/auth/me", headers=bearer(token)).status_code == 401
    response = ldap_login(client, "bob@example.org")
    assert response.status_code == 401 and response.get_data() == INVALID
    assert audit_log("login_failed")[-1]["reason"] == "inactive"
    assert user_row(app, "bob@example.org").is_active is False


def test_refresh_and_logout_work_for_a_directory_user(client):
    assert ldap_login(client, "alice@example.org").status_code == 200
    refreshed = client.post("/api/v1/auth/refresh")
    assert refreshed.status_code == 200
    token = refreshed.get_json()["access_token"]
    me = client.get("/api/v1/auth/me", headers=bearer(token)).get_json()
    assert (me["provider"], me["roles"]) == ("ldap", ["admin"])
    assert client.post("/api/v1/auth/logout", headers=bearer(token)).status_code == 200
    assert client.get("/api/v1/auth/me", headers=bearer(token)).status_code == 401
    assert client.post("/api/v1/auth/refresh").status_code == 401


def pool_service_connections(app):
    """Concurrent logins, so that the pool holds several service connections."""
    logins = app.config["LDAP_POOL_SIZE"] * 8
    with ThreadPoolExecutor(app.config["LDAP_POOL_SIZE"] * 2) as executor:
        statuses = list(
            executor.map(
                lambda _: ldap_login(app.test_client(), "alice@example.org").status_code,
                range(logins),
            )
        )
    assert statuses == [200] * logins


def test_a_directory_restart_costs_no_login_a_503(app, client, slapd):
    pool_service_connections(app)
    slapd.restart()  # slapd closes the pooled connections
    statuses = [ldap_login(client, "alice@example.org").status_code for _ in range(25)]
    assert statuses == [200] * 25


def test_the_first_login_after_the_directory_is_back_is_a_200(app, client, slapd):
    """Logins while the directory is down are 503s; the first one once it answers binds
    again is a 200, not a 503 for an address remembered as down."""
    pool_service_connections(app)
    slapd.stop()
    try:
        response = ldap_login(client, "alice@example.org")
        assert (response.status_code, response.get_json()) == (503, UNAVAILABLE)
    finally:
        slapd.resume()
    with slapd.admin() as connection:
        assert connection.bound
    statuses = [ldap_login(client, email).status_code for email in ("alice@example.org",) * 3]
    assert statuses == [200] * 3


@pytest.fixture
def proxy(slapd):
    proxy = TcpProxy("127.0.0.1", slapd.port)
    proxy.up()
    yield proxy
    proxy.down()


@pytest.mark.serial  # each stale connection costs one 1 s receive timeout, no more
@pytest.mark.parametrize("concurrent", [False, True], ids=["one-by-one", "concurrent"])
def test_a_restart_behind_a_load_balancer_costs_no_login_a_503(app, slapd, proxy, concurrent):
    """The directory restarts behind something that never tells the pooled connections
    (a load balancer failing over): each one goes silent, costs one receive timeout and
    is dropped with the rest of the pool, never handed to the next login."""
    app.config["LDAP_URL"] = f"ldap://127.0.0.1:{proxy.port}"
    pool_service_connections(app)
    proxy.forget()
    slapd.restart()
    started = time.perf_counter()
    if concurrent:
        with ThreadPoolExecutor(app.config["LDAP_POOL_SIZE"]) as executor:
            statuses = list(
                executor.map(
                    lambda _: ldap_login(app.test_client(), "alice@example.org").status_code,
                    range(25),
                )
            )
    else:
        statuses = [
            ldap_login(app.test_client(), "alice@example.org").status_code for _ in range(25)
        ]
    assert statuses == [200] * 25
    assert time.perf_counter() - started < 5  # a receive timeout (1 s) per stale connection
