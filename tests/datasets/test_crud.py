"""Datasets through HTTP: create, read, list, change, delete, and every error they give."""

import os

import pytest

from datahub.web.validation import NAME_PATTERN
from tests.resources import create_collection, create_dataset, upload, validation_error

URL = "/api/v1/datasets/"


def test_create_returns_201_with_location_and_the_dataset(client, actors):
    editor = actors["editor"]
    response = client.post(
        URL,
        json={
            "name": "  Weather 2024 ",
            "description": "Daily",
            "tags": ["climate", "daily", "climate"],
        },
        headers=editor.headers,
    )
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"] == f"/api/v1/datasets/{body['id']}"
    assert isinstance(body["id"], int)
    assert body["name"] == "Weather 2024"  # surrounding spaces are dropped
    assert body["description"] == "Daily"
    assert body["tags"] == ["climate", "daily"]  # order kept, duplicates dropped
    assert body["owner_id"] == editor.id
    assert body["file"] is None
    assert body["created_at"] == body["updated_at"]
    assert list(body) == [
        "id",
        "name",
        "description",
        "readme",
        "tags",
        "owner_id",
        "visibility",
        "created_at",
        "updated_at",
        "file",
        "current_version",
        "capabilities",
        "stats",
        "schema",
    ]
    assert body["current_version"] is None
    assert body["schema"] is None
    assert body["capabilities"] == {"write": True, "manage": True}
    assert body["stats"] == {"downloads_30d": 0, "views_30d": 0}
    assert client.get(response.headers["Location"], headers=editor.headers).get_json() == body


def test_get_and_list(client, actors):
    editor, viewer = actors["editor"], actors["viewer"]
    first = create_dataset(client, editor.headers, "first")
    second = create_dataset(client, editor.headers, "second")
    first, second = (
        {**body, "capabilities": {"write": False, "manage": False}} for body in (first, second)
    )  # as the viewer sees them
    assert client.get(f"{URL}{first['id']}", headers=viewer.headers).get_json() == first
    for url in ("/api/v1/datasets/", "/api/v1/datasets"):  # both, and no redirect
        response = client.get(url, headers=viewer.headers)
        assert response.status_code == 200
        assert response.get_json() == {
            "items": [first, second],
            "total": 2,
            "limit": 20,
            "offset": 0,
        }


def test_list_pages_in_id_order(client, actors):
    headers = actors["editor"].headers
    ids = [create_dataset(client, headers, f"set {i:02}")["id"] for i in range(7)]
    page = client.get(f"{URL}?limit=3&offset=2", headers=headers).get_json()
    assert [item["id"] for item in page["items"]] == ids[2:5]
    assert (page["total"], page["limit"], page["offset"]) == (7, 3, 2)
    last = client.get(f"{URL}?limit=100&offset=6", headers=headers).get_json()
    assert [item["id"] for item in last["items"]] == ids[6:]
    beyond = client.get(f"{URL}?offset=50", headers=headers).get_json()
    assert beyond == {"items": [], "total": 7, "limit": 20, "offset": 50}


def test_list_filters(client, actors):
    editor, other = actors["editor"], actors["other_editor"]
    a = create_dataset(client, editor.headers, "Sales 2023", tags=["sales", "eu"])
    b = create_dataset(client, editor.headers, "Weather", tags=["climate"])
    c = create_dataset(client, other.headers, "sales_2024%", tags=["sales"])

    def names(query, headers=editor.headers):
        page = client.get(f"{URL}?{query}", headers=headers).get_json()
        assert page["total"] == len(page["items"])
        return [item["name"] for item in page["items"]]

    assert names("q=SALES") == [a["name"], c["name"]]
    assert names("q=eat") == [b["name"]]
    assert names("q=_") == [c["name"]]  # LIKE wildcards are taken literally
    assert names("q=%25") == [c["name"]]
    assert names("tag=sales") == [a["name"], c["name"]]
    assert names("tag=eu") == [a["name"]]
    assert names("tag=Sales") == []  # tags match exactly
    assert names(f"owner={other.id}") == [c["name"]]
    assert names("owner=me") == [a["name"], b["name"]]
    assert names("owner=me", headers=other.headers) == [c["name"]]
    assert names(f"owner={editor.id}&tag=sales&q=2023") == [a["name"]]
    assert names("unknown=1") == [a["name"], b["name"], c["name"]]  # unknown params ignored


@pytest.mark.parametrize(
    "query, error",
    [
        (
            "limit=abc",
            validation_error(
                ["query", "limit"], "value is not a valid integer", "type_error.integer"
            ),
        ),
        (
            "limit=1000",
            validation_error(
                ["query", "limit"],
                "ensure this value is less than or equal to 100",
                "value_error.number.not_le",
            ),
        ),
        (
            "limit=0",
            validation_error(
                ["query", "limit"],
                "ensure this value is greater than or equal to 1",
                "value_error.number.not_ge",
            ),
        ),
        (
            "offset=-1",
            validation_error(
                ["query", "offset"],
                "ensure this value is greater than or equal to 0",
                "value_error.number.not_ge",
            ),
        ),
        (
            "offset=x",
            validation_error(
                ["query", "offset"], "value is not a valid integer", "type_error.integer"
            ),
        ),
        (
            "tag=",
            validation_error(
                ["query", "tag"],
                "ensure this value has at least 1 characters",
                "value_error.any_str.min_length",
            ),
        ),
    ],
)
def test_list_query_validation(client, actors, query, error):
    response = client.get(f"{URL}?{query}", headers=actors["viewer"].headers)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [error]}


@pytest.mark.parametrize("method", ["get", "patch", "delete"])
@pytest.mark.parametrize("segment", ["abc", "1.5", "1e3", "%20"])
def test_non_integer_path_id_is_422(client, actors, method, segment):
    response = getattr(client, method)(f"{URL}{segment}", json={}, headers=actors["admin"].headers)
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            {
                "loc": ["path", "dataset_id"],
                "msg": "value is not a valid integer",
                "type": "type_error.integer",
            }
        ]
    }


def test_non_integer_id_on_the_file_route_is_422(client, actors):
    response = client.get(f"{URL}abc/file", headers=actors["admin"].headers)
    assert response.status_code == 422
    assert response.get_json()["detail"][0]["loc"] == ["path", "dataset_id"]


@pytest.mark.parametrize("dataset_id", ["999", "0", "-1", "99999999999999999999"])
@pytest.mark.parametrize("method", ["get", "patch", "delete"])
def test_missing_dataset_is_404(client, actors, method, dataset_id):
    response = getattr(client, method)(
        f"{URL}{dataset_id}", json={}, headers=actors["admin"].headers
    )
    assert response.status_code == 404
    assert response.get_json() == {"detail": "Dataset not found"}


def test_missing_dataset_file_routes_are_404(client, actors):
    headers = actors["admin"].headers
    assert client.get(f"{URL}999/file", headers=headers).get_json() == {
        "detail": "Dataset not found"
    }
    response = upload(client, headers, 999, b"data")
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})


def test_duplicate_names_are_409_case_insensitively(client, actors):
    create_dataset(client, actors["editor"].headers, "Population")
    for name in ("Population", "population", " POPULATION "):
        response = client.post(URL, json={"name": name}, headers=actors["other_editor"].headers)
        assert response.status_code == 409
        assert response.get_json() == {"detail": "Name already exists"}
    assert client.get(URL, headers=actors["viewer"].headers).get_json()["total"] == 1


@pytest.mark.parametrize(
    "body, errors",
    [
        ({}, [(["body", "name"], "field required", "value_error.missing")]),
        (
            {"name": ""},
            [
                (
                    ["body", "name"],
                    "ensure this value has at least 1 characters",
                    "value_error.any_str.min_length",
                )
            ],
        ),
        (
            {"name": "   "},
            [
                (
                    ["body", "name"],
                    'string does not match regex "' + NAME_PATTERN + '"',
                    "value_error.str.regex",
                )
            ],
        ),
        (
            {"name": " \t "},
            [(["body", "name"], "string contains a control character", "value_error.str.control")],
        ),
        (
            {"name": "x" * 256},
            [
                (
                    ["body", "name"],
                    "ensure this value has at most 255 characters",
                    "value_error.any_str.max_length",
                )
            ],
        ),
        ({"name": 5}, [(["body", "name"], "str type expected", "type_error.str")]),
        (
            {"name": "ok", "tags": "a"},
            [(["body", "tags"], "value is not a valid list", "type_error.list")],
        ),
        (
            {"name": "ok", "tags": [1]},
            [(["body", "tags", 0], "str type expected", "type_error.str")],
        ),
        (
            {"name": "ok", "description": None},
            [
                (
                    ["body", "description"],
                    "none is not an allowed value",
                    "type_error.none.not_allowed",
                )
            ],
        ),
        (
            {"name": "ok", "description": "d" * 10001},
            [
                (
                    ["body", "description"],
                    "ensure this value has at most 10000 characters",
                    "value_error.any_str.max_length",
                )
            ],
        ),
        (
            {"name": "ok", "tags": ["t"] * 51},
            [
                (
                    ["body", "tags"],
                    "ensure this value has at most 50 characters",
                    "value_error.any_str.max_length",
                )
            ],
        ),
        (
            {"name": "ok", "id": 7},
            [(["body", "id"], "extra fields not permitted", "value_error.extra")],
        ),
        (
            {"name": "ok", "owner_id": "x"},
            [(["body", "owner_id"], "extra fields not permitted", "value_error.extra")],
        ),
        (
            {"name": "ok", "created_at": "2024-01-01T00:00:00Z"},
            [(["body", "created_at"], "extra fields not permitted", "value_error.extra")],
        ),
        (
            {"name": "ok", "updated_at": "2024-01-01T00:00:00Z"},
            [(["body", "updated_at"], "extra fields not permitted", "value_error.extra")],
        ),
        (
            {"name": "ok", "file": None},
            [(["body", "file"], "extra fields not permitted", "value_error.extra")],
        ),
    ],
)
def test_create_validation(client, actors, body, errors):
    response = client.post(URL, json=body, headers=actors["editor"].headers)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [validation_error(*e) for e in errors]}


def test_create_needs_a_json_body(client, actors):
    response = client.post(
        URL,
        data="name=x",
        content_type="application/x-www-form-urlencoded",
        headers=actors["editor"].headers,
    )
    assert response.status_code == 400
    assert "JSON" in response.get_json()["detail"]
    response = client.post(
        URL, data="{oops", content_type="application/json", headers=actors["editor"].headers
    )
    assert (response.status_code, response.get_json()) == (
        400,
        {"detail": "Request body is not valid JSON"},
    )


def test_requests_without_a_token_are_401(client, actors):
    create_dataset(client, actors["editor"].headers, "x")
    for method, url in (
        ("get", URL),
        ("post", URL),
        ("get", f"{URL}1"),
        ("patch", f"{URL}1"),
        ("delete", f"{URL}1"),
        ("get", f"{URL}1/file"),
        ("put", f"{URL}1/file"),
        ("get", f"{URL}abc"),
    ):
        response = getattr(client, method)(url)
        assert response.status_code == 401, (method, url)
        assert response.get_json() == {"detail": "Not authenticated"}


def test_patch_changes_only_what_is_given(client, actors):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "Old", description="keep", tags=["a", "b"])
    response = client.patch(
        f"{URL}{dataset['id']}", json={"name": "New", "tags": ["b", "c"]}, headers=headers
    )
    assert response.status_code == 200
    body = response.get_json()
    assert (body["name"], body["description"], body["tags"]) == ("New", "keep", ["b", "c"])
    assert body["created_at"] == dataset["created_at"]
    assert body["updated_at"] > dataset["updated_at"]
    assert client.get(f"{URL}?tag=a", headers=headers).get_json()["total"] == 0
    assert client.get(f"{URL}?tag=c", headers=headers).get_json()["total"] == 1
    same = client.patch(f"{URL}{dataset['id']}", json={}, headers=headers)
    assert same.status_code == 200 and same.get_json()["name"] == "New"


def test_patch_rename(client, actors):
    headers = actors["editor"].headers
    first = create_dataset(client, headers, "First")
    create_dataset(client, headers, "Second")
    response = client.patch(f"{URL}{first['id']}", json={"name": "SECOND"}, headers=headers)
    assert (response.status_code, response.get_json()) == (409, {"detail": "Name already exists"})
    # Changing only the case of its own name is fine.
    response = client.patch(f"{URL}{first['id']}", json={"name": "FIRST"}, headers=headers)
    assert response.status_code == 200 and response.get_json()["name"] == "FIRST"
    assert client.get(f"{URL}{first['id']}", headers=headers).get_json()["name"] == "FIRST"


@pytest.mark.parametrize(
    "field, value",
    [
        ("id", 3),
        ("owner_id", "someone"),
        ("file", None),
        ("created_at", "2024-01-01T00:00:00Z"),
        ("updated_at", "2024-01-01T00:00:00Z"),
    ],
)
def test_patch_refuses_server_fields(client, actors, field, value):
    headers = actors["admin"].headers
    dataset = create_dataset(client, headers, "x")
    response = client.patch(f"{URL}{dataset['id']}", json={field: value}, headers=headers)
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            validation_error(["body", field], "extra fields not permitted", "value_error.extra")
        ]
    }
    assert client.get(f"{URL}{dataset['id']}", headers=headers).get_json() == dataset


def test_delete_removes_row_file_and_memberships(client, actors, app):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "doomed")
    keep = create_dataset(client, headers, "kept")
    assert upload(client, headers, dataset["id"], b"payload").status_code == 200
    storage = app.config["STORAGE_PATH"]
    stored = set(os.listdir(storage))
    assert len(stored) == 1
    collection = create_collection(
        client, headers, "group", dataset_ids=[dataset["id"], keep["id"]]
    )

    response = client.delete(f"{URL}{dataset['id']}", headers=headers)
    assert response.status_code == 204
    assert response.data == b""
    assert set(os.listdir(storage)) == set()
    assert client.get(f"{URL}{dataset['id']}", headers=headers).status_code == 404
    after = client.get(f"/api/v1/collections/{collection['id']}", headers=headers).get_json()
    assert after["dataset_ids"] == [keep["id"]]
    again = client.delete(f"{URL}{dataset['id']}", headers=headers)
    assert (again.status_code, again.get_json()) == (404, {"detail": "Dataset not found"})
    # The name is free again.
    assert create_dataset(client, headers, "DOOMED")["name"] == "DOOMED"


def test_unicode_names_are_unique_case_insensitively(client, actors):
    headers = actors["editor"].headers
    create_dataset(client, headers, "Ÿtterbium Äpfel")
    response = client.post(URL, json={"name": "ÿtterbium äpfel"}, headers=headers)
    assert (response.status_code, response.get_json()) == (409, {"detail": "Name already exists"})
    assert create_dataset(client, headers, "İ" * 255)["name"] == "İ" * 255


def test_wrong_method_is_405_json(client, actors):
    response = client.put(URL, headers=actors["admin"].headers)
    assert response.status_code == 405
    assert response.get_json() == {"detail": "Method Not Allowed"}
    assert "GET" in response.headers["Allow"]


def test_the_database_enforces_unique_names(client, actors, monkeypatch):
    """Two requests can both pass the pre-check; the unique index still refuses one."""
    from datahub.resources import services as resources

    headers = actors["editor"].headers
    create_dataset(client, headers, "Raced")
    calls = []

    def pre_check_misses(model, name, exclude_id=None):
        calls.append(name)

    monkeypatch.setattr(resources, "refuse_taken_name", pre_check_misses)
    response = client.post(URL, json={"name": "RACED"}, headers=headers)
    assert (response.status_code, response.get_json()) == (409, {"detail": "Name already exists"})
    assert calls == ["RACED"]  # the pre-check passed: the unique index refused the insert
    monkeypatch.undo()
    # The session is usable again after the rollback.
    assert create_dataset(client, headers, "after")["name"] == "after"


def test_a_deleted_datasets_id_is_never_given_again(client, actors):
    """On SQLite too (AUTOINCREMENT, migration 0008): the newest dataset deleted, the next
    one does not take its id, so a URL kept for the deleted one never names another."""
    headers = actors["editor"].headers
    create_dataset(client, headers, "older")
    newest = create_dataset(client, headers, "newest")
    assert client.delete(f"{URL}{newest['id']}", headers=headers).status_code == 204
    created = create_dataset(client, headers, "created after")
    assert created["id"] > newest["id"]
    assert client.get(f"{URL}{newest['id']}", headers=headers).status_code == 404

    # Not even when every dataset is gone.
    for item in client.get(URL, headers=headers).get_json()["items"]:
        assert client.delete(f"{URL}{item['id']}", headers=headers).status_code == 204
    assert create_dataset(client, headers, "alone")["id"] > created["id"]
