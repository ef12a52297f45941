"""datahub_logins_total{provider,result} (datahub.platform.metrics) for local, LDAP (a real slapd)
and OpenID Connect (a real provider process) logins, read from GET /metrics."""

import pytest

from tests.conftest import login
from tests.identity.conftest import directory_password, ldap_settings, oidc_settings
from tests.metrics_samples import samples
from tests.workers import free_port

CALLBACK = "/api/v1/auth/oidc/callback"


@pytest.fixture
def logins(client):
    """``logins()`` → {(provider, result): count} since the fixture was first used."""

    def read():
        found = samples(client.get("/metrics").get_data(as_text=True))
        return {
            (dict(labels)["provider"], dict(labels)["result"]): count
            for (name, labels), count in found.items()
            if name == "datahub_logins_total"
        }

    before = read()

    def since():
        return {
            key: count - before.get(key, 0)
            for key, count in read().items()
            if count != before.get(key, 0)
        }

    return since


# Two failed logins from the address, then a refusal (a success is no failure).
@pytest.mark.parametrize("config_overrides", [{"RATE_LIMIT_LOGIN_PER_ADDRESS": "2/minute"}])
def test_local_logins_success_failure_and_rate_limited(client, make_user, logins):
    make_user()
    assert login(client).status_code == 200
    assert login(client, password="wrong").status_code == 401
    assert login(client, email="nobody@example.com").status_code == 401
    assert login(client).status_code == 429
    assert logins() == {
        ("local", "success"): 1,
        ("local", "failure"): 2,
        ("local", "rate_limited"): 1,
    }


def test_an_unreachable_directory_counts_as_unavailable(app, client, logins):
    app.config.update(ldap_settings(f"ldap://127.0.0.1:{free_port()}"))
    assert login(client, "alice@example.org", "alice password").status_code == 503
    assert logins() == {("ldap", "unavailable"): 1}


def test_directory_logins(app, client, slapd, logins):
    app.config.update(ldap_settings(slapd.url))
    try:
        assert (
            login(client, "bob@example.org", directory_password("bob@example.org")).status_code
            == 200
        )
        assert login(client, "bob@example.org", "wrong").status_code == 401
    finally:
        app.extensions["datahub.ldap"].close()
    assert logins() == {("ldap", "success"): 1, ("ldap", "failure"): 1}


def test_oidc_logins(app, client, oidc_provider, logins):
    from tests.identity.test_oidc_login import log_in

    app.config.update(oidc_settings(oidc_provider.issuer))
    oidc_provider.set_user("metrics-sub", email="metrics@example.org", name="Met")
    assert log_in(client, oidc_provider, "metrics-sub").status_code == 302
    assert client.get(CALLBACK + "?code=x&state=y").status_code == 401  # no login cookie
    assert logins() == {("oidc", "success"): 1, ("oidc", "failure"): 1}
