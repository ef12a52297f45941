"""Every message of the contract's table (seed 7.3) that the dataset, collection and user
resources can produce, literally, with its status."""

import time

import pytest

from tests.conftest import bearer
from tests.identity.auth.tokens import forge
from tests.resources import actors, create_collection, create_dataset  # noqa: F401

LIMIT = 512  # still above the login body the fixtures send


@pytest.fixture
def config_overrides(tmp_path):
    return {"MAX_CONTENT_LENGTH": LIMIT, "STORAGE_PATH": str(tmp_path / "storage")}


def check(response, status, detail):
    assert response.status_code == status
    assert response.headers["Content-Type"] == "application/json"
    assert response.get_json() == {"detail": detail}


@pytest.mark.parametrize(
    "url",
    ["/api/v1/datasets/", "/api/v1/collections/1", "/api/v1/users/", "/api/v1/datasets/1/file"],
)
def test_401_messages(client, actors, url):
    check(client.get(url), 401, "Not authenticated")
    user_id = actors["viewer"].id
    expired = forge(user_id, iat=int(time.time()) - 4000, lifetime=1800)
    check(client.get(url, headers=bearer(expired)), 401, "Token has expired")
    check(client.get(url, headers=bearer("not.a.token")), 401, "Invalid token")
    assert client.get(url, headers=bearer(expired)).headers["WWW-Authenticate"] == "Bearer"


def test_403_404_409_messages(client, actors):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    dataset = create_dataset(client, editor, "mine")
    collection = create_collection(client, editor, "ours")
    check(client.delete(f"/api/v1/datasets/{dataset['id']}", headers=other), 403, "Forbidden")
    check(client.get("/api/v1/datasets/12345", headers=editor), 404, "Dataset not found")
    check(client.get("/api/v1/collections/12345", headers=editor), 404, "Collection not found")
    check(
        client.put(f"/api/v1/collections/{collection['id']}/datasets/12345", headers=editor),
        404,
        "Dataset not found",
    )
    check(
        client.post("/api/v1/datasets/", json={"name": "MINE"}, headers=other),
        409,
        "Name already exists",
    )
    check(
        client.post("/api/v1/collections/", json={"name": "Ours"}, headers=other),
        409,
        "Name already exists",
    )


def test_422_messages(client, actors):
    headers = actors["editor"].headers
    response = client.post("/api/v1/datasets/", json={}, headers=headers)
    assert response.status_code == 422
    assert response.get_json()["detail"] == [
        {"loc": ["body", "name"], "msg": "field required", "type": "value_error.missing"}
    ]
    response = client.get("/api/v1/datasets/abc", headers=headers)
    assert response.status_code == 422
    assert response.get_json()["detail"] == [
        {
            "loc": ["path", "dataset_id"],
            "msg": "value is not a valid integer",
            "type": "type_error.integer",
        }
    ]


def test_file_too_large(client, actors):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "d")
    check(
        client.put(
            f"/api/v1/datasets/{dataset['id']}/file", data=b"x" * (LIMIT + 1), headers=headers
        ),
        400,
        "File too large",
    )


def test_internal_server_error_is_json_and_logged(client, actors, monkeypatch, caplog):
    from datahub.datasets import services

    def boom(*_args, **_kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(services, "datasets_query", boom)
    response = client.get("/api/v1/datasets/", headers=actors["viewer"].headers)
    check(response, 500, "Internal server error")
    assert "a bug" not in response.get_data(as_text=True)
    assert any("unhandled error on GET /api/v1/datasets/" in r.getMessage() for r in caplog.records)
