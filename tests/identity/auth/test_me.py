"""GET /api/v1/auth/me and every way an access token can be wrong."""

import time

import pytest

from tests.conftest import bearer, login
from tests.identity.auth.tokens import alg_none, forge


def test_me_returns_the_user_exactly(client, make_user):
    user = make_user(email="Ann@Example.com", name="Ann", roles=("editor", "viewer"))
    response = client.get(
        "/api/v1/auth/me",
        headers=bearer(login(client, "ann@example.com").get_json()["access_token"]),
    )
    assert response.status_code == 200
    body = response.get_json()
    assert list(body) == ["id", "email", "name", "is_active", "provider", "roles", "created_at"]
    assert body["id"] == user.id
    assert body["email"] == "ann@example.com"
    assert body["name"] == "Ann"
    assert body["is_active"] is True
    assert body["provider"] == "local"
    assert body["roles"] == ["editor", "viewer"]
    assert body["created_at"].startswith(user.created_at.strftime("%Y-%m-%dT%H:%M:%S"))


@pytest.mark.parametrize(
    "authorization, detail",
    [
        (None, "Not authenticated"),
        ("", "Not authenticated"),
        ("Basic dXNlcjpwYXNz", "Not authenticated"),
        ("Token abc", "Not authenticated"),
        ("Bearer", "Invalid token"),
        ("Bearer not.a.jwt", "Invalid token"),
        ("Bearer a b", "Invalid token"),
    ],
    ids=["missing", "empty", "basic", "other-scheme", "bearer-empty", "malformed", "two-parts"],
)
def test_missing_or_malformed_authorization(client, authorization, detail):
    headers = {} if authorization is None else {"Authorization": authorization}
    response = client.get("/api/v1/auth/me", headers=headers)
    assert response.status_code == 401
    assert response.get_json() == {"detail": detail}
    assert response.headers["WWW-Authenticate"] == "Bearer"


FORGERIES = {
    "expired": (
        lambda uid: forge(uid, iat=int(time.time()) - 4000, lifetime=1800),
        "Token has expired",
    ),
    "bad-signature": (lambda uid: forge(uid, secret="wrong-secret-" + "z" * 40), "Invalid token"),
    "alg-none": (lambda uid: alg_none(uid), "Invalid token"),
    "hs512": (lambda uid: forge(uid, secret="k" * 64, algorithm="HS512"), "Invalid token"),
    "no-jti": (lambda uid: forge(uid, jti=None), "Invalid token"),
    "no-sub": (lambda uid: forge(None), "Invalid token"),
    "refresh-as-access": (lambda uid: forge(uid, type_="refresh"), "Invalid token"),
    "unknown-user": (lambda uid: forge("00000000-0000-0000-0000-000000000000"), "Invalid token"),
    "wrong-issuer": (lambda uid: forge(uid, iss="someone-else"), "Invalid token"),
    "wrong-audience": (lambda uid: forge(uid, aud="another-api"), "Invalid token"),
    "no-exp": (lambda uid: forge(uid, exp=None), "Invalid token"),
    "not-yet-valid": (lambda uid: forge(uid, nbf=int(time.time()) + 3600), "Invalid token"),
    "stale-version": (lambda uid: forge(uid, ver=-1), "Token has been revoked"),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_forged_access_tokens(client, make_user, name):
    make_token, detail = FORGERIES[name]
    user = make_user()
    response = client.get("/api/v1/auth/me", headers=bearer(make_token(user.id)))
    assert response.status_code == 401
    assert response.get_json() == {"detail": detail}
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_a_correctly_forged_token_is_accepted(client, make_user):
    """The control for the forgeries above: only the one wrong thing makes them fail."""
    user = make_user()
    assert client.get("/api/v1/auth/me", headers=bearer(forge(user.id))).status_code == 200


def test_deactivated_user_loses_access_at_once(app, client, make_user):
    from datahub.identity.users import services

    make_user(email="admin@example.com", roles=["admin"])
    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    with app.app_context():
        services.set_active(services.get_by_email("user@example.com"), False)
    response = client.get("/api/v1/auth/me", headers=headers)
    assert response.status_code == 401
    assert response.get_json()["detail"] in {"Invalid token", "Token has been revoked"}


def test_a_changed_user_is_seen_at_once_by_a_token_already_out(app, client, make_user):
    """The guard keeps the Principal built from a user's row; a changed row is a new one."""
    from datahub.app.extensions import db
    from datahub.identity.users import services

    make_user(email="admin@example.com", roles=["admin"])
    make_user(roles=["viewer"])
    headers = bearer(login(client).get_json()["access_token"])
    assert client.get("/api/v1/auth/me", headers=headers).get_json()["roles"] == ["viewer"]
    with app.app_context():
        user = services.get_by_email("user@example.com")
        services.set_roles(user, ["editor"])
        user.name = "Renamed"
        db.session.commit()
    body = client.get("/api/v1/auth/me", headers=headers).get_json()
    assert (body["roles"], body["name"]) == (["editor"], "Renamed")
    with app.app_context():
        services.set_active(services.get_by_email("user@example.com"), False)
    assert client.get("/api/v1/auth/me", headers=headers).status_code == 401


def test_password_change_voids_access_tokens_already_out(app, client, make_user):
    from datahub.identity.users import services

    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    with app.app_context():
        services.set_password(services.get_by_email("user@example.com"), "a new password")
    response = client.get("/api/v1/auth/me", headers=headers)
    assert response.status_code == 401
    assert response.get_json() == {"detail": "Token has been revoked"}
    assert login(client, password="a new password").status_code == 200


def test_access_token_is_not_read_from_a_cookie_or_the_query(client, make_user):
    make_user()
    token = login(client).get_json()["access_token"]
    client.set_cookie("access_token_cookie", token)
    assert client.get("/api/v1/auth/me").get_json() == {"detail": "Not authenticated"}
    assert client.get(f"/api/v1/auth/me?jwt={token}").get_json() == {"detail": "Not authenticated"}


def test_me_is_serialised_exactly_as_the_user_schema_documents_it(app, client, make_user):
    """/me is built by hand for speed; it must not drift from the documented schema."""
    from flask import jsonify

    from datahub.app.extensions import db
    from datahub.identity.models import User
    from datahub.identity.users.schemas import UserSchema

    user = make_user(roles=("viewer", "editor"))
    response = client.get(
        "/api/v1/auth/me", headers=bearer(login(client).get_json()["access_token"])
    )
    with app.app_context():
        assert response.get_json() == UserSchema().dump(db.session.get(User, user.id))
        assert response.data == jsonify(response.get_json()).data  # as every other body
    assert response.mimetype == "application/json"
