"""Personal access tokens with the auth cache (AUTH_CACHE_REDIS_URL, the real Redis): two
apps on one database and channel stand for two hosts. A token's kept answer is found by
its hash, ended by ``p:<id>`` and ``u:<user id>``, never by its last use; its expiry is
checked even when kept."""

import time
from datetime import datetime, timezone

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.models import PersonalAccessToken
from tests.conftest import bearer, login
from tests.identity.auth.test_auth_cache import (  # noqa: F401 (fixtures)
    _stop_host_a,
    config_overrides,
    host_b,
    redis_url,
    shared_channel,
    wait_live,
)

ME = "/api/v1/auth/me"
INVALID = {"detail": "Invalid token"}


class PatLookups:
    """Counts a host's lookups of personal access tokens (when not kept)."""

    def __init__(self, app, monkeypatch):
        guard = app.extensions["datahub.access_guard"]
        self.count = 0
        fetch = guard.connections.fetch_one

        def counting(sql, params):
            self.count += sql == guard.pat_sql
            return fetch(sql, params)

        monkeypatch.setattr(guard.connections, "fetch_one", counting)


@pytest.fixture
def two_hosts(app, host_b, make_user, monkeypatch):
    """A token of user@example.com made on host A, kept by host B's cache."""
    make_user(email="admin@example.com", roles=["admin"])
    make_user(roles=["editor"])
    a, b = app.test_client(), host_b.test_client()
    session = bearer(login(a).get_json()["access_token"])
    created = a.post(
        "/api/v1/auth/tokens", headers=session, json={"name": "s", "scopes": ["read", "write"]}
    )
    token = created.get_json()
    headers = bearer(token["token"])
    wait_live(app), wait_live(host_b)
    lookups = PatLookups(host_b, monkeypatch)
    for _ in range(3):
        assert b.get(ME, headers=headers).status_code == 200
    assert lookups.count == 1, "host B did not keep the lookup (or its last use voided it)"
    return a, b, session, headers, token, lookups


def test_revocation_on_one_host_is_refused_by_the_other_at_the_next_request(two_hosts):
    a, b, session, headers, token, lookups = two_hosts
    assert a.delete(f"/api/v1/auth/tokens/{token['id']}", headers=session).status_code == 204
    response = b.get(ME, headers=headers)
    assert (response.status_code, response.get_json()) == (401, INVALID)
    assert lookups.count == 2


def test_deactivating_the_owner_on_one_host_is_seen_by_the_other(two_hosts):
    a, b, _session, headers, _token, _ = two_hosts
    user_id = b.get(ME, headers=headers).get_json()["id"]
    admin = bearer(login(a, "admin@example.com").get_json()["access_token"])
    response = a.patch(f"/api/v1/users/{user_id}", json={"is_active": False}, headers=admin)
    assert response.status_code == 200
    response = b.get(ME, headers=headers)
    assert (response.status_code, response.get_json()) == (401, INVALID)


def test_a_bulk_delete_is_seen_by_the_other_host(app, two_hosts):
    _a, b, _session, headers, token, _ = two_hosts
    with app.app_context():
        db.session.execute(sa.delete(PersonalAccessToken).where(PersonalAccessToken.name == "s"))
        db.session.commit()
    assert b.get(ME, headers=headers).status_code == 401


def test_only_bookkeeping_changes_keep_the_answer(app, two_hosts):
    _a, b, _session, headers, token, lookups = two_hosts
    with app.app_context():
        db.session.execute(
            sa.update(PersonalAccessToken)
            .where(PersonalAccessToken.id == token["id"])
            .values(last_used_at=datetime.now(timezone.utc), last_used_address="10.9.9.9")
        )
        db.session.commit()
    assert b.get(ME, headers=headers).status_code == 200
    assert lookups.count == 1  # still kept
    with app.app_context():
        db.session.get(PersonalAccessToken, token["id"]).scopes = ["read"]
        db.session.commit()
    assert b.post("/api/v1/datasets", json={"name": "x"}, headers=headers).status_code == 403
    assert lookups.count == 2


def test_expiry_is_checked_even_when_kept(two_hosts, monkeypatch):
    _a, b, _session, headers, token, lookups = two_hosts
    later = datetime.fromisoformat(token["expires_at"]).timestamp() + 1
    monkeypatch.setattr(time, "time", lambda: later)
    response = b.get(ME, headers=headers)
    assert (response.status_code, response.get_json()) == (401, {"detail": "Token has expired"})
    assert lookups.count == 1  # answered from what was kept
