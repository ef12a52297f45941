"""Fixtures of the LDAP tests: one real slapd for the session, with its people and groups."""

import pytest

from tests.identity.ldap_server import (
    ADMINS,
    ANALYSTS,
    EDITORS,
    GROUPS,
    PEOPLE,
    SERVICE_DN,
    SERVICE_PASSWORD,
    Slapd,
    make_ca,
    slapd_binary,
)

# email → (uid, name, password, groups)
PEOPLE_IN_DIRECTORY = {
    "alice@example.org": ("alice", "Alice Admin", "alice password", (ADMINS,)),
    "bob@example.org": ("bob", "Bob Editor", "bob password", (EDITORS,)),
    "carol@example.org": ("carol", "Carol Viewer", "carol password", (ANALYSTS,)),
    "dave@example.org": ("dave", "Dave Mover", "dave password", ()),
    "erin@example.org": ("erin", "Erin Elsewhere", "erin password", ()),
}


def directory_password(email):
    return PEOPLE_IN_DIRECTORY[email][2]


@pytest.fixture(scope="session")
def slapd(tmp_path_factory):
    """A started slapd holding PEOPLE_IN_DIRECTORY, on ldap:// and ldaps://; fails (never
    skips) without slapd, or when its TLS does not work (with its log)."""
    try:
        slapd_binary()
        server = Slapd(tmp_path_factory.mktemp("slapd")).start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        for email, (uid, name, password, groups) in PEOPLE_IN_DIRECTORY.items():
            server.add_person(uid, email, name, password, groups)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def other_ca(tmp_path_factory):
    """The certificate of a throw-away CA that did not sign slapd's."""
    return make_ca(tmp_path_factory.mktemp("other-ca"), "other-ca")[0]


def ldap_settings(url):
    return {
        "LDAP_URL": url,
        "LDAP_BIND_DN": SERVICE_DN,
        "LDAP_BIND_PASSWORD": SERVICE_PASSWORD,
        "LDAP_USER_BASE": PEOPLE,
        "LDAP_GROUP_BASE": GROUPS,
        "LDAP_GROUP_ROLES": {"admin": ADMINS, "editor": EDITORS},
        "LDAP_CONNECT_TIMEOUT": 1,
        "LDAP_RECEIVE_TIMEOUT": 1,
        "RATELIMIT_ENABLED": False,
    }


@pytest.fixture(scope="session")
def oidc_provider(tmp_path_factory):
    """A started OIDC provider process (tests.identity.oidc_provider); fails (never skips)
    when it cannot start."""
    from tests.identity.oidc_provider import Provider

    try:
        provider = Provider(tmp_path_factory.mktemp("oidc") / "provider.log").start()
    except (RuntimeError, OSError) as exc:
        pytest.fail(str(exc))
    try:
        yield provider
    finally:
        provider.stop()


def oidc_settings(issuer, **overrides):
    return {
        "OIDC_ISSUER": issuer,
        "OIDC_CLIENT_ID": "datahub",
        "OIDC_CLIENT_SECRET": "datahub client secret",
        "OIDC_PROVIDER_NAME": "Example SSO",
        "OIDC_TIMEOUT": 2,
        "RATELIMIT_ENABLED": False,
        **overrides,
    }
