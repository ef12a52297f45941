"""Membership in ``oidc`` groups kept at each login, against the real provider process:
the ID token's groups claim (OIDC_GROUPS_CLAIM) names them."""

import json
import logging

import pytest

from tests.identity.conftest import oidc_settings
from tests.identity.test_oidc_login import log_in, me
from tests.resources import actors  # noqa: F401  (fixture)

GROUPS = "/api/v1/groups/"


@pytest.fixture
def config_overrides(oidc_provider):
    return oidc_settings(oidc_provider.issuer, OIDC_GROUPS_CLAIM="teams")


def create_group(client, headers, name, source):
    response = client.post(GROUPS, json={"name": name, "source": source}, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def groups_of(client, headers, user_id):
    page = client.get(GROUPS, headers=headers).get_json()
    return sorted(group["name"] for group in page["items"] if user_id in group["member_ids"])


def oidc_user(app, provider, **claims):
    """Log in as ``sub-gus`` with these claims, on a client of its own: the user's id."""
    provider.set_user("sub-gus", email="gus@example.org", name="Gus", **claims)
    other = app.test_client()
    assert log_in(other, provider, "sub-gus").status_code == 302
    return me(other)["id"]


def test_the_groups_claim_decides_membership_in_oidc_groups(
    app, client, oidc_provider, actors, caplog
):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    admin = actors["admin"].headers
    create_group(client, admin, "Analysts", "oidc")
    create_group(client, admin, "Engineers", "oidc")
    create_group(client, admin, "Directory", "ldap")  # named, but another source
    local = create_group(client, admin, "Reporting", "local")

    gus = oidc_user(app, oidc_provider, teams=["ANALYSTS", "Directory", "Unknown"])
    assert groups_of(client, admin, gus) == ["Analysts"]
    assert client.put(f"{GROUPS}{local}/members/{gus}", headers=admin).status_code == 200

    # Another claim's name (the default "groups") is not read: OIDC_GROUPS_CLAIM is.
    oidc_user(app, oidc_provider, teams=["engineers"], groups=["Analysts"])
    assert groups_of(client, admin, gus) == ["Engineers", "Reporting"]

    # No claim: no oidc group; the local one stays.
    oidc_user(app, oidc_provider)
    assert groups_of(client, admin, gus) == ["Reporting"]

    events = [json.loads(r.getMessage()) for r in caplog.records if r.name == "datahub.audit"]
    assert [
        (event["user_id"], event["source"], event["added"], event["removed"])
        for event in events
        if event["event"] == "group_membership_synced"
    ] == [
        (gus, "oidc", ["Analysts"], []),
        (gus, "oidc", ["Engineers"], ["Analysts"]),
        (gus, "oidc", [], ["Engineers"]),
    ]


@pytest.mark.parametrize("claim", ["Analysts", ["analysts", 7, None, ""]])
def test_one_name_or_a_list_with_other_values(app, client, oidc_provider, actors, claim):
    admin = actors["admin"].headers
    create_group(client, admin, "Analysts", "oidc")
    assert groups_of(client, admin, oidc_user(app, oidc_provider, teams=claim)) == ["Analysts"]
