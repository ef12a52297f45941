"""GET /api/v1/users/directory: who other users are, for every signed-in user."""

import pytest

from tests.access.conftest import personal_token
from tests.resources import validation_error

DIRECTORY = "/api/v1/users/directory"


@pytest.fixture
def people(make_user):
    made = {
        "ada": make_user(email="ada@example.com", name="Ada Lovelace", roles=["editor"]),
        "grace": make_user(email="hopper@navy.example", name="Grace Hopper", roles=["viewer"]),
        "alan": make_user(email="alan@example.com", name="Alan Turing", roles=["viewer"]),
        "gone": make_user(email="gone@example.com", name="Ada Gone", roles=["editor"]),
        "bea": make_user(email="bea@example.com", name="Bea Adams", roles=["viewer"]),
        "lola": make_user(email="lz@example.com", name="Lola Zed", roles=["viewer"]),
    }
    return made


def entries(response):
    assert response.status_code == 200, response.get_json()
    return [(item["name"], item["email"]) for item in response.get_json()["items"]]


def test_any_signed_in_user_finds_active_users_by_name_or_email(client, actors, people, app):
    from datahub.app.extensions import db
    from datahub.identity.models import User

    with app.app_context():
        db.session.get(User, people["gone"].id).is_active = False
        db.session.commit()
    viewer = actors["viewer"].headers
    found = client.get(f"{DIRECTORY}?q=LOVE", headers=viewer)
    assert entries(found) == [("Ada Lovelace", "ada@example.com")]
    assert entries(client.get(f"{DIRECTORY}?q=gone", headers=viewer)) == []  # deactivated
    body = found.get_json()
    assert body["items"][0] == {
        "id": people["ada"].id,
        "name": "Ada Lovelace",
        "email": "ada@example.com",
    }
    assert (body["total"], body["limit"], body["offset"]) == (1, 20, 0)
    assert entries(client.get(f"{DIRECTORY}?q=navy", headers=viewer)) == [
        ("Grace Hopper", "hopper@navy.example")
    ]


def test_those_that_start_with_it_come_first_then_by_name(client, actors, people):
    found = client.get(f"{DIRECTORY}?q=ad", headers=actors["editor"].headers)
    assert [name for name, _ in entries(found)] == ["Ada Gone", "Ada Lovelace", "Bea Adams"]
    found = client.get(f"{DIRECTORY}?q=lo", headers=actors["editor"].headers)
    assert [name for name, _ in entries(found)] == ["Lola Zed", "Ada Lovelace"]


def test_ids_say_who_they_are(client, actors, people):
    ids = f"{people['grace'].id},{people['alan'].id.upper()},not-an-id"
    assert entries(client.get(f"{DIRECTORY}?ids={ids}", headers=actors["viewer"].headers)) == [
        ("Alan Turing", "alan@example.com"),
        ("Grace Hopper", "hopper@navy.example"),
    ]


def test_a_read_token_may_look_and_no_one_signed_out_may(client, actors, people):
    token = personal_token(client, actors["viewer"], ["read"])
    assert entries(client.get(f"{DIRECTORY}?q=turing", headers=token.headers)) == [
        ("Alan Turing", "alan@example.com")
    ]
    refused = client.get(f"{DIRECTORY}?q=turing")
    assert refused.status_code == 401
    assert client.get(f"{DIRECTORY}/?q=turing", headers=token.headers).status_code == 200


def test_without_q_or_ids_every_active_user_by_name(client, actors, people):
    found = client.get(DIRECTORY, headers=actors["viewer"].headers)
    names = [name for name, _ in entries(found)]
    assert names == sorted(names, key=str.lower)
    assert {"Ada Lovelace", "Grace Hopper", "Lola Zed"} <= set(names)
    assert found.get_json()["total"] == len(names)


def test_too_many_ids_or_a_page_over_20_is_a_422(client, actors):
    viewer = actors["viewer"].headers
    many = client.get(f"{DIRECTORY}?ids=" + ",".join(["x"] * 101), headers=viewer)
    assert (many.status_code, many.get_json()) == (
        422,
        {
            "detail": [
                validation_error(
                    ["query", "ids"],
                    "ensure this value has at most 100 items",
                    "value_error.list.max_items",
                )
            ]
        },
    )
    page = client.get(f"{DIRECTORY}?q=a&limit=21", headers=viewer)
    assert page.status_code == 422
    assert page.get_json()["detail"][0]["loc"] == ["query", "limit"]


def test_the_directory_shows_no_role(client, actors, people):
    [item] = client.get(f"{DIRECTORY}?q=lovelace", headers=actors["viewer"].headers).get_json()[
        "items"
    ]
    assert set(item) == {"id", "name", "email"}
