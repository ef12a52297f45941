"""Search through datahub_client and the ``datahub search`` command against a real
gunicorn."""

import io
import json

import pytest

from datahub_client import ValidationError

pytestmark = pytest.mark.e2e


def test_search_and_suggest(client, unique):
    word = unique("fjord").replace("-", "").replace("_", "")
    dataset = client.dataset_create(
        f"{word} depths", description="Soundings of the sea floor", tags=["sea"]
    )
    client.dataset_upload(
        dataset["id"], io.BytesIO(b"place,depth\nBergen,400\n"), content_type="text/csv"
    )
    collection = client.collection_create(f"{word} shelf")
    page = client.search(word)
    assert {(item["type"], item["id"]) for item in page["items"]} == {
        ("dataset", dataset["id"]),
        ("collection", collection["id"]),
    }
    assert page["total"] == 2
    assert [item["id"] for item in client.search(word, type=["collection"])["items"]] == [
        collection["id"]
    ]
    assert [item["id"] for item in client.search_iter(word, type="dataset")] == [dataset["id"]]
    (item,) = client.search(f"{word} soundings")["items"]
    assert item["highlights"]["description"] == "<mark>Soundings</mark> of the sea floor"
    suggested = client.search_suggest(word[:-1])
    assert {
        "type": "dataset",
        "id": dataset["id"],
        "name": f"{word} depths",
        "kind": "dataset",
    } in suggested
    with pytest.raises(ValidationError):
        client.search(word, sort="size")


def test_datahub_search_prints_a_table(datahub, client, unique):
    word = unique("lagoon").replace("-", "").replace("_", "")
    dataset = client.dataset_create(f"{word} salinity", tags=["sea"])
    result = datahub("search", word)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["TYPE", "ID", "NAME", "OWNER", "MATCHED"]
    assert lines[1].split()[:2] == ["dataset", str(dataset["id"])] and word in lines[1]
    assert result.stderr.strip().endswith("1 of 1")
    as_json = json.loads(datahub("search", word, "--type", "dataset", "--json").stdout)
    assert [item["id"] for item in as_json["items"]] == [dataset["id"]]
    suggested = datahub("search", "--suggest", word[:5])
    assert f"{word} salinity" in suggested.stdout and f"dataset {dataset['id']}" in suggested.stdout
