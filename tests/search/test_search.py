"""GET /api/v1/search: what matches, in which order, with which highlights and facets."""

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from tests.resources import (  # noqa: F401  (actors: a fixture)
    actors,
    create_collection,
    create_dataset,
    upload,
    validation_error,
)

URL = "/api/v1/search"


def search(client, headers, **params):
    response = client.get(URL, query_string=params, headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def names(client, headers, q, **params):
    return [item["name"] for item in search(client, headers, q=q, **params)["items"]]


@pytest.fixture
def catalog(client, actors):
    """A few datasets and a collection, owned by the editor."""
    headers = actors["editor"].headers
    rows = {
        "weather": create_dataset(
            client,
            headers,
            "Oslo weather",
            description="Daily rainfall and temperature measured in Norway",
            tags=["climate", "nordic data"],
        ),
        "sales": create_dataset(
            client, headers, "Shop sales 2024", description="Receipts by store"
        ),
        "tromso": create_dataset(client, headers, "Tromsø stations", description="Arctic sensors"),
        "running": create_dataset(
            client, headers, "Marathon results", description="Runners and running times"
        ),
    }
    rows["collection"] = create_collection(
        client, headers, "Weather archive", description="All the rain"
    )
    return rows


def test_words_match_by_weight_stem_accent_and_prefix(client, actors, catalog):
    headers = actors["viewer"].headers
    # Name beats description: the collection and the dataset named "weather" first.
    assert set(names(client, headers, "weather")) == {"Oslo weather", "Weather archive"}
    assert names(client, headers, "rainfall") == ["Oslo weather"]
    assert names(client, headers, "norway temperature") == ["Oslo weather"]  # any order
    assert names(client, headers, "norway sales") == []  # every word must match
    assert names(client, headers, "tromso") == ["Tromsø stations"]  # accent-insensitive
    assert names(client, headers, "TROMSØ") == ["Tromsø stations"]  # and case
    assert names(client, headers, "run") == ["Marathon results"]  # "running", stemmed
    assert names(client, headers, "marath") == ["Marathon results"]  # the last word: a prefix
    assert names(client, headers, "marath ") == []  # not once a space ends it
    assert names(client, headers, "climate") == ["Oslo weather"]  # a tag


def test_phrases_exclusion_and_or(client, actors, catalog):
    headers = actors["viewer"].headers
    assert names(client, headers, '"rainfall and temperature"') == ["Oslo weather"]
    assert names(client, headers, '"temperature rainfall"') == []  # a phrase keeps its order
    assert names(client, headers, "weather -archive") == ["Oslo weather"]
    assert names(client, headers, 'weather -"all the rain"') == ["Oslo weather"]
    assert set(names(client, headers, "receipts or runners")) == {
        "Shop sales 2024",
        "Marathon results",
    }
    assert names(client, headers, "-weather -archive", type="collection") == []


def test_highlights_are_escaped_text_with_marks(client, actors):
    headers = actors["editor"].headers
    create_dataset(
        client, headers, "<b>Bold</b> & weather", description="x" * 400 + " weather " + "y" * 400
    )
    item = search(client, headers, q="weather")["items"][0]
    assert item["highlights"]["name"] == "&lt;b&gt;Bold&lt;/b&gt; &amp; <mark>weather</mark>"
    excerpt = item["highlights"]["description"]
    assert "<mark>weather</mark>" in excerpt and excerpt.startswith("…") and excerpt.endswith("…")
    assert len(item["description"]) == 300 and item["description"].endswith("…")


def test_readme_highlights_fold_accents_stem_and_keep_the_window(client, actors):
    headers = actors["editor"].headers
    readme = (
        "Counts from Tromsø harbour. "
        + "filler " * 80
        + "Ferries counted at TROMSO quay. "
        + "filler " * 80
        + "The last tromsø count."
    )
    create_dataset(client, headers, "Harbour traffic", readme=readme)
    item = search(client, headers, q="tromso")["items"][0]
    excerpt = item["highlights"]["readme"]
    # The window starts at the first match; a match past its end is not marked.
    assert excerpt.startswith("Counts from <mark>Tromsø</mark> harbour.")
    assert excerpt.endswith("…") and "TROMSO" not in excerpt and "last" not in excerpt
    item = search(client, headers, q="counting")["items"][0]  # a word of the same stem
    assert item["highlights"]["readme"].startswith("<mark>Counts</mark> from Tromsø")
    item = search(client, headers, q="harbour")["items"][0]
    assert item["highlights"]["name"] == "<mark>Harbour</mark> traffic"
    assert "readme" in item["highlights"] and "description" not in item["highlights"]


def test_an_item_has_every_field(client, actors, catalog):
    editor = actors["editor"]
    assert (
        upload(
            client, editor.headers, catalog["sales"]["id"], b"store,amount\nBergen,10\n"
        ).status_code
        == 200
    )
    page = search(client, editor.headers, q="receipts")
    (item,) = page["items"]
    assert set(item) == {
        "type", "id", "name", "description", "tags", "owner_id", "owner", "updated_at",
        "visibility", "format", "size_bytes", "rows", "score", "highlights", "matched_columns",
    }  # fmt: skip
    assert (item["type"], item["id"], item["format"], item["rows"]) == (
        "dataset",
        catalog["sales"]["id"],
        "csv",
        None,
    )
    assert item["owner"] == {"id": editor.id, "name": "A User"}
    assert item["size_bytes"] == len(b"store,amount\nBergen,10\n")
    assert page["total"] == 1 and (page["limit"], page["offset"]) == (20, 0)


def test_facets_count_the_matches_and_filters_narrow_them(client, actors, catalog):
    editor = actors["editor"]
    upload(client, editor.headers, catalog["weather"]["id"], b"city,mm\nOslo,3\n")
    page = search(client, editor.headers)
    assert page["total"] == 5
    facets = page["facets"]
    assert facets["type"] == [{"value": "dataset", "count": 4}, {"value": "collection", "count": 1}]
    assert {"value": "climate", "count": 1} in facets["tags"]
    assert facets["format"] == [{"value": "csv", "count": 1}]
    assert facets["owner"] == [{"value": editor.id, "count": 5, "name": "A User"}]
    assert facets["visibility"] == [{"value": "internal", "count": 5}]
    assert names(client, editor.headers, "", type="collection") == ["Weather archive"]
    assert names(client, editor.headers, "", tag="nordic data") == ["Oslo weather"]
    assert names(client, editor.headers, "", format="csv") == ["Oslo weather"]
    assert len(names(client, editor.headers, "", owner="me")) == 5
    assert names(client, editor.headers, "", owner=actors["other_editor"].id) == []
    members = client.patch(
        f"/api/v1/collections/{catalog['collection']['id']}",
        json={"dataset_ids": [catalog["running"]["id"]]},
        headers=editor.headers,
    )
    assert members.status_code == 200, members.get_json()
    assert names(client, editor.headers, "", collection=catalog["collection"]["id"]) == [
        "Marathon results"
    ]


def test_sorts(client, actors, catalog):
    headers = actors["viewer"].headers
    newest = names(client, headers, "")
    assert (
        newest[0] == "Weather archive" and newest[-1] == "Oslo weather"
    )  # without q: newest first
    assert names(client, headers, "", sort="name") == sorted(newest, key=str.lower)
    assert names(client, headers, "", sort="-updated_at") == newest
    assert len(names(client, headers, "", sort="popular")) == 5
    page = search(client, headers, q="weather", limit=1, offset=1)
    assert len(page["items"]) == 1 and page["total"] == 2


def test_the_index_follows_each_change_at_once(client, actors):
    headers = actors["editor"].headers
    dataset = create_dataset(client, headers, "Ferry timetable")
    assert names(client, headers, "ferry") == ["Ferry timetable"]  # as soon as it is made
    url = f"/api/v1/datasets/{dataset['id']}"
    assert (
        client.patch(
            url, json={"name": "Bus timetable", "tags": ["transit"]}, headers=headers
        ).status_code
        == 200
    )
    assert names(client, headers, "ferry") == []
    assert names(client, headers, "transit") == ["Bus timetable"]
    assert client.delete(url, headers=headers).status_code == 204
    assert names(client, headers, "bus") == []  # gone as soon as it is deleted
    # A refused change changes nothing.
    create_dataset(client, headers, "Train timetable")
    other = create_dataset(client, headers, "Tram timetable")
    taken = client.patch(
        f"/api/v1/datasets/{other['id']}", json={"name": "Train timetable"}, headers=headers
    )
    assert taken.status_code == 409
    assert names(client, headers, "tram") == ["Tram timetable"]


@pytest.mark.parametrize(
    "q",
    [
        '"unbalanced',
        'a "b',
        "NEAR(a b)",
        "col:value",
        "^start",
        "x AND OR NOT y",
        "*",
        "-",
        "--",
        "or",
        "a OR",
        "'; DROP TABLE datasets; --",
        "%_\\",
        "():*!&|<->",
        "ünïcödé 日本語 🎉",
        "w" * 1000,
        " ".join(["word"] * 200),
    ],
)
def test_hostile_queries_answer_200(client, actors, catalog, q):
    response = client.get(URL, query_string={"q": q}, headers=actors["viewer"].headers)
    assert response.status_code == 200, response.get_json()
    suggest = client.get(
        f"{URL}/suggest", query_string={"q": q[:100]}, headers=actors["viewer"].headers
    )
    assert suggest.status_code == 200, suggest.get_json()


@pytest.mark.parametrize(
    "params, loc, msg, type_",
    [
        ({"q": "a\x00b"}, ["query", "q"], None, None),
        (
            {"q": "x" * 10240},
            ["query", "q"],
            "ensure this value has at most 1000 characters",
            "value_error.any_str.max_length",
        ),
        ({"type": "dataset,table"}, ["query", "type"], None, "type_error.enum"),
        ({"sort": "size"}, ["query", "sort"], None, "type_error.enum"),
        ({"limit": "0"}, ["query", "limit"], None, None),
        ({"format": "xlsx"}, ["query", "format"], None, "type_error.enum"),
    ],
)
def test_bad_parameters_are_422s(client, actors, params, loc, msg, type_):
    response = client.get(URL, query_string=params, headers=actors["viewer"].headers)
    assert response.status_code == 422
    (error,) = response.get_json()["detail"]
    assert error["loc"] == loc
    if msg is not None:
        assert error == validation_error(loc, msg, type_)
    elif type_ is not None:
        assert error["type"] == type_


def test_suggestions_as_one_types(client, actors, catalog):
    headers = actors["viewer"].headers

    def suggest(q):
        response = client.get(f"{URL}/suggest", query_string={"q": q}, headers=headers)
        assert response.status_code == 200, response.get_json()
        return [(item["kind"], item["name"]) for item in response.get_json()["items"]]

    assert suggest("weat") == [("collection", "Weather archive"), ("dataset", "Oslo weather")]
    assert ("dataset", "Oslo weather") in suggest("ather")  # a substring
    assert suggest("nordic") == [("tag", "nordic data")]
    assert suggest("os") == [("dataset", "Oslo weather")]  # short: still a substring
    assert suggest("zzz") == []
    for index in range(12):
        create_dataset(client, actors["editor"].headers, f"Weather {index}")
    assert len(suggest("weather")) == 10
    missing = client.get(f"{URL}/suggest", headers=headers)
    assert missing.status_code == 422
    assert missing.get_json()["detail"] == [
        validation_error(["query", "q"], "field required", "value_error.missing")
    ]


def test_sqlite_reads_suggested_names_from_the_index_of_short_columns(app, client, actors):
    """The names that contain what is typed are read from ``ix_search_documents_hits``
    (migration 0023), not from the rows with their long text (bench/README.rst, "Search"):
    that is what keeps a three-letter suggestion within its time. PostgreSQL's own plan
    (its trigram index) is its planner's choice."""
    create_dataset(client, actors["editor"].headers, "Bus ridership", readme="words " * 500)
    statements = []

    def grab(_conn, _cursor, statement, parameters, _context, _many):
        if "search_trigrams MATCH" in statement and "search_documents.name" in statement:
            statements.append((statement, parameters))

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", grab)
    try:
        response = client.get(
            f"{URL}/suggest", query_string={"q": "ride"}, headers=actors["viewer"].headers
        )
    finally:
        sa.event.remove(engine, "before_cursor_execute", grab)
    assert response.get_json()["items"][0]["name"] == "Bus ridership"
    if engine.dialect.name != "sqlite":
        assert statements == []  # the trigram table is SQLite's
        return
    [(statement, parameters)] = statements
    with engine.connect() as conn:
        plan = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters).all()
    assert any(
        "USING COVERING INDEX ix_search_documents_hits" in row[-1]
        and row[-1].startswith("SEARCH search_documents")
        for row in plan
    ), plan


def test_search_needs_a_login(client):
    assert client.get(URL).status_code == 401
    assert client.get(f"{URL}/suggest?q=a").status_code == 401
