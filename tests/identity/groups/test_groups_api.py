"""/api/v1/groups: any user lists and reads; admins change groups and their members."""

import json
import logging

import pytest

from tests.resources import create_dataset

GROUPS = "/api/v1/groups/"
FORBIDDEN = {"detail": "Forbidden"}
NOT_FOUND = {"detail": "Group not found"}
USER_NOT_FOUND = {"detail": "User not found"}
KEPT = {"detail": "Group members are kept by its source"}


def create_group(client, headers, name="Analysts", **fields):
    response = client.post(GROUPS, json={"name": name, **fields}, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def member(client, headers, method, group_id, user_id):
    return client.open(f"{GROUPS}{group_id}/members/{user_id}", method=method, headers=headers)


@pytest.fixture
def audit_log(caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")

    def events(name):
        found = [json.loads(r.getMessage()) for r in caplog.records if r.name == "datahub.audit"]
        return [event for event in found if event["event"] == name]

    return events


def test_an_admin_creates_reads_changes_and_deletes_a_group(client, actors, audit_log):
    admin = actors["admin"].headers
    response = client.post(
        GROUPS, json={"name": "  Analysts ", "description": "The analysts"}, headers=admin
    )
    assert response.status_code == 201, response.get_json()
    group = response.get_json()
    assert response.headers["Location"].endswith(f"/api/v1/groups/{group['id']}")
    assert {k: group[k] for k in ("name", "description", "source", "member_ids")} == {
        "name": "Analysts",
        "description": "The analysts",
        "source": "local",
        "member_ids": [],
    }
    assert set(group) == {"id", "name", "description", "source", "member_ids", "created_at"}
    assert client.get(f"{GROUPS}{group['id']}", headers=admin).get_json() == group

    changed = client.patch(f"{GROUPS}{group['id']}", json={"name": "Data analysts"}, headers=admin)
    assert changed.status_code == 200
    assert changed.get_json() == {**group, "name": "Data analysts"}

    assert client.delete(f"{GROUPS}{group['id']}", headers=admin).status_code == 204
    assert client.get(f"{GROUPS}{group['id']}", headers=admin).get_json() == NOT_FOUND
    (created,) = audit_log("group_created")
    (deleted,) = audit_log("group_deleted")
    assert created["group_id"] == deleted["group_id"] == group["id"]


def test_every_user_lists_and_reads_but_only_admins_write(client, actors):
    admin = actors["admin"].headers
    group = create_group(client, admin, "Analysts")
    create_group(client, admin, "Engineers", source="ldap")
    url = f"{GROUPS}{group['id']}"
    for key in ("editor", "viewer", "nobody"):
        headers = actors[key].headers
        page = client.get(GROUPS, headers=headers).get_json()
        assert [g["name"] for g in page["items"]] == ["Analysts", "Engineers"]
        assert (page["total"], page["limit"], page["offset"]) == (2, 20, 0)
        assert client.get(url, headers=headers).get_json() == group
        refused = [
            client.post(GROUPS, json={"name": "Mine"}, headers=headers),
            client.patch(url, json={"description": "x"}, headers=headers),
            client.delete(url, headers=headers),
            member(client, headers, "PUT", group["id"], actors["viewer"].id),
            member(client, headers, "DELETE", group["id"], actors["viewer"].id),
        ]
        assert [(r.status_code, r.get_json()) for r in refused] == [(403, FORBIDDEN)] * 5
    assert client.get(GROUPS).status_code == 401
    assert client.get(url, headers=admin).get_json() == group


def test_list_pages_and_filters_by_name(client, actors):
    admin = actors["admin"].headers
    for name in ("Beta team", "alpha team", "Gamma"):
        create_group(client, admin, name)
    page = client.get(GROUPS, query_string={"limit": 1, "offset": 1}, headers=admin).get_json()
    assert ([g["name"] for g in page["items"]], page["total"]) == (["Beta team"], 3)
    found = client.get(GROUPS, query_string={"q": "TEAM"}, headers=admin).get_json()
    assert [g["name"] for g in found["items"]] == ["alpha team", "Beta team"]
    assert found["total"] == 2
    assert client.get(GROUPS, query_string={"limit": 0}, headers=admin).status_code == 422


def test_names_are_unique_case_insensitively(client, actors):
    admin = actors["admin"].headers
    create_group(client, admin, "Analysts")
    other = create_group(client, admin, "Engineers")
    taken = client.post(GROUPS, json={"name": "ANALYSTS"}, headers=admin)
    assert (taken.status_code, taken.get_json()) == (409, {"detail": "Name already exists"})
    renamed = client.patch(f"{GROUPS}{other['id']}", json={"name": "analysts"}, headers=admin)
    assert (renamed.status_code, renamed.get_json()) == (409, {"detail": "Name already exists"})
    # Its own name in another case is no conflict.
    own = client.patch(f"{GROUPS}{other['id']}", json={"name": "ENGINEERS"}, headers=admin)
    assert own.status_code == 200 and own.get_json()["name"] == "ENGINEERS"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": " "}, "name"),
        ({"name": "x" * 256}, "name"),
        ({"name": "A", "source": "github"}, "source"),
        ({"name": "A", "member_ids": []}, "member_ids"),
    ],
)
def test_invalid_bodies_are_a_422(client, actors, body, field):
    response = client.post(GROUPS, json=body, headers=actors["admin"].headers)
    assert response.status_code == 422, response.get_json()
    assert field in json.dumps(response.get_json()["detail"])


def test_the_source_never_changes(client, actors):
    admin = actors["admin"].headers
    group = create_group(client, admin, "Directory people", source="ldap")
    response = client.patch(f"{GROUPS}{group['id']}", json={"source": "local"}, headers=admin)
    assert response.status_code == 422
    assert client.get(f"{GROUPS}{group['id']}", headers=admin).get_json()["source"] == "ldap"


def test_unknown_groups_and_users_are_404s(client, actors):
    admin = actors["admin"].headers
    group = create_group(client, admin)
    for method, url in (
        ("GET", f"{GROUPS}999999"),
        ("PATCH", f"{GROUPS}999999"),
        ("DELETE", f"{GROUPS}999999"),
        ("PUT", f"{GROUPS}999999/members/{actors['viewer'].id}"),
    ):
        response = client.open(url, method=method, json={"name": "X"}, headers=admin)
        assert (response.status_code, response.get_json()) == (404, NOT_FOUND), (method, url)
    for method in ("PUT", "DELETE"):
        response = member(client, admin, method, group["id"], "no-such-user")
        assert (response.status_code, response.get_json()) == (404, USER_NOT_FOUND)
    assert client.get(f"{GROUPS}abc", headers=admin).status_code == 422


def test_members_are_added_and_removed_idempotently(client, actors, audit_log):
    admin = actors["admin"].headers
    group = create_group(client, admin)
    viewer, editor = actors["viewer"].id, actors["editor"].id
    for user_id in (viewer, viewer, editor):
        response = member(client, admin, "PUT", group["id"], user_id)
        assert response.status_code == 200, response.get_json()
    assert response.get_json()["member_ids"] == sorted([viewer, editor])
    for _ in range(2):
        response = member(client, admin, "DELETE", group["id"], viewer)
        assert response.status_code == 200
        assert response.get_json()["member_ids"] == [editor]
    assert client.get(f"{GROUPS}{group['id']}", headers=admin).get_json()["member_ids"] == [editor]
    assert [e["user_id"] for e in audit_log("group_member_added")] == [viewer, editor]
    assert [e["user_id"] for e in audit_log("group_member_removed")] == [viewer]


@pytest.mark.parametrize("source", ["ldap", "oidc"])
def test_members_of_a_provider_group_are_kept_by_its_source(client, actors, source):
    admin = actors["admin"].headers
    group = create_group(client, admin, "Kept", source=source)
    for method in ("PUT", "DELETE"):
        response = member(client, admin, method, group["id"], actors["viewer"].id)
        assert (response.status_code, response.get_json()) == (409, KEPT)
    assert client.get(f"{GROUPS}{group['id']}", headers=admin).get_json()["member_ids"] == []


def test_a_grant_to_a_group_reaches_its_members_only(client, actors):
    admin, editor = actors["admin"].headers, actors["editor"].headers
    viewer = actors["viewer"]
    group = create_group(client, admin)
    dataset = create_dataset(client, editor, "Secret", visibility="private")
    url = f"/api/v1/datasets/{dataset['id']}"
    grant = client.post(
        f"{url}/grants",
        json={"principal": f"group:{group['id']}", "permission": "read"},
        headers=editor,
    )
    assert grant.status_code == 201, grant.get_json()
    hidden = {"detail": "Dataset not found"}
    assert client.get(url, headers=viewer.headers).get_json() == hidden

    assert member(client, admin, "PUT", group["id"], viewer.id).status_code == 200
    assert client.get(url, headers=viewer.headers).status_code == 200
    assert member(client, admin, "DELETE", group["id"], viewer.id).status_code == 200
    response = client.get(url, headers=viewer.headers)
    assert (response.status_code, response.get_json()) == (404, hidden)


def test_deleting_a_group_deletes_its_grants(client, actors):
    admin, editor = actors["admin"].headers, actors["editor"].headers
    viewer = actors["viewer"]
    group = create_group(client, admin)
    assert member(client, admin, "PUT", group["id"], viewer.id).status_code == 200
    dataset = create_dataset(client, editor, "Secret", visibility="private")
    url = f"/api/v1/datasets/{dataset['id']}"
    principal = {"principal": f"group:{group['id']}", "permission": "read"}
    assert client.post(f"{url}/grants", json=principal, headers=editor).status_code == 201
    assert client.get(url, headers=viewer.headers).status_code == 200

    assert client.delete(f"{GROUPS}{group['id']}", headers=admin).status_code == 204
    response = client.get(url, headers=viewer.headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    assert client.get(f"{url}/grants", headers=editor).get_json()["items"] == []
