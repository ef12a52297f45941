"""Search shows only what the caller may read: in items, totals, facets and suggestions,
through grants, groups, revocations and personal access tokens."""

from tests.access.conftest import grant, make_group, personal_token
from tests.pipelines.helpers import create_pipeline
from tests.resources import actors, create_collection, create_dataset  # noqa: F401

URL = "/api/v1/search"


def found(client, headers, q="secret"):
    response = client.get(URL, query_string={"q": q}, headers=headers)
    assert response.status_code == 200, response.get_json()
    page = response.get_json()
    suggestions = client.get(f"{URL}/suggest", query_string={"q": q}, headers=headers).get_json()
    return {
        "names": sorted(item["name"] for item in page["items"]),
        "total": page["total"],
        "facet_total": sum(value["count"] for value in page["facets"]["type"]),
        "tags": [value["value"] for value in page["facets"]["tags"]],
        "suggested": sorted(item["name"] for item in suggestions["items"]),
    }


NOTHING = {"names": [], "total": 0, "facet_total": 0, "tags": [], "suggested": []}


def test_a_private_dataset_shows_only_to_those_who_may_read_it(app, client, actors):
    owner, viewer, other = actors["editor"], actors["viewer"], actors["other_editor"]
    dataset = create_dataset(
        client, owner.headers, "Secret salaries", tags=["secret-tag"], visibility="private"
    )
    private_view = {
        "names": ["Secret salaries"],
        "total": 1,
        "facet_total": 1,
        "tags": ["secret-tag"],
        "suggested": ["Secret salaries", "secret-tag"],
    }
    assert found(client, owner.headers) == private_view
    assert found(client, actors["admin"].headers) == private_view
    assert found(client, viewer.headers) == NOTHING
    assert found(client, other.headers) == NOTHING
    assert found(client, viewer.headers, "salaries") == NOTHING  # no word of it leaks

    given = grant(client, owner.headers, "datasets", dataset["id"], f"user:{viewer.id}", "read")
    assert found(client, viewer.headers) == private_view
    token = personal_token(client, viewer, ["read"])
    assert found(client, token.headers) == private_view  # a token reads as its user
    revoked = client.delete(
        f"/api/v1/datasets/{dataset['id']}/grants/{given['id']}", headers=owner.headers
    )
    assert revoked.status_code == 204
    assert found(client, viewer.headers) == NOTHING  # the next request
    assert found(client, token.headers) == NOTHING

    group_id = make_group(app, "readers", other.id)
    grant(client, owner.headers, "datasets", dataset["id"], f"group:{group_id}", "read")
    assert found(client, other.headers) == private_view
    assert found(client, viewer.headers) == NOTHING

    made_internal = client.patch(
        f"/api/v1/datasets/{dataset['id']}", json={"visibility": "internal"}, headers=owner.headers
    )
    assert made_internal.status_code == 200
    assert found(client, viewer.headers) == private_view


def test_private_collections_and_pipelines_likewise(client, actors):
    owner, viewer = actors["editor"], actors["viewer"]
    source = create_dataset(client, owner.headers, "Source", visibility="private")
    collection = create_collection(client, owner.headers, "Secret shelf", visibility="private")
    create_pipeline(
        client,
        owner.headers,
        source["id"],
        name="Secret pipeline",
        visibility="private",
    )
    assert found(client, owner.headers)["names"] == ["Secret pipeline", "Secret shelf"]
    assert found(client, viewer.headers) == NOTHING
    grant(client, owner.headers, "collections", collection["id"], f"user:{viewer.id}", "read")
    assert found(client, viewer.headers)["names"] == ["Secret shelf"]
    assert found(client, viewer.headers)["total"] == 1


def test_one_percent_readable(client, actors):
    """Totals and facets count only the readable among many private rows."""
    owner, viewer = actors["editor"], actors["viewer"]
    for index in range(20):
        create_dataset(client, owner.headers, f"Secret {index}", visibility="private")
    readable = create_dataset(client, owner.headers, "Secret open", visibility="private")
    grant(client, owner.headers, "datasets", readable["id"], f"user:{viewer.id}", "write")
    result = found(client, viewer.headers)
    assert (result["names"], result["total"], result["facet_total"]) == (["Secret open"], 1, 1)
