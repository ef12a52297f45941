"""A missing id's 404 does the work an unreadable private row's does, so that its time
tells little (bench/existence.py measures it): the same SQL statements, in the same
order, for datasets, collections and pipelines."""

import pytest

from tests.resources import actors, statements  # noqa: F401  (actors: a fixture)


def private_one(client, headers, kind):
    body = {"name": f"private {kind}", "visibility": "private"}
    if kind == "pipelines":
        source = client.post("/api/v1/datasets/", json={"name": "src"}, headers=headers)
        body.update(source_dataset_id=source.get_json()["id"], output_dataset_name="out")
    response = client.post(f"/api/v1/{kind}/", json=body, headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


@pytest.mark.parametrize("kind", ["datasets", "collections", "pipelines"])
def test_a_missing_id_costs_the_statements_of_an_unreadable_one(app, client, actors, kind):
    owner, viewer = actors["editor"].headers, actors["viewer"].headers
    hidden = private_one(client, owner, kind)
    work = {}
    for name, resource_id in (("unreadable", hidden), ("missing", hidden + 1000)):
        client.get(f"/api/v1/{kind}/{resource_id}", headers=viewer)  # a warm-up
        with statements(app) as sent:
            response = client.get(f"/api/v1/{kind}/{resource_id}", headers=viewer)
        assert response.status_code == 404, response.get_json()
        work[name] = (response.get_json(), sent)
    assert work["missing"] == work["unreadable"]
