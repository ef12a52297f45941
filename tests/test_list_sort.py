"""``sort`` on the lists of datasets, collections and pipelines: by name (case-insensitive),
creation or change, either way, ties by id; validated; without it, by id as before."""

import datetime

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.collections.models import Collection
from datahub.datasets.models import Dataset
from datahub.pipelines.models import Pipeline
from tests.pipelines.helpers import create_pipeline, source
from tests.resources import actors, create_collection, create_dataset  # noqa: F401

MODELS = {"datasets": Dataset, "collections": Collection, "pipelines": Pipeline}
NAMES = ("bravo", "Alpha", "charlie", "Delta")  # made in this order


@pytest.fixture
def made(app, client, actors, request):  # noqa: F811
    """The kind's URL and its four rows' ids by name; bravo and charlie were created in
    the same instant (a tie), and Alpha was changed last."""
    kind = request.param
    headers = actors["editor"].headers
    dataset_id = source(client, headers, name="source")["id"] if kind == "pipelines" else None
    make = {
        "datasets": lambda name: create_dataset(client, headers, name),
        "collections": lambda name: create_collection(client, headers, name),
        "pipelines": lambda name: create_pipeline(client, headers, dataset_id, name=name),
    }[kind]
    ids = {name: make(name)["id"] for name in NAMES}
    model = MODELS[kind]
    base = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    with app.app_context():
        for minute, name in enumerate(NAMES):
            tie = minute == 2  # charlie: bravo's instant
            when = base + datetime.timedelta(minutes=0 if tie else minute)
            db.session.execute(
                sa.update(model)
                .where(model.id == ids[name])
                .values(created_at=when, updated_at=when)
            )
        db.session.commit()
    url = f"/api/v1/{kind}/"
    changed = client.patch(f"{url}{ids['Alpha']}", json={"description": "new"}, headers=headers)
    assert changed.status_code == 200
    return url, ids, headers


def order(client, url, headers, query):
    response = client.get(f"{url}?{query}", headers=headers)
    assert response.status_code == 200, response.get_json()
    return [item["name"] for item in response.get_json()["items"] if item["name"] in NAMES]


KINDS = pytest.mark.parametrize("made", list(MODELS), indirect=True)


@KINDS
def test_each_order_either_way(client, made):
    url, ids, headers = made
    expected = {
        "": ["bravo", "Alpha", "charlie", "Delta"],  # by id, as before
        "sort=name": ["Alpha", "bravo", "charlie", "Delta"],
        "sort=-name": ["Delta", "charlie", "bravo", "Alpha"],
        "sort=created_at": ["bravo", "charlie", "Alpha", "Delta"],
        "sort=-created_at": ["Delta", "Alpha", "charlie", "bravo"],
        "sort=updated_at": ["bravo", "charlie", "Delta", "Alpha"],
        "sort=-updated_at": ["Alpha", "Delta", "charlie", "bravo"],
    }
    for query, names in expected.items():
        assert order(client, url, headers, query) == names, query


@KINDS
def test_pages_of_a_sort_follow_on(client, made):
    """Ties by id: pages of one order never repeat or skip an item."""
    url, ids, headers = made
    for sort in ("created_at", "-created_at", "-name"):
        whole = order(client, url, headers, f"sort={sort}")
        paged = [
            name
            for offset in range(0, len(whole) + 2, 2)
            for name in order(client, url, headers, f"sort={sort}&limit=2&offset={offset}")
        ]
        assert paged == whole, sort


@KINDS
def test_sort_with_filters_and_total(client, made):
    url, ids, headers = made
    assert order(client, url, headers, "sort=-name&q=a") == ["Delta", "charlie", "bravo", "Alpha"]
    assert order(client, url, headers, "sort=name&q=ar") == ["charlie"]
    body = client.get(f"{url}?sort=-updated_at&limit=1", headers=headers).get_json()
    assert body["total"] == client.get(url, headers=headers).get_json()["total"]


@pytest.mark.parametrize("kind", list(MODELS))
@pytest.mark.parametrize("value", ["size", "NAME", "name,id", "+name", ""])
def test_an_unknown_sort_is_422(client, actors, kind, value):  # noqa: F811
    response = client.get(f"/api/v1/{kind}/?sort={value}", headers=actors["viewer"].headers)
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            {
                "loc": ["query", "sort"],
                "msg": "value is not a valid enumeration member; permitted: name, -name, "
                "created_at, -created_at, updated_at, -updated_at",
                "type": "type_error.enum",
            }
        ]
    }
