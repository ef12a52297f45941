"""A dataset's README and what its columns mean (GET/PATCH /datasets/{id}/columns), kept
across versions by column name, and found by search."""

import pytest

from datahub.app.extensions import db
from datahub.events.models import Event
from tests.access.conftest import grant, personal_token
from tests.resources import actors, create_dataset, upload, validation_error  # noqa: F401

URL = "/api/v1/datasets/"
CITIES = b"city,temp\nOslo,3\n"


def columns_url(dataset):
    return f"{URL}{dataset['id']}/columns"


def describe(client, headers, dataset, **descriptions):
    body = {"columns": [{"name": name, "description": text} for name, text in descriptions.items()]}
    return client.patch(columns_url(dataset), json=body, headers=headers)


def test_a_readme_is_markdown_of_at_most_100_kb(client, actors):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "Documented", readme="# Oslo\n\nDaily *rain*.")
    assert dataset["readme"] == "# Oslo\n\nDaily *rain*."
    assert create_dataset(client, headers, "Plain")["readme"] == ""
    url = f"{URL}{dataset['id']}"
    exactly = "ø" * 51200  # two bytes each: 102,400 bytes
    assert client.patch(url, json={"readme": exactly}, headers=headers).status_code == 200
    too_long = client.patch(url, json={"readme": exactly + "x"}, headers=headers)
    assert too_long.status_code == 422
    assert too_long.get_json()["detail"] == [
        validation_error(
            ["body", "readme"],
            "ensure this value has at most 102400 bytes",
            "value_error.any_str.max_length",
        )
    ]
    assert client.get(url, headers=headers).get_json()["readme"] == exactly
    assert client.patch(url, json={"readme": "a\x00b"}, headers=headers).status_code == 422


def test_columns_with_their_types_and_descriptions(client, actors):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "Cities")
    assert client.get(columns_url(dataset), headers=headers).get_json() == {
        "version": None,
        "columns": [],
    }
    refused = describe(client, headers, dataset, city="The city")
    assert refused.status_code == 422
    assert refused.get_json()["detail"] == [
        validation_error(
            ["body", "columns"], "Dataset has no columns yet", "value_error.no_columns"
        )
    ]
    assert upload(client, headers, dataset["id"], CITIES).status_code == 200
    described = describe(client, headers, dataset, city="Where it was measured")
    assert described.status_code == 200, described.get_json()
    assert described.get_json() == {
        "version": 1,
        "columns": [
            {"name": "city", "type": "VARCHAR", "description": "Where it was measured"},
            {"name": "temp", "type": "BIGINT", "description": ""},
        ],
    }
    assert client.get(columns_url(dataset), headers=headers).get_json() == described.get_json()
    unknown = describe(client, headers, dataset, city="x", rain="y")
    assert unknown.status_code == 422
    assert unknown.get_json()["detail"] == [
        validation_error(
            ["body", "columns", 1, "name"], "Unknown column: rain", "value_error.unknown_column"
        )
    ]
    # Nothing of a refused change is kept; "" removes a description.
    assert (
        client.get(columns_url(dataset), headers=headers).get_json()["columns"][0]["description"]
        == "Where it was measured"
    )
    assert describe(client, headers, dataset, city="").get_json()["columns"][0]["description"] == ""


def test_descriptions_are_kept_across_versions_by_name(client, actors):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "Stations")
    upload(client, headers, dataset["id"], CITIES)
    assert describe(client, headers, dataset, city="The city", temp="°C").status_code == 200
    upload(client, headers, dataset["id"], b"city,rain\nOslo,1\n")
    assert client.get(columns_url(dataset), headers=headers).get_json() == {
        "version": 2,
        "columns": [
            {"name": "city", "type": "VARCHAR", "description": "The city"},
            {"name": "rain", "type": "BIGINT", "description": ""},
        ],
    }
    upload(client, headers, dataset["id"], CITIES)
    assert [
        c["description"]
        for c in client.get(columns_url(dataset), headers=headers).get_json()["columns"]
    ] == ["The city", "°C"]


def test_who_may_read_and_describe_columns(client, actors):
    owner, viewer, other = actors["editor"], actors["viewer"], actors["other_editor"]
    dataset = create_dataset(client, owner.headers, "Guarded")
    upload(client, owner.headers, dataset["id"], CITIES)
    assert client.get(columns_url(dataset), headers=viewer.headers).status_code == 200
    assert describe(client, viewer.headers, dataset, city="x").status_code == 403
    assert describe(client, other.headers, dataset, city="x").status_code == 403
    grant(client, owner.headers, "datasets", dataset["id"], f"user:{other.id}", "write")
    assert describe(client, other.headers, dataset, city="x").status_code == 200
    reader = personal_token(client, other, ["read"])
    assert client.get(columns_url(dataset), headers=reader.headers).status_code == 200
    assert describe(client, reader.headers, dataset, city="y").status_code == 403
    private = create_dataset(client, owner.headers, "Hidden", visibility="private")
    assert client.get(columns_url(private), headers=viewer.headers).status_code == 404
    assert client.get(f"{URL}424242/columns", headers=viewer.headers).get_json() == {
        "detail": "Dataset not found"
    }


def test_not_a_table(client, actors):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "Binary")
    upload(client, headers, dataset["id"], b"\x00\x01\x02\xff" * 100)
    response = client.get(columns_url(dataset), headers=headers)
    assert response.status_code == 422
    assert response.get_json() == {"detail": "Dataset file is not tabular"}


def test_describing_is_a_change_with_its_event(app, client, actors):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "Evented")
    upload(client, headers, dataset["id"], CITIES)
    before = client.get(f"{URL}{dataset['id']}", headers=headers).get_json()["updated_at"]
    describe(client, headers, dataset, city="The city")
    after = client.get(f"{URL}{dataset['id']}", headers=headers).get_json()["updated_at"]
    assert after > before
    with app.app_context():
        types = [event.type for event in db.session.query(Event).order_by(Event.id)]
    assert types[-1] == "datahub.dataset.updated"


@pytest.mark.parametrize("field", ["readme", "columns"])
def test_search_finds_a_dataset_by_its_documentation(client, actors, field):
    headers = actors["editor"].headers
    dataset = create_dataset(
        client,
        headers,
        "Sensors",
        readme="Collected by the harbour office" if field == "readme" else "",
    )
    if field == "columns":
        upload(client, headers, dataset["id"], CITIES)
        describe(client, headers, dataset, temp="Measured by the harbour office")
    page = client.get(
        "/api/v1/search", query_string={"q": "harbour office"}, headers=headers
    ).get_json()
    assert [item["id"] for item in page["items"]] == [dataset["id"]]
    if field == "readme":
        assert (
            page["items"][0]["highlights"]["readme"]
            == "Collected by the <mark>harbour</mark> <mark>office</mark>"
        )
