"""A small world for the access tests: a private dataset with a file, a private pipeline
over it, a private collection holding the dataset, and a caller of every kind: people
(by their login) and personal access tokens (docs/guides/access.rst)."""

from dataclasses import dataclass

import pytest

from datahub.app.extensions import db
from datahub.identity.group_models import Group, GroupMember
from tests.conftest import bearer, login
from tests.pipelines.helpers import create_pipeline
from tests.resources import (  # noqa: F401  (actors: a fixture)
    Actor,
    actors,
    create_collection,
    create_dataset,
    upload,
)

CSV = b"name,n\nann,1\nbob,2\n"


@dataclass
class World:
    dataset: dict
    pipeline: dict
    collection: dict
    people: dict  # caller kind -> Actor
    group_id: int
    grant_ids: dict  # kind -> the read grantee's grant on the world's row of that kind


def grant(client, headers, kind, row_id, principal, permission):
    response = client.post(
        f"/api/v1/{kind}/{row_id}/grants",
        json={"principal": principal, "permission": permission},
        headers=headers,
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def make_group(app, name, *user_ids):
    with app.app_context():
        group = Group(name=name, name_key=name.lower(), description="", source="local")
        db.session.add(group)
        db.session.flush()
        db.session.add_all(GroupMember(group_id=group.id, user_id=uid) for uid in user_ids)
        db.session.commit()
        return group.id


def person(client, make_user, key, roles):
    email = f"{key}@example.com"
    user = make_user(email=email, roles=roles)
    response = login(client, email)
    assert response.status_code == 200, response.get_json()
    return Actor(key, user.id, bearer(response.get_json()["access_token"]))


def personal_token(client, actor, scopes):
    """An Actor for ``actor``'s personal access token with ``scopes``."""
    response = client.post(
        "/api/v1/auth/tokens", json={"name": "matrix", "scopes": scopes}, headers=actor.headers
    )
    assert response.status_code == 201, response.get_json()
    return Actor(actor.role, actor.id, bearer(response.get_json()["token"]))


@pytest.fixture
def world(app, client, make_user, actors):  # noqa: F811
    owner = actors["editor"]
    people = {
        "owner": owner,
        "admin": actors["admin"],
        "read grantee": actors["viewer"],
        "write grantee": actors["other_editor"],
        "group member": person(client, make_user, "member", ["editor"]),
        "group writer": person(client, make_user, "gwriter", ["editor"]),
        "other viewer": person(client, make_user, "outsider", ["viewer"]),
        "other editor": person(client, make_user, "stranger", ["editor"]),
    }
    people["owner's read token"] = personal_token(client, owner, ["read"])
    people["write grantee's token"] = personal_token(client, people["write grantee"], ["write"])
    dataset = create_dataset(client, owner.headers, "salaries", visibility="private", tags=["pay"])
    assert upload(client, owner.headers, dataset["id"], CSV).status_code == 200
    pipeline = create_pipeline(
        client, owner.headers, dataset["id"], name="payroll", visibility="private"
    )
    collection = create_collection(client, owner.headers, "payroll files", visibility="private")
    added = client.put(
        f"/api/v1/collections/{collection['id']}/datasets/{dataset['id']}", headers=owner.headers
    )
    assert added.status_code == 200, added.get_json()
    group_id = make_group(app, "payroll team", people["group member"].id)
    writers_id = make_group(app, "payroll writers", people["group writer"].id)
    grant_ids = {}
    for kind, row in (("datasets", dataset), ("pipelines", pipeline), ("collections", collection)):
        made = grant(client, owner.headers, kind, row["id"], f"user:{actors['viewer'].id}", "read")
        grant_ids[kind] = made["id"]
        grant(client, owner.headers, kind, row["id"], f"user:{actors['other_editor'].id}", "write")
        grant(client, owner.headers, kind, row["id"], f"group:{group_id}", "read")
        grant(client, owner.headers, kind, row["id"], f"group:{writers_id}", "write")
    return World(dataset, pipeline, collection, people, group_id, grant_ids)
