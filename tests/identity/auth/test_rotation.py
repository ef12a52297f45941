"""Refresh rotation, reuse detection with its grace window, concurrency and the absolute
lifetime of a login (issue 5, part 1)."""

import json
import logging
import time

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.models import AuthSession, RefreshToken
from tests.conftest import bearer, login
from tests.identity.auth.helpers import (
    claims,
    cookie_value,
    refresh,
    set_cookie_attributes,
    use_cookie,
)
from tests.resources import at_once


def family_rows(app, family_id):
    with app.app_context():
        return db.session.scalars(
            sa.select(RefreshToken)
            .where(RefreshToken.family_id == family_id)
            .order_by(RefreshToken.issued_at)
        ).all()


def test_refresh_sets_a_new_cookie_and_retires_the_old_one(app, client, make_user):
    make_user()
    login(client)
    first = cookie_value(client)
    response = refresh(client)
    assert response.status_code == 200
    second, attributes = set_cookie_attributes(response)
    assert second != first and cookie_value(client) == second
    for flag in ("HttpOnly", "Secure"):
        assert flag in attributes
    assert attributes["Path"] == "/api/v1/auth" and attributes["SameSite"] == "Strict"
    old, new = claims(first), claims(second)
    assert old["fam"] == new["fam"] and old["jti"] != new["jti"]

    rows = family_rows(app, old["fam"])
    assert [r.jti for r in rows] == [old["jti"], new["jti"]]
    assert rows[0].retired_at is not None and rows[0].replaced_by == new["jti"]
    assert rows[1].retired_at is None and rows[1].replaced_by is None
    # The successor rotates again.
    assert refresh(client).status_code == 200
    assert cookie_value(client) not in (first, second)


def test_the_access_token_from_a_refresh_is_bound_to_the_session(client, make_user):
    make_user()
    login_claims = claims(login(client).get_json()["access_token"])
    access = refresh(client).get_json()["access_token"]
    assert claims(access)["sid"] == login_claims["sid"] == claims(cookie_value(client))["fam"]
    assert client.get("/api/v1/auth/me", headers=bearer(access)).status_code == 200


@pytest.mark.parametrize("config_overrides", [{"REFRESH_REUSE_GRACE_SECONDS": 0.3}])
def test_a_retired_token_replayed_after_the_grace_window_revokes_the_family(
    app, client, make_user, caplog
):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    user = make_user()
    login(client)
    stolen = cookie_value(client)
    legit = refresh(client)
    legit_access = legit.get_json()["access_token"]
    legit_cookie = cookie_value(client)
    time.sleep(0.5)

    use_cookie(client, stolen)
    response = refresh(client)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Token has been revoked"}
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert cookie_value(client) is None  # the useless cookie is deleted

    # Every token of the family is dead now, the legitimate one too, and its access token.
    use_cookie(client, legit_cookie)
    assert refresh(client).get_json() == {"detail": "Token has been revoked"}
    me = client.get("/api/v1/auth/me", headers=bearer(legit_access))
    assert me.status_code == 401 and me.get_json() == {"detail": "Token has been revoked"}
    with app.app_context():
        session = db.session.get(AuthSession, claims(stolen)["fam"])
        assert session.revoked_at is not None and session.revoked_reason == "reuse"

    events = [json.loads(r.getMessage()) for r in caplog.records if r.name == "datahub.audit"]
    reuse = [e for e in events if e["event"] == "refresh_reuse_detected"]
    assert len(reuse) == 1
    assert reuse[0]["user_id"] == user.id and reuse[0]["session_id"] == claims(stolen)["fam"]
    assert stolen not in caplog.text and legit_cookie not in caplog.text


def test_a_retired_token_within_the_grace_window_answers_without_forking(app, client, make_user):
    make_user()
    login(client)
    first = cookie_value(client)
    assert refresh(client).status_code == 200
    second = cookie_value(client)

    use_cookie(client, first)  # the other tab, a moment late
    response = refresh(client)
    assert response.status_code == 200
    assert set_cookie_attributes(response) is None  # no new branch, no new cookie
    access = response.get_json()["access_token"]
    assert client.get("/api/v1/auth/me", headers=bearer(access)).status_code == 200
    assert len(family_rows(app, claims(first)["fam"])) == 2

    use_cookie(client, second)  # the chain goes on from the successor
    assert refresh(client).status_code == 200
    assert len(family_rows(app, claims(first)["fam"])) == 3


def test_logout_ends_the_whole_family(client, make_user):
    make_user()
    login(client)
    first = cookie_value(client)
    refresh(client)
    assert client.post("/api/v1/auth/logout").status_code == 200
    use_cookie(client, first)  # within the grace window, but the session has ended
    response = refresh(client)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Token has been revoked"}


def _parallel_refreshes(app, cookie, n=2):
    clients = [app.test_client() for _ in range(n)]
    for client in clients:
        use_cookie(client, cookie)
    return at_once(n, lambda i: refresh(clients[i]))


def test_parallel_refreshes_with_one_cookie_rotate_once(app, client, make_user):
    make_user()
    login(client)
    for _round in range(5):
        cookie = cookie_value(client)
        family = claims(cookie)["fam"]
        before = len(family_rows(app, family))
        results = _parallel_refreshes(app, cookie)
        assert [r.status_code for r in results] == [200, 200], [r.get_json() for r in results]
        new_cookies = [c for c in (set_cookie_attributes(r) for r in results) if c]
        assert len(new_cookies) == 1  # exactly one successor, no fork
        assert len(family_rows(app, family)) == before + 1
        for r in results:
            access = r.get_json()["access_token"]
            assert client.get("/api/v1/auth/me", headers=bearer(access)).status_code == 200
        use_cookie(client, new_cookies[0][0])
    assert refresh(client).status_code == 200


@pytest.mark.parametrize("config_overrides", [{"REFRESH_REUSE_GRACE_SECONDS": 0}])
def test_parallel_replays_without_a_grace_window_revoke_the_family(app, client, make_user):
    """Two requests racing with one cookie when no grace is allowed: one rotates, the other
    is a reuse, whatever the interleaving; never two successors."""
    make_user()
    login(client)
    cookie = cookie_value(client)
    time.sleep(0.01)
    results = _parallel_refreshes(app, cookie)
    assert sorted(r.status_code for r in results) == [200, 401]
    assert len(family_rows(app, claims(cookie)["fam"])) == 2


@pytest.mark.parametrize(
    "config_overrides",
    [
        {
            "JWT_REFRESH_TOKEN_EXPIRES": 3600,
            "REFRESH_ABSOLUTE_LIFETIME": 3,
        }
    ],
)
def test_refresh_never_outlives_the_login(client, make_user):
    make_user()
    response = login(client)
    login_token, attributes = set_cookie_attributes(response)
    assert 2 <= int(attributes["Max-Age"]) <= 3
    session_end = claims(login_token)["exp"]
    assert claims(response.get_json()["access_token"])["exp"] <= session_end

    time.sleep(1.1)
    response = refresh(client)
    assert response.status_code == 200
    token, attributes = set_cookie_attributes(response)
    assert claims(token)["exp"] == session_end  # not now + 3600
    assert int(attributes["Max-Age"]) <= 2
    assert claims(response.get_json()["access_token"])["exp"] <= session_end

    time.sleep(max(0.0, session_end - time.time()) + 1.1)
    response = refresh(client)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Token has expired"}


@pytest.mark.parametrize(
    "config_overrides",
    [
        {
            "JWT_REFRESH_TOKEN_EXPIRES": 60,
            "REFRESH_ABSOLUTE_LIFETIME": 3600,
        }
    ],
)
def test_each_refresh_token_lives_the_refresh_lifetime_within_the_login(client, make_user):
    make_user()
    _, attributes = set_cookie_attributes(login(client))
    assert attributes["Max-Age"] == "60"
    response = refresh(client)
    token, attributes = set_cookie_attributes(response)
    assert attributes["Max-Age"] == "60"
    assert claims(token)["exp"] - claims(token)["iat"] == 60


@pytest.mark.parametrize("config_overrides", [{"RATE_LIMIT_LOGIN_PER_EMAIL": ""}])
def test_logout_racing_a_refresh_ends_the_session_without_errors(app, make_user):
    """Both lock the session before its tokens, so neither deadlocks nor fails; whatever
    the order, the session is over afterwards."""
    make_user()
    for _round in range(8):
        client = app.test_client()
        login(client)
        cookie = cookie_value(client)
        others = [app.test_client(), app.test_client()]
        for other in others:
            use_cookie(other, cookie)
        calls = [refresh, lambda c: c.post("/api/v1/auth/logout")]
        refreshed, logged_out = at_once(2, lambda i: calls[i](others[i]))
        results = {"refresh": refreshed, "logout": logged_out}
        assert results["logout"].status_code == 200, results["logout"].get_json()
        assert results["refresh"].status_code in (200, 401), results["refresh"].get_json()
        after = refresh(client)  # the login cookie: retired or revoked, the session is over
        assert after.status_code == 401 and after.get_json() == {"detail": "Token has been revoked"}
        successor = set_cookie_attributes(results["refresh"])
        if results["refresh"].status_code == 200 and successor:  # it rotated before the logout
            use_cookie(client, successor[0])
            assert refresh(client).get_json() == {"detail": "Token has been revoked"}


@pytest.mark.parametrize("config_overrides", [{"REFRESH_REUSE_GRACE_SECONDS": 0}])
def test_no_grace_means_none_even_within_the_same_instant(app, client, make_user, monkeypatch):
    """A replay read at the very instant of the rotation (as when it looked at the clock
    before waiting for the rotation's lock) is a reuse when no grace is allowed."""
    from datahub.identity import sessions

    make_user()
    login(client)
    cookie = cookie_value(client)
    frozen = sessions.utcnow()
    monkeypatch.setattr(sessions, "utcnow", lambda: frozen)
    rotator, replayer = app.test_client(), app.test_client()
    for each in (rotator, replayer):
        use_cookie(each, cookie)
    assert (refresh(rotator).status_code, refresh(replayer).status_code) == (200, 401)
