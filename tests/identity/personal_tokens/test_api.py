"""Personal access tokens (datahub.identity.personal_tokens), through HTTP: creating,
listing and revoking them, using them as bearer tokens, their scopes, what no token may
do, expiry, last use and the audit log."""

import hashlib
import json
import logging
import time
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.models import PersonalAccessToken
from tests.conftest import bearer, login

TOKENS = "/api/v1/auth/tokens"
ME = "/api/v1/auth/me"


def create(client, headers, name="script", scopes=("read",), **extra):
    return client.post(
        TOKENS, headers=headers, json={"name": name, "scopes": list(scopes), **extra}
    )


@pytest.fixture
def session_headers(auth_headers):
    return auth_headers(roles=("editor",))


@pytest.fixture
def pat(client, session_headers):
    """``(headers, body)`` of a read-and-write token of the editor user@example.com."""

    def make(scopes=("read", "write"), headers=session_headers, **extra):
        response = create(client, headers, scopes=scopes, **extra)
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        return bearer(body["token"]), body

    return make


def stored(app, token_id):
    with app.app_context():
        return db.session.get(PersonalAccessToken, token_id)


@pytest.fixture
def audit_log(caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")

    def events(name):
        found = [json.loads(r.getMessage()) for r in caplog.records if r.name == "datahub.audit"]
        return [e for e in found if e["event"] == name]

    events.text = lambda: caplog.text
    return events


def test_creating_shows_the_secret_once_and_stores_only_its_hash(app, client, session_headers):
    response = create(client, session_headers, name="nightly", scopes=["write", "read"])
    assert response.status_code == 201
    body = response.get_json()
    assert set(body) == {
        "id",
        "name",
        "scopes",
        "created_at",
        "expires_at",
        "last_used_at",
        "token",
    }
    assert body["name"] == "nightly" and body["scopes"] == ["read", "write"]
    assert body["last_used_at"] is None and body["token"].startswith("dhp_")
    assert response.headers["Location"] == f"{TOKENS}/{body['id']}"
    assert response.headers["Cache-Control"] == "no-store"
    created = datetime.fromisoformat(body["created_at"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert expires - created == timedelta(days=30)  # the default

    record = stored(app, body["id"])
    assert record.token_hash == hashlib.sha256(body["token"].encode()).hexdigest()
    assert body["token"] not in repr(
        {c.key: getattr(record, c.key) for c in sa.inspect(record).mapper.column_attrs}
    )

    listed = client.get(TOKENS, headers=session_headers).get_json()
    assert listed["total"] == 1 and listed["limit"] == 20 and listed["offset"] == 0
    assert listed["items"] == [{k: v for k, v in body.items() if k != "token"}]
    one = client.get(f"{TOKENS}/{body['id']}", headers=session_headers)
    assert "token" not in one.get_json() and one.get_json()["id"] == body["id"]


def test_list_pages_and_is_the_callers_own(client, session_headers, auth_headers, pat):
    for _ in range(3):
        pat()
    other = auth_headers("other@example.com")
    assert client.get(TOKENS, headers=other).get_json()["total"] == 0
    page = client.get(f"{TOKENS}?limit=2&offset=2", headers=session_headers).get_json()
    assert (page["total"], page["limit"], page["offset"], len(page["items"])) == (3, 2, 2, 1)
    assert client.get(f"{TOKENS}?limit=0", headers=session_headers).status_code == 422


@pytest.mark.parametrize(
    "body",
    [
        {"name": "x", "scopes": []},
        {"name": "x", "scopes": ["read", "read"]},
        {"name": "x", "scopes": ["read", "admin"]},
        {"name": "x", "scopes": ["read"], "expires_in_days": 0},
        {"name": "x", "scopes": ["read"], "expires_in_days": 366},
        {"name": "", "scopes": ["read"]},
        {"scopes": ["read"]},
        {"name": "x"},
    ],
)
def test_invalid_bodies_are_422(client, session_headers, body):
    response = client.post(TOKENS, headers=session_headers, json=body)
    assert response.status_code == 422, response.get_json()


def test_expiry_bounds_are_accepted(client, session_headers):
    for days in (1, 365):
        assert create(client, session_headers, expires_in_days=days).status_code == 201


def test_a_read_token_reads_only(client, pat):
    headers, _ = pat(scopes=["read"])
    assert client.get(ME, headers=headers).get_json()["email"] == "user@example.com"
    assert client.get("/api/v1/datasets", headers=headers).status_code == 200
    assert client.head(ME, headers=headers).status_code == 200
    refused = client.post("/api/v1/datasets", headers=headers, json={"name": "d"})
    assert (refused.status_code, refused.get_json()["detail"]) == (403, "Forbidden")
    assert client.delete(f"{TOKENS}/x", headers=headers).status_code == 403
    assert client.options("/api/v1/datasets", headers=headers).status_code == 403


def test_a_write_token_creates_a_dataset(client, pat):
    headers, _ = pat()
    response = client.post("/api/v1/datasets", headers=headers, json={"name": "by script"})
    assert response.status_code == 201, response.get_json()


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("post", TOKENS, {"name": "again", "scopes": ["read"]}),
        ("put", "/api/v1/auth/me/password", {"current_password": "x", "new_password": "y" * 9}),
        ("get", "/api/v1/auth/sessions", None),
        ("delete", "/api/v1/auth/sessions/some-session", None),
        ("post", "/api/v1/auth/logout", None),
        ("post", "/api/v1/auth/logout-all", None),
    ],
)
def test_no_token_creates_tokens_changes_the_password_or_manages_sessions(
    client, pat, method, path, body
):
    headers, _ = pat()
    response = getattr(client, method)(path, headers=headers, json=body)
    assert (response.status_code, response.get_json()["detail"]) == (403, "Forbidden")


def test_an_admins_token_sets_no_users_password(client, auth_headers, session_headers, pat):
    admin = auth_headers("admin@example.com", roles=("admin",))
    headers, _ = pat(headers=admin)
    user_id = client.get(ME, headers=session_headers).get_json()["id"]
    response = client.patch(
        f"/api/v1/users/{user_id}", headers=headers, json={"password": "new password 123"}
    )
    assert (response.status_code, response.get_json()["detail"]) == (403, "Forbidden")
    assert login(client, "user@example.com").status_code == 200  # the old password stands
    renamed = client.patch(f"/api/v1/users/{user_id}", headers=headers, json={"name": "B"})
    assert renamed.status_code == 200  # the rest of a user's administration is allowed
    by_login = client.patch(
        f"/api/v1/users/{user_id}", headers=admin, json={"password": "new password 123"}
    )
    assert by_login.status_code == 200


def test_a_token_lists_and_revokes_its_users_tokens(client, pat):
    headers, body = pat()
    assert client.get(TOKENS, headers=headers).get_json()["total"] == 1
    assert client.delete(f"{TOKENS}/{body['id']}", headers=headers).status_code == 204
    assert client.get(ME, headers=headers).get_json() == {"detail": "Invalid token"}


def test_an_expired_token_is_401(app, client, pat):
    headers, body = pat()
    assert client.get(ME, headers=headers).status_code == 200
    with app.app_context():
        db.session.get(PersonalAccessToken, body["id"]).expires_at = datetime.now(
            timezone.utc
        ) - timedelta(seconds=1)
        db.session.commit()
    response = client.get(ME, headers=headers)
    assert (response.status_code, response.get_json()) == (401, {"detail": "Token has expired"})
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_unknown_and_revoked_tokens_are_401(client, session_headers, pat, audit_log):
    headers, body = pat()
    unknown = client.get(ME, headers=bearer("dhp_" + "x" * 43))
    assert (unknown.status_code, unknown.get_json()) == (401, {"detail": "Invalid token"})
    assert client.get(ME, headers=headers).status_code == 200
    assert client.delete(f"{TOKENS}/{body['id']}", headers=session_headers).status_code == 204
    revoked = client.get(ME, headers=headers)
    assert (revoked.status_code, revoked.get_json()) == (401, {"detail": "Invalid token"})
    again = client.delete(f"{TOKENS}/{body['id']}", headers=session_headers)
    assert (again.status_code, again.get_json()["detail"]) == (404, "Token not found")
    [event] = audit_log("token_revoked")
    assert event["token_id"] == body["id"] and event["by"] == event["user_id"]


def test_another_users_token_cannot_be_revoked_by_its_owner_route(client, auth_headers, pat):
    _, body = pat()
    other = auth_headers("other@example.com")
    response = client.delete(f"{TOKENS}/{body['id']}", headers=other)
    assert (response.status_code, response.get_json()["detail"]) == (404, "Token not found")
    assert client.get(f"{TOKENS}/{body['id']}", headers=other).status_code == 404


def test_a_deactivated_owners_tokens_stop_at_once(app, client, auth_headers, pat):
    headers, _ = pat()
    admin = auth_headers("admin@example.com", roles=("admin",))
    assert client.get(ME, headers=headers).status_code == 200
    user_id = client.get(ME, headers=headers).get_json()["id"]
    patched = client.patch(f"/api/v1/users/{user_id}", headers=admin, json={"is_active": False})
    assert patched.status_code == 200
    response = client.get(ME, headers=headers)
    assert (response.status_code, response.get_json()) == (401, {"detail": "Invalid token"})


def test_reactivating_the_owner_brings_no_token_back(client, auth_headers, pat):
    headers, _ = pat()
    admin = auth_headers("admin@example.com", roles=("admin",))
    user_id = client.get(ME, headers=headers).get_json()["id"]
    for active in (False, True):
        patched = client.patch(
            f"/api/v1/users/{user_id}", headers=admin, json={"is_active": active}
        )
        assert (patched.status_code, patched.get_json()["is_active"]) == (200, active)
    response = client.get(ME, headers=headers)
    assert (response.status_code, response.get_json()) == (401, {"detail": "Invalid token"})
    listed = client.get(f"/api/v1/users/{user_id}/tokens", headers=admin).get_json()
    assert (listed["total"], listed["items"]) == (0, [])


def test_the_cli_deactivating_the_owner_revokes_the_tokens_for_good(client, runner, pat):
    headers, _ = pat()
    for command in ("deactivate", "activate"):
        result = runner.invoke(args=["users", command, "user@example.com"])
        assert result.exit_code == 0, result.output
    response = client.get(ME, headers=headers)
    assert (response.status_code, response.get_json()) == (401, {"detail": "Invalid token"})


def test_admins_list_and_revoke_a_users_tokens(client, auth_headers, pat, audit_log):
    headers, body = pat()
    user_id = client.get(ME, headers=headers).get_json()["id"]
    admin = auth_headers("admin@example.com", roles=("admin",))
    listed = client.get(f"/api/v1/users/{user_id}/tokens", headers=admin).get_json()
    assert [item["id"] for item in listed["items"]] == [body["id"]]
    assert "token" not in listed["items"][0]
    assert client.get("/api/v1/users/nobody/tokens", headers=admin).status_code == 404
    assert client.delete(f"/api/v1/users/{user_id}/tokens/nope", headers=admin).status_code == 404

    viewer = auth_headers("viewer@example.com")
    assert client.get(f"/api/v1/users/{user_id}/tokens", headers=viewer).status_code == 403
    refused = client.delete(f"/api/v1/users/{user_id}/tokens/{body['id']}", headers=viewer)
    assert refused.status_code == 403

    deleted = client.delete(f"/api/v1/users/{user_id}/tokens/{body['id']}", headers=admin)
    assert deleted.status_code == 204
    assert client.get(ME, headers=headers).status_code == 401
    admin_id = client.get(ME, headers=admin).get_json()["id"]
    [event] = audit_log("token_revoked")
    assert (event["user_id"], event["by"]) == (user_id, admin_id)


def test_last_use_is_kept_to_the_minute_with_its_address(app, client, pat, audit_log):
    headers, body = pat()
    before = datetime.now(timezone.utc).replace(second=0, microsecond=0)
    assert client.get(ME, headers=headers).status_code == 200
    assert client.get(ME, headers=headers).status_code == 200
    record = stored(app, body["id"])
    assert record.last_used_at.second == 0 and record.last_used_at.microsecond == 0
    assert before <= record.last_used_at <= datetime.now(timezone.utc)
    assert record.last_used_address == "127.0.0.1"
    assert len(audit_log("token_used_from_new_address")) == 1  # the first use

    other = {"REMOTE_ADDR": "10.1.2.3"}
    assert client.get(ME, headers=headers, environ_base=other).status_code == 200
    assert stored(app, body["id"]).last_used_address == "10.1.2.3"
    events = audit_log("token_used_from_new_address")
    assert len(events) == 2 and events[1]["client_address"] == "10.1.2.3"
    assert events[1]["token_id"] == body["id"]
    listed = client.get(TOKENS, headers=headers).get_json()["items"][0]
    assert datetime.fromisoformat(listed["last_used_at"]) == record.last_used_at


def test_last_use_is_written_at_most_once_a_minute(app, client, pat):
    headers, _ = pat()
    updates = []

    def note(_conn, _cursor, statement, *_args):
        if statement.lstrip().upper().startswith("UPDATE PERSONAL_ACCESS_TOKENS"):
            updates.append(statement)

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", note)
    try:
        minute = int(time.time() // 60)
        for _ in range(5):
            assert client.get(ME, headers=headers).status_code == 200
        if int(time.time() // 60) == minute:  # else the minute turned: a second write is due
            assert len(updates) == 1, updates
    finally:
        sa.event.remove(engine, "before_cursor_execute", note)


def test_the_audit_log_records_creation_without_secrets(client, pat, audit_log):
    headers, body = pat(scopes=["read"])
    client.get(ME, headers=headers)
    [event] = audit_log("token_created")
    assert event["token_id"] == body["id"] and event["scopes"] == ["read"]
    token = headers["Authorization"].split()[1]
    digest = hashlib.sha256(token.encode()).hexdigest()
    assert token not in audit_log.text() and digest not in audit_log.text()


def test_a_pat_authenticates_the_rate_limited_routes_key(client, pat):
    """``current_claims`` of a token has the user id and no session."""
    headers, _ = pat()
    response = client.get("/api/v1/auth/me/usage", headers=headers)
    assert response.status_code == 200


def test_a_login_still_works_beside_tokens(client, pat):
    pat()
    assert login(client).status_code == 200


def test_write_implies_read(client, session_headers):
    """``["write"]`` is ``["read", "write"]``: what the document calls valid is accepted."""
    made = client.post(TOKENS, json={"name": "w", "scopes": ["write"]}, headers=session_headers)
    assert made.status_code == 201 and made.get_json()["scopes"] == ["read", "write"]
