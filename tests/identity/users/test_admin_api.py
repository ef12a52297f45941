"""User administration over HTTP (/api/v1/users), for admins only."""

import pytest

from tests.conftest import PASSWORD, bearer, login
from tests.resources import create_collection, create_dataset, validation_error

URL = "/api/v1/users/"


@pytest.fixture
def admin(actors):
    return actors["admin"]


def test_list_and_get(client, actors, admin):
    actors.everyone()
    response = client.get(URL, headers=admin.headers)
    assert response.status_code == 200
    page = response.get_json()
    assert page["total"] == 5 and (page["limit"], page["offset"]) == (20, 0)
    assert [u["email"] for u in page["items"]] == [
        "admin@example.com",
        "editor@example.com",
        "other_editor@example.com",
        "viewer@example.com",
        "nobody@example.com",
    ]
    assert "password" not in page["items"][0] and "password_hash" not in page["items"][0]
    assert client.get("/api/v1/users", headers=admin.headers).status_code == 200
    one = client.get(f"{URL}{actors['viewer'].id}", headers=admin.headers).get_json()
    assert (one["email"], one["roles"], one["is_active"]) == (
        "viewer@example.com",
        ["viewer"],
        True,
    )
    assert list(one) == ["id", "email", "name", "is_active", "provider", "roles", "created_at"]
    second = client.get(f"{URL}?limit=2&offset=1&q=EDITOR", headers=admin.headers).get_json()
    assert [u["email"] for u in second["items"]] == ["other_editor@example.com"]
    assert second["total"] == 2


@pytest.mark.parametrize(
    "query, loc, msg, type_",
    [
        ("limit=abc", "limit", "value is not a valid integer", "type_error.integer"),
        (
            "limit=1000",
            "limit",
            "ensure this value is less than or equal to 100",
            "value_error.number.not_le",
        ),
        (
            "offset=-1",
            "offset",
            "ensure this value is greater than or equal to 0",
            "value_error.number.not_ge",
        ),
    ],
)
def test_list_query_validation(client, admin, query, loc, msg, type_):
    response = client.get(f"{URL}?{query}", headers=admin.headers)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [validation_error(["query", loc], msg, type_)]}


def test_create_user_who_can_log_in(client, admin):
    response = client.post(
        URL,
        json={"email": "New@Example.com", "password": PASSWORD, "name": "New", "roles": ["editor"]},
        headers=admin.headers,
    )
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"] == f"/api/v1/users/{body['id']}"
    assert (body["email"], body["name"], body["roles"], body["provider"]) == (
        "new@example.com",
        "New",
        ["editor"],
        "local",
    )
    assert login(client, "new@example.com").status_code == 200
    default = client.post(
        URL, json={"email": "v@example.com", "password": PASSWORD}, headers=admin.headers
    ).get_json()
    assert default["roles"] == ["viewer"]


def test_create_duplicate_email_is_409(client, actors, admin):
    assert actors["editor"]  # editor@example.com exists
    response = client.post(
        URL, json={"email": "EDITOR@example.com", "password": PASSWORD}, headers=admin.headers
    )
    assert (response.status_code, response.get_json()) == (409, {"detail": "Email already exists"})


@pytest.mark.parametrize(
    "body, loc, msg, type_",
    [
        ({"password": PASSWORD}, ["body", "email"], "field required", "value_error.missing"),
        (
            {"email": "nope", "password": PASSWORD},
            ["body", "email"],
            "value is not a valid email address",
            "value_error.email",
        ),
        (
            {"email": "a@example.com", "password": "short"},
            ["body", "password"],
            "ensure this value has at least 8 bytes",
            "value_error.any_str.min_length",
        ),
        (
            {"email": "a@example.com", "password": "é" * 37},
            ["body", "password"],
            "ensure this value has at most 72 bytes",
            "value_error.any_str.max_length",
        ),
        (
            {"email": "a@example.com", "password": PASSWORD, "roles": ["root"]},
            ["body", "roles", 0],
            "value is not a valid enumeration member; permitted: viewer, editor, admin",
            "type_error.enum",
        ),
        (
            {"email": "a@example.com", "password": PASSWORD, "id": "x"},
            ["body", "id"],
            "extra fields not permitted",
            "value_error.extra",
        ),
        (
            {"email": "a@example.com", "password": PASSWORD, "is_active": False},
            ["body", "is_active"],
            "extra fields not permitted",
            "value_error.extra",
        ),
    ],
)
def test_create_validation(client, admin, body, loc, msg, type_):
    response = client.post(URL, json=body, headers=admin.headers)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [validation_error(loc, msg, type_)]}


def test_patch_name_and_roles(client, actors, admin):
    viewer = actors["viewer"]
    response = client.patch(
        f"{URL}{viewer.id}",
        json={"name": "Vera", "roles": ["editor", "editor"]},
        headers=admin.headers,
    )
    assert response.status_code == 200
    assert (response.get_json()["name"], response.get_json()["roles"]) == ("Vera", ["editor"])
    # The new role takes effect at once, with the token already issued.
    assert (
        client.post(
            "/api/v1/datasets/", json={"name": "now allowed"}, headers=viewer.headers
        ).status_code
        == 201
    )


@pytest.mark.parametrize(
    "body, loc, msg, type_",
    [
        ({"roles": "admin"}, ["body", "roles"], "value is not a valid list", "type_error.list"),
        (
            {"is_active": "maybe"},
            ["body", "is_active"],
            "value could not be parsed to a boolean",
            "type_error.bool",
        ),
        (
            {"password": "short"},
            ["body", "password"],
            "ensure this value has at least 8 bytes",
            "value_error.any_str.min_length",
        ),
        (
            {"email": "x@example.com"},
            ["body", "email"],
            "extra fields not permitted",
            "value_error.extra",
        ),
        (
            {"created_at": "2024-01-01T00:00:00Z"},
            ["body", "created_at"],
            "extra fields not permitted",
            "value_error.extra",
        ),
    ],
)
def test_patch_validation(client, actors, admin, body, loc, msg, type_):
    response = client.patch(f"{URL}{actors['viewer'].id}", json=body, headers=admin.headers)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [validation_error(loc, msg, type_)]}


def test_deactivating_ends_sessions(client, actors, admin):
    viewer = actors["viewer"]
    assert login(client, "viewer@example.com").status_code == 200  # the jar: viewer's cookie
    response = client.patch(f"{URL}{viewer.id}", json={"is_active": False}, headers=admin.headers)
    assert response.status_code == 200 and response.get_json()["is_active"] is False
    me = client.get("/api/v1/auth/me", headers=viewer.headers)
    assert me.status_code == 401
    # The refresh cookie (set at login, in the client's jar) is revoked too.
    refresh = client.post("/api/v1/auth/refresh")
    assert refresh.status_code == 401
    assert login(client, "viewer@example.com").status_code == 401
    client.patch(f"{URL}{viewer.id}", json={"is_active": True}, headers=admin.headers)
    # Active again, yet the old session stays ended.
    assert client.post("/api/v1/auth/refresh").get_json() == {"detail": "Token has been revoked"}
    assert client.get("/api/v1/auth/me", headers=viewer.headers).status_code == 401
    assert login(client, "viewer@example.com").status_code == 200


def test_new_password_ends_sessions(client, actors, admin):
    viewer = actors["viewer"]
    new = "a brand new password"
    response = client.patch(f"{URL}{viewer.id}", json={"password": new}, headers=admin.headers)
    assert response.status_code == 200
    assert client.get("/api/v1/auth/me", headers=viewer.headers).status_code == 401
    assert login(client, "viewer@example.com").status_code == 401
    assert login(client, "viewer@example.com", new).status_code == 200


def test_the_last_admin_cannot_be_demoted_deactivated_or_deleted(client, admin):
    url = f"{URL}{admin.id}"
    for method, body in (
        ("patch", {"roles": ["editor"]}),
        ("patch", {"is_active": False}),
        ("patch", {"name": "still me", "roles": ["viewer"]}),
        ("delete", None),
    ):
        response = getattr(client, method)(url, json=body, headers=admin.headers)
        assert response.status_code == 409
        assert response.get_json() == {
            "detail": "The last active admin cannot be removed, deactivated or demoted"
        }
    me = client.get(url, headers=admin.headers).get_json()
    assert (me["roles"], me["is_active"], me["name"]) == (["admin"], True, "A User")


def test_an_admin_can_step_down_when_another_remains(client, actors, admin):
    client.patch(f"{URL}{actors['editor'].id}", json={"roles": ["admin"]}, headers=admin.headers)
    response = client.patch(f"{URL}{admin.id}", json={"roles": ["viewer"]}, headers=admin.headers)
    assert response.status_code == 200
    assert client.get(URL, headers=admin.headers).status_code == 403  # no longer an admin


def test_delete_user_ends_sessions(client, actors, admin):
    viewer = actors["viewer"]
    assert login(client, "viewer@example.com").status_code == 200  # the jar: viewer's cookie
    response = client.delete(f"{URL}{viewer.id}", headers=admin.headers)
    assert (response.status_code, response.data) == (204, b"")
    assert client.get("/api/v1/auth/me", headers=viewer.headers).get_json() == {
        "detail": "Invalid token"
    }
    assert client.post("/api/v1/auth/refresh").status_code == 401
    response = client.get(f"{URL}{viewer.id}", headers=admin.headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "User not found"})
    from datahub.app.extensions import db
    from datahub.identity.models import RefreshToken

    with client.application.app_context():
        assert (
            db.session.scalar(
                db.select(db.func.count())
                .select_from(RefreshToken)
                .where(RefreshToken.user_id == viewer.id)
            )
            == 0
        )


@pytest.mark.parametrize("owns", ["dataset", "collection"])
def test_delete_user_who_owns_resources_is_409(client, actors, admin, owns):
    editor = actors["editor"]
    if owns == "dataset":
        create_dataset(client, editor.headers, "mine")
    else:
        create_collection(client, editor.headers, "mine")
    response = client.delete(f"{URL}{editor.id}", headers=admin.headers)
    assert response.status_code == 409
    assert response.get_json() == {
        "detail": "The user owns datasets, collections or pipelines; "
        "delete them or deactivate the user instead"
    }
    assert client.get(f"{URL}{editor.id}", headers=admin.headers).status_code == 200
    # Deactivating keeps the user's data.
    assert (
        client.patch(
            f"{URL}{editor.id}", json={"is_active": False}, headers=admin.headers
        ).status_code
        == 200
    )


@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_unknown_user_is_404(client, admin, method):
    for user_id in ("00000000-0000-0000-0000-000000000000", "not-a-uuid", "x" * 100):
        response = getattr(client, method)(f"{URL}{user_id}", json={}, headers=admin.headers)
        assert (response.status_code, response.get_json()) == (404, {"detail": "User not found"})


@pytest.mark.parametrize("actor", ["editor", "viewer", "nobody"])
def test_non_admins_are_403(client, actors, actor):
    headers = actors[actor].headers
    target = actors["viewer"].id
    for method, url, body in (
        ("get", URL, None),
        ("post", URL, {"email": "z@example.com", "password": PASSWORD}),
        ("get", f"{URL}{target}", None),
        ("patch", f"{URL}{target}", {"roles": ["admin"]}),
        ("delete", f"{URL}{target}", None),
        ("get", f"{URL}unknown", None),
    ):
        response = getattr(client, method)(url, json=body, headers=headers)
        assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})
    assert client.get(f"{URL}{target}", headers=actors["admin"].headers).get_json()["roles"] == [
        "viewer"
    ]


def test_without_a_token_is_401(client):
    response = client.get(URL)
    assert (response.status_code, response.get_json()) == (401, {"detail": "Not authenticated"})
    response = client.get(URL, headers=bearer("garbage"))
    assert (response.status_code, response.get_json()) == (401, {"detail": "Invalid token"})
