"""Membership in ``ldap`` groups kept at each login, against the real slapd: the user is
a member of exactly the ldap-source groups named (case-insensitively) by the ``cn`` of
the directory groups listing them."""

import json
import logging

import pytest

from tests.conftest import bearer, login
from tests.identity.conftest import directory_password, ldap_settings
from tests.identity.ldap_server import ANALYSTS, ENGINEERS, PEOPLE
from tests.resources import actors  # noqa: F401  (fixture)

GROUPS = "/api/v1/groups/"


@pytest.fixture(params=["with-group-roles", "without-group-roles"])
def config_overrides(slapd, request):
    settings = ldap_settings(slapd.url)
    if request.param == "without-group-roles":
        # The groups are searched for all that: LDAP_GROUP_BASE is set.
        settings["LDAP_GROUP_ROLES"] = {}
    return settings


@pytest.fixture(autouse=True)
def close_directory_connections(app):
    yield
    directory = app.extensions.get("datahub.ldap")
    if directory is not None:
        directory.close()


def ldap_login(client, email):
    response = login(client, email, directory_password(email))
    assert response.status_code == 200, response.get_json()
    token = response.get_json()["access_token"]
    return client.get("/api/v1/auth/me", headers=bearer(token)).get_json()["id"]


def create_group(client, headers, name, source):
    response = client.post(GROUPS, json={"name": name, "source": source}, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def groups_of(client, headers, user_id):
    page = client.get(GROUPS, headers=headers).get_json()
    return sorted(group["name"] for group in page["items"] if user_id in group["member_ids"])


def synced(caplog):
    events = [json.loads(r.getMessage()) for r in caplog.records if r.name == "datahub.audit"]
    return [
        (event["source"], event["added"], event["removed"])
        for event in events
        if event["event"] == "group_membership_synced"
    ]


def test_a_login_joins_and_leaves_ldap_groups_as_the_directory_says(client, slapd, actors, caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    admin = actors["admin"].headers
    create_group(client, admin, "analysts", "ldap")  # the directory's cn is "Analysts"
    create_group(client, admin, "Engineers", "ldap")
    create_group(client, admin, "Ghosts", "ldap")  # no such directory group
    create_group(client, admin, "Editors", "oidc")  # a directory group, but another source
    local = create_group(client, admin, "Reporting", "local")

    carol = ldap_login(client, "carol@example.org")
    assert groups_of(client, admin, carol) == ["analysts"]
    assert client.put(f"{GROUPS}{local}/members/{carol}", headers=admin).status_code == 200
    # Nothing changed in the directory: nothing to do.
    ldap_login(client, "carol@example.org")
    assert synced(caplog) == [("ldap", ["analysts"], [])]

    dn = f"uid=carol,{PEOPLE}"
    slapd.set_member(ANALYSTS, dn, False)
    slapd.set_member(ENGINEERS, dn, True)
    try:
        ldap_login(client, "carol@example.org")
        assert groups_of(client, admin, carol) == ["Engineers", "Reporting"]
    finally:
        slapd.set_member(ENGINEERS, dn, False)
        slapd.set_member(ANALYSTS, dn, True)
    assert synced(caplog)[1:] == [("ldap", ["Engineers"], ["analysts"])]

    # In no directory group at all: every ldap group is left, the local one stays.
    dave = ldap_login(client, "dave@example.org")
    assert groups_of(client, admin, dave) == []
    slapd.set_member(ENGINEERS, f"uid=dave,{PEOPLE}", True)
    try:
        ldap_login(client, "dave@example.org")
    finally:
        slapd.set_member(ENGINEERS, f"uid=dave,{PEOPLE}", False)
    assert groups_of(client, admin, dave) == ["Engineers"]
    ldap_login(client, "dave@example.org")
    assert groups_of(client, admin, dave) == []


def test_a_directory_group_gives_access_to_what_its_group_is_granted(client, actors):
    admin, editor = actors["admin"].headers, actors["editor"].headers
    group = create_group(client, admin, "Analysts", "ldap")
    dataset = client.post(
        "/api/v1/datasets/", json={"name": "Secret", "visibility": "private"}, headers=editor
    ).get_json()
    grant = {"principal": f"group:{group}", "permission": "read"}
    url = f"/api/v1/datasets/{dataset['id']}"
    assert client.post(f"{url}/grants", json=grant, headers=editor).status_code == 201
    response = login(client, "carol@example.org", directory_password("carol@example.org"))
    headers = bearer(response.get_json()["access_token"])
    assert client.get(url, headers=headers).status_code == 200
