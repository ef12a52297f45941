"""The per-request user lookup with AUTH_LOOKUP_DIRECT_CONNECTIONS off (a pooled
connection per lookup): the same answers as with the guard's own connections."""

from concurrent.futures import ThreadPoolExecutor

from datahub.app.extensions import db
from tests.conftest import bearer, login
from tests.fallbacks import setting_off
from tests.identity.auth.test_me import (  # noqa: F401  (collected here too)
    test_a_changed_user_is_seen_at_once_by_a_token_already_out,
    test_deactivated_user_loses_access_at_once,
    test_me_returns_the_user_exactly,
    test_password_change_voids_access_tokens_already_out,
)
from tests.identity.auth.test_session import (  # noqa: F401
    test_logout_blocks_the_access_token_sent_with_it,
    test_logout_leaves_other_sessions_alone,
)
from tests.identity.auth.test_sessions_api import (  # noqa: F401
    test_deleting_a_session_ends_its_refresh_and_access_tokens,
)
from tests.identity.test_guard import test_a_database_that_cannot_be_reached_answers_503  # noqa: F401

public_api_only = setting_off("AUTH_LOOKUP_DIRECT_CONNECTIONS")


def test_each_lookup_borrows_a_pooled_connection_and_returns_it(app, make_user):
    make_user()
    client = app.test_client()
    headers = bearer(login(client).get_json()["access_token"])
    connections = app.extensions["datahub.access_guard"].connections
    assert connections.direct is False
    with ThreadPoolExecutor(16) as pool:
        answers = list(
            pool.map(
                lambda _: app.test_client().get("/api/v1/auth/me", headers=headers).status_code,
                range(100),
            )
        )
    assert answers == [200] * 100
    assert connections.opened == [] and connections.idle == []
    with app.app_context():
        assert db.engine.pool.checkedout() == 0
