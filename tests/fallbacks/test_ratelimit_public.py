"""The rate limits with RATELIMIT_FAST_PATH off (Flask-Limiter's own per-request work):
the key cases of tests/identity/auth/test_rate_limits.py, with the same results."""

from flask_limiter._extension import LimiterContext

from datahub.app.extensions import limiter
from tests.fallbacks import setting_off
from tests.identity.auth.test_rate_limits import (  # noqa: F401  (collected here too)
    test_a_breach_is_audited,
    test_a_limit_resets_with_the_storage,
    test_an_enabled_app_after_a_disabled_one_is_limited_again,
    test_an_unreachable_redis_falls_back_to_counting_in_the_worker,
    test_behind_one_proxy_the_last_hop_is_the_client,
    test_counts_are_kept_in_the_instance_folder_and_shared_by_every_app_on_it,
    test_limits_can_be_turned_off,
    test_login_per_address_counts_every_email,
    test_login_per_email_allows_a_few_mistakes_then_429,
    test_password_change_is_limited_per_user,
    test_refresh_is_limited_per_client_address,
    test_request_wide_limits_from_the_configuration_apply,
    test_routes_without_limits_are_not_limited,
)

public_api_only = setting_off("RATELIMIT_FAST_PATH")


def test_the_limiter_keeps_its_own_state_on_every_request(app):
    assert limiter.fast_path is False
    with app.test_request_context("/api/v1/auth/me"):
        assert type(limiter.context) is LimiterContext
