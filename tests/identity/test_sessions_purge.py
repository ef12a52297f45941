"""Token checks on the refresh path, the blocklist forgetting expired entries and
``flask --app datahub sessions purge`` (issue 5, part 6)."""

import threading
from datetime import timedelta

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity import sessions
from datahub.identity.models import AuthSession, RefreshToken, RevokedAccessToken
from datahub.platform.database import utcnow
from tests.conftest import bearer, login
from tests.identity.auth.helpers import claims, cookie_value, refresh, use_cookie
from tests.identity.auth.tokens import forge


@pytest.mark.parametrize(
    "change, detail",
    [
        ({"iss": "someone-else"}, "Invalid token"),
        ({"aud": "another-api"}, "Invalid token"),
        ({"secret": "k" * 64, "algorithm": "HS512"}, "Invalid token"),
        ({}, None),  # the control: only the one wrong claim makes the others fail
    ],
    ids=["issuer", "audience", "algorithm", "control"],
)
def test_a_refresh_token_is_checked_for_issuer_audience_and_algorithm(
    client, make_user, change, detail
):
    make_user()
    login(client)
    real = claims(cookie_value(client))
    token = forge(real["sub"], type_="refresh", jti=real["jti"], fam=real["fam"], **change)
    use_cookie(client, token)
    response = refresh(client)
    if detail is None:
        assert response.status_code == 200
    else:
        assert response.status_code == 401 and response.get_json() == {"detail": detail}


@pytest.mark.parametrize("config_overrides", [{"JWT_ALGORITHM": "HS384"}])
def test_only_the_configured_algorithm_is_accepted(client, make_user):
    user = make_user()
    response = login(client)
    access = response.get_json()["access_token"]
    import jwt as pyjwt

    assert pyjwt.get_unverified_header(access)["alg"] == "HS384"
    assert client.get("/api/v1/auth/me", headers=bearer(access)).status_code == 200
    hs256 = forge(user.id)  # same secret, the algorithm the app used to default to
    response = client.get("/api/v1/auth/me", headers=bearer(hs256))
    assert response.status_code == 401 and response.get_json() == {"detail": "Invalid token"}


def _age(app, model, **where):
    """Move matching rows' expiry into the past."""
    with app.app_context():
        statement = sa.update(model).values(expires_at=utcnow() - timedelta(seconds=5))
        for column, value in where.items():
            statement = statement.where(getattr(model, column) == value)
        db.session.execute(statement)
        db.session.commit()


def _count(app, model):
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(model))


def test_the_blocklist_forgets_expired_entries(app, client, make_user):
    make_user()
    first = login(client).get_json()["access_token"]
    client.post("/api/v1/auth/logout", headers=bearer(first))
    assert _count(app, RevokedAccessToken) == 1
    _age(app, RevokedAccessToken)  # the blocked token has expired by now
    second = login(client).get_json()["access_token"]
    client.post("/api/v1/auth/logout", headers=bearer(second))
    with app.app_context():
        assert db.session.scalars(sa.select(RevokedAccessToken.jti)).all() == [
            claims(second)["jti"]
        ]
    assert client.get("/api/v1/auth/me", headers=bearer(second)).status_code == 401


def _expired_and_live_records(app, client, make_user):
    """Two logins of which one is past its absolute end, with a rotated token, and two
    blocklist entries of which one expired."""
    make_user()
    old_client, live_client = app.test_client(), app.test_client()
    old_access = login(old_client).get_json()["access_token"]
    refresh(old_client)  # two tokens in the old family
    old_family = claims(cookie_value(old_client))["fam"]
    live_access = login(live_client).get_json()["access_token"]
    refresh(live_client)
    live_cookie = cookie_value(live_client)
    old_client.post("/api/v1/auth/logout", headers=bearer(old_access))
    live_client.post("/api/v1/auth/logout", headers=bearer(live_access))
    login(live_client)  # the live user logs in again; its earlier family stays until expiry
    _age(app, AuthSession, id=old_family)
    _age(app, RefreshToken, family_id=old_family)
    _age(app, RevokedAccessToken, jti=claims(old_access)["jti"])
    return live_client, live_cookie


def test_purge_removes_what_has_expired_and_keeps_the_rest(app, client, runner, make_user):
    live_client, live_cookie = _expired_and_live_records(app, client, make_user)
    before = (_count(app, RefreshToken), _count(app, AuthSession), _count(app, RevokedAccessToken))
    assert before == (5, 3, 2)

    result = runner.invoke(args=["sessions", "purge"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == (
        "Purged 2 expired refresh tokens, 1 expired sessions and 1 expired blocklist entries"
    )
    assert (
        _count(app, RefreshToken),
        _count(app, AuthSession),
        _count(app, RevokedAccessToken),
    ) == (3, 2, 1)
    # A retired but unexpired token is kept, so its replay is still recognised.
    use_cookie(live_client, live_cookie)
    assert refresh(live_client).get_json() == {"detail": "Token has been revoked"}
    assert runner.invoke(args=["sessions", "purge"]).output.strip() == (
        "Purged 0 expired refresh tokens, 0 expired sessions and 0 expired blocklist entries"
    )


def test_purges_running_at_once_share_the_work(app, client, make_user):
    _expired_and_live_records(app, client, make_user)
    barrier = threading.Barrier(2)
    results, errors = [], []

    def run():
        try:
            with app.app_context():
                barrier.wait()
                results.append(sessions.purge_expired())
                db.session.remove()
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors
    assert sum(r["refresh_tokens"] for r in results) == 2
    assert sum(r["sessions"] for r in results) == 1
    assert sum(r["revoked_access_tokens"] for r in results) == 1


def test_an_access_token_dies_with_its_sessions_absolute_end(app, client, make_user):
    make_user()
    access = login(client).get_json()["access_token"]
    family = claims(cookie_value(client))["fam"]
    _age(app, AuthSession, id=family)
    with app.app_context():
        sessions.purge_expired()
    # The row is gone: a token naming it is revoked.
    response = client.get("/api/v1/auth/me", headers=bearer(access))
    assert response.status_code == 401 and response.get_json() == {
        "detail": "Token has been revoked"
    }
