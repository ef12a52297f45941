"""Lineage through HTTP: a chain of two pipelines, walked upstream and downstream to a
depth; a dataset without a file has none; unknown versions and bad arguments are 4xx."""

from tests.pipelines.helpers import create_pipeline, run_now, source

URL = "/api/v1/datasets/"


def lineage(client, headers, dataset_id, **query):
    response = client.get(f"{URL}{dataset_id}/lineage", headers=headers, query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def chain(app, client, headers):
    """people → (run 1) → adults → (run 2) → names; the ids of the datasets and runs."""
    people = source(client, headers)
    first = create_pipeline(
        client,
        headers,
        people["id"],
        [{"op": "filter", "column": "age", "operator": "ge", "value": 18}],
        name="adults",
        output="adults",
    )
    run_1 = run_now(app, client, headers, first["id"])
    adults = run_1["output_dataset_id"]
    second = create_pipeline(
        client,
        headers,
        adults,
        [{"op": "select", "columns": ["name"]}],
        name="names",
        output="names",
    )
    run_2 = run_now(app, client, headers, second["id"])
    return {
        "people": people["id"],
        "adults": adults,
        "names": run_2["output_dataset_id"],
        "run_1": run_1["id"],
        "run_2": run_2["id"],
        "pipeline_1": first["id"],
        "pipeline_2": second["id"],
    }


def test_a_chain_upstream_and_downstream(app, client, actors):
    headers = actors["editor"].headers
    ids = chain(app, client, headers)
    people, adults, names = (f"dataset:{ids[name]}@1" for name in ("people", "adults", "names"))
    run_1, run_2 = f"run:{ids['run_1']}", f"run:{ids['run_2']}"
    upstream = lineage(client, actors["viewer"].headers, ids["names"], direction="upstream")
    assert upstream == {
        "nodes": [
            {
                "id": people,
                "type": "version",
                "dataset_id": ids["people"],
                "version": 1,
                "name": "people",
            },
            {
                "id": adults,
                "type": "version",
                "dataset_id": ids["adults"],
                "version": 1,
                "name": "adults",
            },
            {
                "id": names,
                "type": "version",
                "dataset_id": ids["names"],
                "version": 1,
                "name": "names",
            },
            {"id": run_1, "type": "run", "run_id": ids["run_1"], "pipeline_id": ids["pipeline_1"]},
            {"id": run_2, "type": "run", "run_id": ids["run_2"], "pipeline_id": ids["pipeline_2"]},
        ],
        "edges": sorted(
            [
                {"from": people, "to": run_1},
                {"from": run_1, "to": adults},
                {"from": adults, "to": run_2},
                {"from": run_2, "to": names},
            ],
            key=lambda edge: (edge["from"], edge["to"]),
        ),
    }
    near = lineage(client, headers, ids["people"], direction="downstream", depth=1)
    assert {node["id"] for node in near["nodes"]} == {people, run_1, adults}
    far = lineage(client, headers, ids["people"], direction="downstream", depth=2)
    assert {node["id"] for node in far["nodes"]} == {people, run_1, adults, run_2, names}
    both = lineage(client, headers, ids["adults"])
    assert {node["id"] for node in both["nodes"]} == {people, run_1, adults, run_2, names}
    assert lineage(client, headers, ids["people"], direction="upstream")["edges"] == []


def test_a_later_version_has_its_own_lineage(app, client, actors):
    headers = actors["editor"].headers
    ids = chain(app, client, headers)
    response = client.put(
        f"{URL}{ids['people']}/file",
        data=b"name,age\nZed,40\n",
        headers=headers,
        content_type="text/csv",
    )
    assert response.status_code == 200
    assert lineage(client, headers, ids["people"]) == {
        "nodes": [
            {
                "id": f"dataset:{ids['people']}@2",
                "type": "version",
                "dataset_id": ids["people"],
                "version": 2,
                "name": "people",
            }
        ],
        "edges": [],
    }
    older = lineage(client, headers, ids["people"], version=1, depth=1)
    assert len(older["nodes"]) == 3


def test_no_file_no_lineage_and_bad_requests_are_4xx(client, actors):
    headers = actors["editor"].headers
    empty = client.post(URL, json={"name": "empty"}, headers=headers).get_json()
    assert lineage(client, headers, empty["id"]) == {"nodes": [], "edges": []}
    response = client.get(f"{URL}{empty['id']}/lineage?version=1", headers=headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Version not found"})
    response = client.get(f"{URL}999999/lineage", headers=headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    for query in ("depth=11", "depth=0", "direction=sideways"):
        response = client.get(f"{URL}{empty['id']}/lineage?{query}", headers=headers)
        assert response.status_code == 422, query
    assert client.get(f"{URL}{empty['id']}/lineage").status_code == 401
