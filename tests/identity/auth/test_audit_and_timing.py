"""The audit log (issue 5, part 7) and logins that fail alike whatever the reason."""

import json
import logging
import statistics
import time

import pytest

from tests.conftest import PASSWORD, bearer, login
from tests.identity.auth.helpers import claims, cookie_value

NEW_PASSWORD = "a brand new password"


@pytest.fixture
def audit_log(caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")

    def events(name=None):
        found = [json.loads(r.getMessage()) for r in caplog.records if r.name == "datahub.audit"]
        return [e for e in found if name is None or e["event"] == name]

    events.text = lambda: caplog.text
    return events


def test_every_security_event_is_one_json_line_without_secrets(app, make_user, audit_log):
    from datahub.identity.users import services

    user = make_user()
    make_user(email="admin@example.com", roles=["admin"])
    laptop, phone = app.test_client(), app.test_client()
    assert login(laptop, password="wrong password").status_code == 401
    assert login(laptop, email="nobody@example.com").status_code == 401
    login_response = login(laptop)
    access = login_response.get_json()["access_token"]
    phone_access = login(phone).get_json()["access_token"]
    phone_sid = claims(cookie_value(phone))["fam"]
    secrets = [
        PASSWORD,
        "wrong password",
        NEW_PASSWORD,
        access,
        phone_access,
        cookie_value(laptop),
        cookie_value(phone),
    ]

    laptop.delete(f"/api/v1/auth/sessions/{phone_sid}", headers=bearer(access))
    response = laptop.put(
        "/api/v1/auth/me/password",
        headers=bearer(access),
        json={"current_password": PASSWORD, "new_password": NEW_PASSWORD},
    )
    access = response.get_json()["access_token"]
    secrets.append(access)
    with app.app_context():
        services.set_roles(services.get_by_email("user@example.com"), ["editor"])
    laptop.post("/api/v1/auth/logout-all", headers=bearer(access))
    laptop.post("/api/v1/auth/logout", headers=bearer(access))

    failures = audit_log("login_failed")
    assert [(f["email"], f.get("user_id"), f["reason"]) for f in failures] == [
        ("user@example.com", user.id, "wrong_password"),
        ("nobody@example.com", None, "unknown_email"),
    ]
    (success, _phone) = audit_log("login_succeeded")
    assert success["user_id"] == user.id and success["email"] == "user@example.com"
    assert success["client_address"] == "127.0.0.1"
    assert success["request_id"] == login_response.headers["X-Request-ID"]
    assert success["session_id"] == claims(access)["sid"]
    (deleted,) = audit_log("session_deleted")
    assert deleted["session_id"] == phone_sid and deleted["current"] is False
    (changed,) = audit_log("password_changed")
    assert changed["user_id"] == user.id and changed["kept_session_id"] == claims(access)["sid"]
    (roles,) = audit_log("roles_changed")
    assert (roles["roles_before"], roles["roles_after"], roles["via"]) == (
        ["viewer"],
        ["editor"],
        "cli",
    )
    (everywhere,) = audit_log("logout_all")
    assert everywhere["user_id"] == user.id and everywhere["sessions_ended"] == 1
    assert audit_log("logout")[-1]["user_id"] == user.id

    for event in audit_log():
        assert {"ts", "event"} <= set(event)
    text = audit_log.text()
    for secret in secrets:
        assert secret not in text
    assert "password_hash" not in text and "$2b$" not in text


@pytest.mark.serial  # compares response times
@pytest.mark.parametrize("config_overrides", [{"BCRYPT_ROUNDS": 10, "RATELIMIT_ENABLED": False}])
def test_unknown_email_and_wrong_password_are_indistinguishable(client, make_user):
    make_user()
    timings = {"unknown": [], "wrong": []}
    responses = {}
    cases = {
        "unknown": ("nobody@example.com", PASSWORD),
        "wrong": ("user@example.com", "wrong password"),
    }
    login(client, *cases["wrong"])  # warm up (the dummy hash is made once per app)
    login(client, *cases["unknown"])
    for _ in range(25):
        for name, (email, password) in cases.items():  # interleaved, so drift hits both
            started = time.perf_counter()
            response = login(client, email, password)
            timings[name].append(time.perf_counter() - started)
            responses[name] = response

    unknown, wrong = responses["unknown"], responses["wrong"]
    assert unknown.status_code == wrong.status_code == 401
    assert unknown.get_data() == wrong.get_data() == b'{"detail":"Invalid email or password"}\n'
    ignore = {"X-Request-ID", "Date"}
    assert {k: v for k, v in unknown.headers if k not in ignore} == {
        k: v for k, v in wrong.headers if k not in ignore
    }
    median_unknown = statistics.median(timings["unknown"])
    median_wrong = statistics.median(timings["wrong"])
    assert median_wrong > 0.01  # the bcrypt check really ran at cost 10
    assert abs(median_unknown - median_wrong) <= 0.2 * max(median_unknown, median_wrong), timings
