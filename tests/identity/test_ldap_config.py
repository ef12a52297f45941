"""LDAP settings that cannot work stop the app at start-up."""

import pytest

from datahub import create_app
from datahub.platform.errors import ConfigurationError

GOOD = {"LDAP_URL": "ldap://127.0.0.1:389", "LDAP_USER_BASE": "ou=people,dc=example,dc=org"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"LDAP_URL": "http://ldap.example.org"}, "LDAP_URL must start with ldap://"),
        ({"LDAP_USER_BASE": None}, "LDAP_USER_BASE is not"),
        ({"LDAP_USER_FILTER": "(mail=alice)"}, "must contain {email}"),
        ({"LDAP_GROUP_ROLES": {"owner": "cn=owners"}}, "LDAP_GROUP_ROLES must map roles"),
        ({"LDAP_GROUP_ROLES": {"admin": "cn=admins"}}, "LDAP_GROUP_BASE is not"),
    ],
    ids=["scheme", "user-base", "filter", "role-name", "group-base"],
)
def test_unusable_ldap_settings_are_refused(base_config, change, message):
    with pytest.raises(ConfigurationError, match=message):
        create_app({**base_config, **GOOD, **change})


def test_usable_ldap_settings_start(base_config):
    app = create_app({**base_config, **GOOD})
    assert app.config["LDAP_USER_FILTER"] == "(mail={email})"
