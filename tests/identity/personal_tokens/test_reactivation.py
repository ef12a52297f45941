"""Deactivating a token's owner ends the token for good on every host: host B has kept
the token's answer (the auth cache, the real Redis), host A deactivates and reactivates
the owner, and B refuses the token from then on."""

from tests.conftest import bearer, login
from tests.identity.auth.test_auth_cache import (  # noqa: F401 (fixtures)
    _stop_host_a,
    config_overrides,
    host_b,
    redis_url,
    shared_channel,
)
from tests.identity.personal_tokens.test_cache import INVALID, ME, two_hosts  # noqa: F401


def test_a_reactivated_owners_token_stays_refused_on_every_host(two_hosts):
    a, b, _session, headers, _token, _ = two_hosts
    user_id = b.get(ME, headers=headers).get_json()["id"]
    admin = bearer(login(a, "admin@example.com").get_json()["access_token"])
    for active in (False, True):
        response = a.patch(f"/api/v1/users/{user_id}", json={"is_active": active}, headers=admin)
        assert response.status_code == 200, response.get_json()
    for host in (a, b):
        response = host.get(ME, headers=headers)
        assert (response.status_code, response.get_json()) == (401, INVALID)
