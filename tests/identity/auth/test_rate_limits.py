"""Rate limits on login, refresh and password change; the client address behind proxies
(issue 5, parts 3 and 4). Counts live in the default storage here, the SQLite file in the
instance folder (a fresh folder per test, from the ``app`` fixture);
tests/e2e/test_rate_limits_workers.py runs them through gunicorn's workers and
test_rate_limits_redis.py through Redis."""

import json
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from datahub import create_app
from datahub.app.extensions import limiter
from datahub.platform.ratelimit_store import SQLiteStorage
from tests.conftest import PASSWORD, bearer, login
from tests.identity.auth.helpers import refresh

LOGIN = "/api/v1/auth/login"


def attempt(client, email="user@example.com", password="wrong password", **kwargs):
    return client.post(LOGIN, json={"email": email, "password": password}, **kwargs)


def assert_too_many(response, window=60):
    assert response.status_code == 429
    assert response.mimetype == "application/json"
    assert response.get_json() == {"detail": "Too many requests"}
    assert 1 <= int(response.headers["Retry-After"]) <= window
    assert "Set-Cookie" not in response.headers


def test_login_per_email_allows_a_few_mistakes_then_429(client, make_user):
    make_user()
    for _ in range(4):  # a person who mistyped, several times
        assert attempt(client).status_code == 401
    assert login(client).status_code == 200  # the fifth try, right: the count starts again
    for _ in range(5):
        assert attempt(client).status_code == 401
    assert_too_many(attempt(client))
    assert_too_many(login(client))  # even the right password, until the window moves on
    assert_too_many(attempt(client, email="  USER@example.com "))  # the same account
    # Another account from the same address is not affected.
    assert attempt(client, email="other@example.com").status_code == 401


def test_thirty_successful_logins_in_a_row_all_answer_200(client, make_user):
    """Someone who signs in often is never locked out: successes are not failures."""
    make_user()
    assert [login(client).status_code for _ in range(30)] == [200] * 30
    for _ in range(5):  # failures still lock the account out
        assert attempt(client).status_code == 401
    assert_too_many(attempt(client))
    assert_too_many(login(client))


@pytest.mark.parametrize("config_overrides", [{"RATE_LIMIT_LOGIN_PER_ADDRESS": "3/minute"}])
def test_successful_logins_do_not_count_as_failures_of_the_address(client, make_user):
    make_user()
    assert [login(client).status_code for _ in range(6)] == [200] * 6
    for i in range(3):
        assert attempt(client, email=f"guess{i}@example.com").status_code == 401
    assert_too_many(attempt(client, email="guess9@example.com"))
    assert_too_many(login(client))  # the address is locked out, whoever logs in


@pytest.mark.parametrize(
    "config_overrides",
    [{"RATE_LIMIT_LOGIN_SUCCESS_PER_ADDRESS": "3/minute", "RATE_LIMIT_LOGIN_PER_EMAIL": ""}],
)
def test_successful_logins_per_address_have_a_higher_limit_of_their_own(client, make_user):
    make_user()
    assert [login(client).status_code for _ in range(3)] == [200] * 3
    assert_too_many(login(client))
    other = {"environ_base": {"REMOTE_ADDR": "192.0.2.7"}}
    assert (
        client.post(
            LOGIN, json={"email": "user@example.com", "password": PASSWORD}, **other
        ).status_code
        == 200
    )


def test_counts_are_kept_in_the_instance_folder_and_shared_by_every_app_on_it(
    app, client, make_user, base_config
):
    """The default storage: one file per instance folder, which every worker process of
    the host opens. A second app on the same folder (another worker) sees the counts."""
    make_user()
    path = os.path.join(app.instance_path, "ratelimits.sqlite")
    assert app.config["RATELIMIT_STORAGE_URI"] == f"sqlite:///{path}"
    assert isinstance(limiter.storage, SQLiteStorage) and limiter.storage.path == path
    for _ in range(5):
        assert attempt(client).status_code == 401
    assert_too_many(attempt(client))
    assert os.path.exists(path)

    other_worker = create_app(base_config)  # same instance folder (DATAHUB_INSTANCE_PATH)
    assert other_worker.instance_path == app.instance_path
    assert_too_many(attempt(other_worker.test_client()))
    assert_too_many(login(other_worker.test_client()))


@pytest.mark.parametrize("config_overrides", [{"RATELIMIT_STORAGE_URI": "memory://"}])
def test_memory_storage_still_works_when_configured(client, make_user):
    make_user()
    for _ in range(5):
        assert attempt(client).status_code == 401
    assert_too_many(attempt(client))


def test_the_per_email_limit_also_has_an_hourly_cap(client, make_user, app):
    assert app.config["RATE_LIMIT_LOGIN_PER_EMAIL"] == "5/minute;20/hour"
    assert app.config["RATE_LIMIT_LOGIN_PER_ADDRESS"] == "30/minute"
    assert app.config["RATE_LIMIT_LOGIN_SUCCESS_PER_ADDRESS"] == "120/minute"
    assert app.config["RATE_LIMIT_REFRESH_PER_ADDRESS"] == "60/minute"


@pytest.mark.parametrize("config_overrides", [{"RATE_LIMIT_LOGIN_PER_ADDRESS": "3/minute"}])
def test_login_per_address_counts_every_email(client, make_user):
    for i in range(3):
        assert attempt(client, email=f"guess{i}@example.com").status_code == 401
    assert_too_many(attempt(client, email="guess9@example.com"))
    other = {"environ_base": {"REMOTE_ADDR": "192.0.2.7"}}
    assert attempt(client, email="guess9@example.com", **other).status_code == 401


@pytest.mark.serial  # four requests must fit in the one-second window
@pytest.mark.parametrize("config_overrides", [{"RATE_LIMIT_LOGIN_PER_EMAIL": "3 per 1 second"}])
def test_a_limit_resets_when_its_window_has_passed(client, make_user):
    make_user()
    for _ in range(3):
        assert attempt(client).status_code == 401
    blocked = attempt(client)
    assert_too_many(blocked, window=1)
    time.sleep(1.2)
    assert login(client).status_code == 200


def test_a_limit_resets_with_the_storage(app, client, make_user):
    make_user()
    for _ in range(5):
        attempt(client)
    assert_too_many(attempt(client))
    with app.app_context():
        limiter.reset()
    assert login(client).status_code == 200


@pytest.mark.parametrize("config_overrides", [{"RATE_LIMIT_REFRESH_PER_ADDRESS": "2/minute"}])
def test_refresh_is_limited_per_client_address(client, make_user):
    make_user()
    login(client)
    assert refresh(client).status_code == 200
    assert refresh(client).status_code == 200
    assert_too_many(refresh(client))


@pytest.mark.parametrize("config_overrides", [{"RATE_LIMIT_PASSWORD_CHANGE_PER_USER": "2/minute"}])
def test_password_change_is_limited_per_user(client, make_user):
    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    body = {"current_password": "a wrong guess", "new_password": "a new password"}
    for _ in range(2):
        assert client.put("/api/v1/auth/me/password", headers=headers, json=body).status_code == 422
    assert_too_many(client.put("/api/v1/auth/me/password", headers=headers, json=body))


@pytest.mark.parametrize(
    "config_overrides",
    [
        {"RATELIMIT_ENABLED": False},
        {"RATE_LIMIT_LOGIN_PER_EMAIL": ""},
    ],
    ids=["all-off", "per-email-off"],
)
def test_limits_can_be_turned_off(client, make_user):
    make_user()
    for _ in range(8):
        assert attempt(client).status_code == 401


def test_an_enabled_app_after_a_disabled_one_is_limited_again(base_config, migrated, make_user):
    """The limiter is one object rebound per app; one app's settings must not stick."""
    from datahub import create_app

    create_app({**base_config, "RATELIMIT_ENABLED": False})
    app = create_app(base_config)
    client = app.test_client()
    make_user()
    for _ in range(5):
        attempt(client)
    assert_too_many(attempt(client))


@pytest.mark.parametrize("config_overrides", [{"RATE_LIMIT_LOGIN_PER_ADDRESS": "3/minute"}])
def test_a_spoofed_x_forwarded_for_does_not_dodge_the_limit(client):
    """No trusted proxy by default: the header is the client's word, and is ignored."""
    for i in range(3):
        response = attempt(
            client, email=f"guess{i}@example.com", headers={"X-Forwarded-For": f"203.0.113.{i}"}
        )
        assert response.status_code == 401
    assert_too_many(
        attempt(client, email="guess7@example.com", headers={"X-Forwarded-For": "198.51.100.99"})
    )


@pytest.mark.parametrize(
    "config_overrides",
    [
        {"RATE_LIMIT_LOGIN_PER_ADDRESS": "3/minute", "PROXY_FIX_X_FOR": 1},
    ],
)
def test_behind_one_proxy_the_last_hop_is_the_client(client, caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    proxy = {"REMOTE_ADDR": "127.0.0.1"}  # nginx on loopback
    for i in range(3):
        # The client prepends whatever it likes; nginx appends the address it saw.
        response = attempt(
            client,
            email=f"guess{i}@example.com",
            environ_base=proxy,
            headers={"X-Forwarded-For": f"10.9.9.{i}, 198.51.100.1"},
        )
        assert response.status_code == 401
    assert_too_many(
        attempt(
            client,
            email="guess7@example.com",
            environ_base=proxy,
            headers={"X-Forwarded-For": "198.51.100.1"},
        )
    )
    # Another client behind the same proxy has its own count.
    assert (
        attempt(
            client,
            email="guess7@example.com",
            environ_base=proxy,
            headers={"X-Forwarded-For": "198.51.100.2"},
        ).status_code
        == 401
    )
    failures = [
        json.loads(r.getMessage())
        for r in caplog.records
        if r.name == "datahub.audit" and '"login_failed"' in r.getMessage()
    ]
    assert {f["client_address"] for f in failures} == {"198.51.100.1", "198.51.100.2"}


def test_a_breach_is_audited(client, make_user, caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    make_user()
    for _ in range(6):
        attempt(client)
    events = [json.loads(r.getMessage()) for r in caplog.records if r.name == "datahub.audit"]
    assert [e["event"] for e in events].count("rate_limited") == 1
    assert PASSWORD not in caplog.text and "wrong password" not in caplog.text


@pytest.mark.parametrize("config_overrides", [{"RATELIMIT_STORAGE_URI": "redis://127.0.0.1:1/5"}])
def test_an_unreachable_redis_falls_back_to_counting_in_the_worker(client, make_user, caplog):
    """Redis down must not turn every login into a 500 nor switch the limits off."""
    make_user()
    for _ in range(4):
        assert attempt(client).status_code == 401
    assert login(client).status_code == 200  # starts the count again, in the worker
    for _ in range(5):
        assert attempt(client).status_code == 401
    assert_too_many(attempt(client))
    assert "falling back to in-memory storage" in caplog.text


@pytest.mark.parametrize(
    "config_overrides",
    [
        {"RATELIMIT_APPLICATION": "2/minute"},
        {"RATELIMIT_DEFAULT": "2/minute"},
    ],
)
def test_request_wide_limits_from_the_configuration_apply(client, make_user, config_overrides):
    """Routes without limits of their own skip Flask-Limiter's before-request pass (it costs
    ~70 µs a request); a configured application-wide or default limit must still count."""
    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    responses = [client.get("/api/v1/auth/me", headers=headers) for _ in range(3)]
    assert responses[0].status_code == 200  # (login counts towards an application limit)
    assert_too_many(responses[-1])


def test_routes_without_limits_are_not_limited(client, make_user):
    make_user()
    headers = bearer(login(client).get_json()["access_token"])
    for _ in range(100):
        assert client.get("/api/v1/auth/me", headers=headers).status_code == 200


def test_a_request_that_checked_no_limit_reads_an_empty_read_only_limiter_state(app):
    with app.test_request_context("/api/v1/auth/me"):
        state = limiter.context
        assert state.view_rate_limit is None and not state.conditional_deductions
        with pytest.raises(AttributeError):
            state.view_rate_limit = object()
        state.reset()  # the teardown hook's call


def test_wrong_passwords_sent_together_are_each_counted(app, make_user):
    """Every attempt on an account counts as it arrives: ten guesses sent at once get five
    answers, not ten."""
    make_user()
    with ThreadPoolExecutor(10) as pool:
        statuses = sorted(pool.map(lambda _: attempt(app.test_client()).status_code, range(10)))
    assert statuses == [401] * 5 + [429] * 5
