"""Role × action × ownership for datasets and their files. Every refusal is 403
``Forbidden`` and changes nothing."""

import pytest

from tests.resources import create_dataset, upload

URL = "/api/v1/datasets/"

# (actor, owns the dataset?) → allowed to change it?
CHANGERS = [
    ("admin", False, True),
    ("admin", True, True),
    ("editor", True, True),
    ("other_editor", False, False),
    ("viewer", False, False),
    ("nobody", False, False),
]


def _dataset_owned_by(client, actors, owner_key):
    headers = actors[owner_key].headers
    dataset = create_dataset(client, headers, "subject")
    assert upload(client, headers, dataset["id"], b"original").status_code == 200
    return client.get(f"{URL}{dataset['id']}", headers=headers).get_json()


def _owner_key(actor, owns):
    if owns:
        return actor
    return "editor" if actor != "editor" else "other_editor"


@pytest.mark.parametrize("actor, owns, allowed", CHANGERS)
@pytest.mark.parametrize("action", ["patch", "delete", "upload"])
def test_change_matrix(client, actors, actor, owns, allowed, action):
    dataset = _dataset_owned_by(client, actors, _owner_key(actor, owns))
    url = f"{URL}{dataset['id']}"
    headers = actors[actor].headers
    if action == "patch":
        response = client.patch(url, json={"description": "changed"}, headers=headers)
    elif action == "delete":
        response = client.delete(url, headers=headers)
    else:
        response = upload(client, headers, dataset["id"], b"replacement")

    admin = actors["admin"].headers
    if allowed:
        assert response.status_code == {"patch": 200, "delete": 204, "upload": 200}[action]
    else:
        assert response.status_code == 403
        assert response.get_json() == {"detail": "Forbidden"}
        assert client.get(url, headers=admin).get_json() == dataset
        assert client.get(f"{url}/file", headers=admin).data == b"original"


@pytest.mark.parametrize(
    "actor, allowed", [("admin", True), ("editor", True), ("viewer", False), ("nobody", False)]
)
def test_create_matrix(client, actors, actor, allowed):
    response = client.post(URL, json={"name": f"by {actor}"}, headers=actors[actor].headers)
    if allowed:
        assert response.status_code == 201
        assert response.get_json()["owner_id"] == actors[actor].id
    else:
        assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})
        assert client.get(URL, headers=actors["admin"].headers).get_json()["total"] == 0


@pytest.mark.parametrize(
    "actor, allowed",
    [
        ("admin", True),
        ("editor", True),
        ("other_editor", True),
        ("viewer", True),
        ("nobody", False),
    ],
)
@pytest.mark.parametrize("action", ["list", "get", "download"])
def test_read_matrix(client, actors, actor, allowed, action):
    dataset = _dataset_owned_by(client, actors, "editor")
    headers = actors[actor].headers
    url = {"list": URL, "get": f"{URL}{dataset['id']}", "download": f"{URL}{dataset['id']}/file"}[
        action
    ]
    response = client.get(url, headers=headers)
    if allowed:
        assert response.status_code == 200
        if action == "download":
            assert response.data == b"original"
    else:
        assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})


def test_demoted_editor_loses_write_access_at_once(client, actors, app):
    from datahub.app.extensions import db
    from datahub.identity.users import services

    editor = actors["editor"]
    dataset = create_dataset(client, editor.headers, "mine")
    with app.app_context():
        services.set_roles(db.session.get(services.User, editor.id), ["viewer"])
    response = client.patch(f"{URL}{dataset['id']}", json={"name": "x"}, headers=editor.headers)
    assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})
