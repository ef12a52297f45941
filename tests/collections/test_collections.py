"""Collections through HTTP: CRUD, membership, permissions and errors."""

import pytest

from tests.resources import create_collection, create_dataset, validation_error

URL = "/api/v1/collections/"


def test_create_get_list(client, actors):
    editor = actors["editor"]
    a = create_dataset(client, editor.headers, "a")
    b = create_dataset(client, editor.headers, "b")
    response = client.post(
        URL,
        json={
            "name": " Climate ",
            "description": "All of it",
            "dataset_ids": [b["id"], a["id"], b["id"]],
        },
        headers=editor.headers,
    )
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"] == f"/api/v1/collections/{body['id']}"
    assert list(body) == [
        "id",
        "name",
        "description",
        "owner_id",
        "visibility",
        "dataset_ids",
        "created_at",
        "updated_at",
        "capabilities",
    ]
    assert body["capabilities"] == {"write": True, "manage": True}
    assert (body["name"], body["description"], body["owner_id"]) == (
        "Climate",
        "All of it",
        editor.id,
    )
    assert body["dataset_ids"] == sorted([a["id"], b["id"]])
    viewer = actors["viewer"].headers
    body["capabilities"] = {"write": False, "manage": False}  # as the viewer sees it
    assert client.get(response.headers["Location"], headers=viewer).get_json() == body
    for url in ("/api/v1/collections/", "/api/v1/collections"):
        page = client.get(url, headers=viewer)
        assert page.status_code == 200
        assert page.get_json() == {"items": [body], "total": 1, "limit": 20, "offset": 0}


def test_list_filters_and_paging(client, actors):
    editor, other = actors["editor"], actors["other_editor"]
    ids = [create_collection(client, editor.headers, f"Group {i}")["id"] for i in range(3)]
    mine = create_collection(client, other.headers, "Other group")

    def page(query):
        return client.get(f"{URL}?{query}", headers=editor.headers).get_json()

    assert [c["id"] for c in page("limit=2&offset=1")["items"]] == ids[1:3]
    assert page("limit=2&offset=1")["total"] == 4
    assert [c["id"] for c in page("q=OTHER")["items"]] == [mine["id"]]
    assert [c["id"] for c in page(f"owner={other.id}")["items"]] == [mine["id"]]
    assert [c["id"] for c in page("owner=me")["items"]] == ids


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
def test_list_query_validation(client, actors, query, loc, msg, type_):
    response = client.get(f"{URL}?{query}", headers=actors["viewer"].headers)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [validation_error(["query", loc], msg, type_)]}


def test_duplicate_names_are_409(client, actors):
    create_collection(client, actors["editor"].headers, "Shared")
    response = client.post(URL, json={"name": "SHARED"}, headers=actors["other_editor"].headers)
    assert (response.status_code, response.get_json()) == (409, {"detail": "Name already exists"})
    other = create_collection(client, actors["other_editor"].headers, "Mine")
    response = client.patch(
        f"{URL}{other['id']}", json={"name": "shared"}, headers=actors["other_editor"].headers
    )
    assert (response.status_code, response.get_json()) == (409, {"detail": "Name already exists"})


def test_a_dataset_and_a_collection_may_share_a_name(client, actors):
    create_dataset(client, actors["editor"].headers, "Same")
    create_collection(client, actors["editor"].headers, "Same")


@pytest.mark.parametrize(
    "body, loc, msg, type_",
    [
        ({}, ["body", "name"], "field required", "value_error.missing"),
        (
            {"name": "x" * 256},
            ["body", "name"],
            "ensure this value has at most 255 characters",
            "value_error.any_str.max_length",
        ),
        (
            {"name": "x", "dataset_ids": ["a"]},
            ["body", "dataset_ids", 0],
            "value is not a valid integer",
            "type_error.integer",
        ),
        (
            {"name": "x", "dataset_ids": 3},
            ["body", "dataset_ids"],
            "value is not a valid list",
            "type_error.list",
        ),
        ({"name": "x", "id": 1}, ["body", "id"], "extra fields not permitted", "value_error.extra"),
        (
            {"name": "x", "owner_id": "u"},
            ["body", "owner_id"],
            "extra fields not permitted",
            "value_error.extra",
        ),
        (
            {"name": "x", "created_at": "2024-01-01T00:00:00Z"},
            ["body", "created_at"],
            "extra fields not permitted",
            "value_error.extra",
        ),
        (
            {"name": "x", "updated_at": "2024-01-01T00:00:00Z"},
            ["body", "updated_at"],
            "extra fields not permitted",
            "value_error.extra",
        ),
    ],
)
def test_create_validation(client, actors, body, loc, msg, type_):
    response = client.post(URL, json=body, headers=actors["editor"].headers)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [validation_error(loc, msg, type_)]}


def test_create_with_a_missing_dataset_is_404_and_creates_nothing(client, actors):
    headers = actors["editor"].headers
    a = create_dataset(client, headers, "a")
    response = client.post(URL, json={"name": "x", "dataset_ids": [a["id"], 999]}, headers=headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    assert client.get(URL, headers=headers).get_json()["total"] == 0


def test_path_ids_must_be_integers(client, actors):
    headers = actors["admin"].headers
    for url, loc in (
        (f"{URL}abc", "collection_id"),
        (f"{URL}abc/datasets/1", "collection_id"),
        (f"{URL}1/datasets/abc", "dataset_id"),
    ):
        response = (
            client.put(url, headers=headers)
            if "datasets" in url
            else client.get(url, headers=headers)
        )
        assert response.status_code == 422
        assert response.get_json() == {
            "detail": [
                validation_error(
                    ["path", loc], "value is not a valid integer", "type_error.integer"
                )
            ]
        }
    both = client.delete(f"{URL}x/datasets/y", headers=headers)
    assert [e["loc"] for e in both.get_json()["detail"]] == [
        ["path", "collection_id"],
        ["path", "dataset_id"],
    ]


def test_missing_collection_is_404(client, actors):
    headers = actors["admin"].headers
    dataset = create_dataset(client, headers, "d")
    for method, url in (
        ("get", f"{URL}999"),
        ("patch", f"{URL}999"),
        ("delete", f"{URL}999"),
        ("put", f"{URL}999/datasets/{dataset['id']}"),
        ("delete", f"{URL}999/datasets/{dataset['id']}"),
    ):
        response = getattr(client, method)(url, json={}, headers=headers)
        assert (response.status_code, response.get_json()) == (
            404,
            {"detail": "Collection not found"},
        ), (method, url)


def test_membership_is_idempotent(client, actors):
    headers = actors["editor"].headers
    collection = create_collection(client, headers, "c")
    d1 = create_dataset(client, headers, "d1")
    d2 = create_dataset(client, actors["other_editor"].headers, "d2")  # anyone's dataset
    member = f"{URL}{collection['id']}/datasets"
    for _ in range(2):
        response = client.put(f"{member}/{d2['id']}", headers=headers)
        assert response.status_code == 200
        assert response.get_json()["dataset_ids"] == [d2["id"]]
    client.put(f"{member}/{d1['id']}", headers=headers)
    assert client.get(f"{URL}{collection['id']}", headers=headers).get_json()["dataset_ids"] == [
        d1["id"],
        d2["id"],
    ]
    for _ in range(2):
        response = client.delete(f"{member}/{d2['id']}", headers=headers)
        assert response.status_code == 200
        assert response.get_json()["dataset_ids"] == [d1["id"]]
    # The dataset itself stays.
    assert client.get(f"/api/v1/datasets/{d2['id']}", headers=headers).status_code == 200


def test_membership_of_a_missing_dataset_is_404(client, actors):
    headers = actors["editor"].headers
    collection = create_collection(client, headers, "c")
    for method in ("put", "delete"):
        response = getattr(client, method)(f"{URL}{collection['id']}/datasets/999", headers=headers)
        assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})


def test_patch_replaces_members_and_keeps_the_rest(client, actors):
    headers = actors["editor"].headers
    d = [create_dataset(client, headers, f"d{i}")["id"] for i in range(3)]
    collection = create_collection(
        client, headers, "c", description="keep", dataset_ids=[d[0], d[1]]
    )
    response = client.patch(
        f"{URL}{collection['id']}", json={"dataset_ids": [d[1], d[2]]}, headers=headers
    )
    assert response.status_code == 200
    body = response.get_json()
    assert (body["name"], body["description"], body["dataset_ids"]) == ("c", "keep", [d[1], d[2]])
    assert body["updated_at"] > collection["updated_at"]
    missing = client.patch(
        f"{URL}{collection['id']}", json={"dataset_ids": [d[0], 999]}, headers=headers
    )
    assert (missing.status_code, missing.get_json()) == (404, {"detail": "Dataset not found"})
    assert client.get(f"{URL}{collection['id']}", headers=headers).get_json() == body


def test_delete_keeps_the_datasets(client, actors):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "d")
    collection = create_collection(client, headers, "c", dataset_ids=[dataset["id"]])
    response = client.delete(f"{URL}{collection['id']}", headers=headers)
    assert (response.status_code, response.data) == (204, b"")
    assert client.get(f"{URL}{collection['id']}", headers=headers).status_code == 404
    assert client.get(f"/api/v1/datasets/{dataset['id']}", headers=headers).status_code == 200
    assert create_collection(client, headers, "C")["name"] == "C"  # the name is free


def test_without_a_token_is_401(client):
    for method, url in (
        ("get", URL),
        ("post", URL),
        ("get", f"{URL}1"),
        ("put", f"{URL}1/datasets/1"),
    ):
        response = getattr(client, method)(url)
        assert (response.status_code, response.get_json()) == (401, {"detail": "Not authenticated"})


CHANGERS = [
    ("admin", False, True),
    ("admin", True, True),
    ("editor", True, True),
    ("other_editor", False, False),
    ("viewer", False, False),
    ("nobody", False, False),
]


@pytest.mark.parametrize("actor, owns, allowed", CHANGERS)
@pytest.mark.parametrize("action", ["patch", "delete", "add", "remove"])
def test_change_matrix(client, actors, actor, owns, allowed, action):
    owner = actor if owns else ("editor" if actor != "editor" else "other_editor")
    owner_headers = actors[owner].headers
    dataset = create_dataset(client, owner_headers, "member")
    spare = create_dataset(client, owner_headers, "spare")
    collection = create_collection(client, owner_headers, "subject", dataset_ids=[dataset["id"]])
    url = f"{URL}{collection['id']}"
    headers = actors[actor].headers
    response = {
        "patch": lambda: client.patch(url, json={"description": "x"}, headers=headers),
        "delete": lambda: client.delete(url, headers=headers),
        "add": lambda: client.put(f"{url}/datasets/{spare['id']}", headers=headers),
        "remove": lambda: client.delete(f"{url}/datasets/{dataset['id']}", headers=headers),
    }[action]()
    if allowed:
        assert response.status_code == (204 if action == "delete" else 200)
    else:
        assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})
        assert client.get(url, headers=actors["admin"].headers).get_json() == collection


@pytest.mark.parametrize(
    "actor, allowed", [("admin", True), ("editor", True), ("viewer", False), ("nobody", False)]
)
def test_create_matrix(client, actors, actor, allowed):
    response = client.post(URL, json={"name": f"by {actor}"}, headers=actors[actor].headers)
    assert response.status_code == (201 if allowed else 403)
    if not allowed:
        assert response.get_json() == {"detail": "Forbidden"}


@pytest.mark.parametrize(
    "actor, allowed", [("viewer", True), ("other_editor", True), ("nobody", False)]
)
def test_read_matrix(client, actors, actor, allowed):
    collection = create_collection(client, actors["editor"].headers, "c")
    for url in (URL, f"{URL}{collection['id']}"):
        response = client.get(url, headers=actors[actor].headers)
        assert response.status_code == (200 if allowed else 403)
