"""Diffs between two versions through HTTP, on the local folder and on S3: keyed and
unkeyed, schema changes, samples, and the clear 4xx of each thing a client can get wrong."""

import pytest

from tests.resources import create_dataset

URL = "/api/v1/datasets/"


@pytest.fixture
def config_overrides(backend_config):
    return {**backend_config}


@pytest.fixture
def editor(actors):
    return actors["editor"]


def put(client, headers, dataset, data):
    response = client.put(
        f"{URL}{dataset['id']}/file", data=data, headers=headers, content_type="text/csv"
    )
    assert response.status_code == 200, response.get_json()


def diff(client, headers, dataset, **query):
    return client.get(f"{URL}{dataset['id']}/diff", headers=headers, query_string=query)


@pytest.fixture
def people(client, editor):
    dataset = create_dataset(client, editor.headers, "people")
    put(client, editor.headers, dataset, b"id,name,age\n1,Ann,34\n2,Bob,9\n3,Cid,100\n")
    put(
        client,
        editor.headers,
        dataset,
        b"id,name,age,city\n1,Ann,35,Oslo\n3,Cid,100,Bergen\n4,Dee,34,Troms\xc3\xb8\n",
    )
    return dataset


def test_a_keyed_diff_counts_and_samples_each_kind(client, editor, actors, people):
    response = diff(client, actors["viewer"].headers, people, **{"from": 1, "to": 2, "key": "id"})
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {
        "from": 1,
        "to": 2,
        "schema": {"added": [{"name": "city", "type": "VARCHAR"}], "removed": [], "changed": []},
        "rows": {"added": 1, "removed": 1, "changed": 1, "unchanged": 1},
        "sample": {
            "added": [[4, "Dee", 34]],
            "removed": [[2, "Bob", 9]],
            "changed": [{"key": [1], "from": [1, "Ann", 34], "to": [1, "Ann", 35]}],
        },
        "columns": ["id", "name", "age"],
        "profile": None,  # no worker has profiled them (tests/datasets/profiles)
    }


def test_without_a_key_rows_are_compared_as_multisets(client, editor, people):
    put(client, editor.headers, people, b"id,name,age\n1,Ann,34\n1,Ann,34\n2,Bob,9\n")
    body = diff(client, editor.headers, people, **{"from": 1, "to": 3}).get_json()
    assert body["rows"] == {"added": 1, "removed": 1, "changed": 0, "unchanged": 2}
    assert body["sample"] == {
        "added": [[1, "Ann", 34]],
        "removed": [[3, "Cid", 100]],
        "changed": [],
    }
    backwards = diff(client, editor.headers, people, **{"from": 2, "to": 1}).get_json()
    assert backwards["schema"]["removed"] == [{"name": "city", "type": "VARCHAR"}]
    assert backwards["rows"] == {"added": 2, "removed": 2, "changed": 0, "unchanged": 1}


def test_a_retyped_column_is_reported_and_compared_as_text(client, editor):
    dataset = create_dataset(client, editor.headers, "typed")
    put(client, editor.headers, dataset, b"k,v\n1,10\n2,20\n")
    put(client, editor.headers, dataset, b"k,v\n1,10\n2,twenty\n")
    body = diff(client, editor.headers, dataset, **{"from": 1, "to": 2, "key": "k"}).get_json()
    assert body["schema"]["changed"] == [{"name": "v", "from": "BIGINT", "to": "VARCHAR"}]
    assert body["rows"] == {"added": 0, "removed": 0, "changed": 1, "unchanged": 1}
    assert body["sample"]["changed"] == [{"key": [2], "from": [2, 20], "to": [2, "twenty"]}]


def test_samples_are_at_most_twenty_the_smallest_keys(client, editor):
    dataset = create_dataset(client, editor.headers, "many")
    put(client, editor.headers, dataset, b"k\n" + b"".join(b"%d\n" % n for n in range(100)))
    put(client, editor.headers, dataset, b"k\n" + b"".join(b"%d\n" % n for n in range(50, 200)))
    body = diff(client, editor.headers, dataset, **{"from": 1, "to": 2, "key": "k"}).get_json()
    assert body["rows"] == {"added": 100, "removed": 50, "changed": 0, "unchanged": 50}
    assert body["sample"]["added"] == [[n] for n in range(100, 120)]
    assert body["sample"]["removed"] == [[n] for n in range(20)]


def test_what_a_client_gets_wrong_is_a_clear_4xx(client, editor, people):
    def check(query, status, detail):
        response = diff(client, editor.headers, people, **query)
        assert (response.status_code, response.get_json()) == (status, {"detail": detail}), query

    check({"from": 1, "to": 9}, 404, "Version not found")
    check(
        {"from": 1, "to": 2, "key": "city"},
        422,
        "Key column 'city' is not a column of both versions",
    )
    check({"from": 1, "to": 2, "key": "id,id"}, 422, "Key columns must not repeat")
    put(client, editor.headers, people, b"id,name\n1,a\n1,b\n")
    check(
        {"from": 2, "to": 3, "key": "id"},
        422,
        "Key values repeat: a key must identify one row in each version",
    )
    put(client, editor.headers, people, b"\x00\x01")
    check({"from": 1, "to": 4}, 422, "Dataset file is not tabular")
    missing = diff(client, editor.headers, people, to=2)
    assert missing.status_code == 422
    assert missing.get_json()["detail"][0]["loc"] == ["query", "from"]
    gone = client.get(f"{URL}999999/diff?from=1&to=2", headers=editor.headers)
    assert (gone.status_code, gone.get_json()) == (404, {"detail": "Dataset not found"})


def test_a_diff_over_the_time_limit_is_422(app, client, editor, people):
    app.config["DIFF_TIMEOUT_SECONDS"] = 0
    response = diff(client, editor.headers, people, **{"from": 1, "to": 2})
    assert (response.status_code, response.get_json()) == (422, {"detail": "Diff timed out"})


def test_a_diff_over_the_memory_limit_is_422_and_this_process_is_untouched(app, client, editor):
    """Wide JSON (one row of 300,000 keys) in both versions: the diff's process is killed,
    or DuckDB gives up, at the pipelines' memory limit; the web process does not grow."""
    import json
    import os

    from datahub.platform import isolation

    app.config.update(PIPELINE_MEMORY_LIMIT="32MB", PIPELINE_MEMORY_MARGIN="32MB")
    dataset = create_dataset(client, editor.headers, "wide")
    for value in ("v", "w"):
        wide = json.dumps({f"key{i}": value * 20 for i in range(300_000)}).encode() + b"\n"
        put(client, editor.headers, dataset, wide * 4)
    before = isolation.resident_bytes(os.getpid())
    response = diff(client, editor.headers, dataset, **{"from": 1, "to": 2})
    assert response.status_code == 422, response.get_json()
    assert response.get_json() == {"detail": "Diff is too large"}
    assert isolation.resident_bytes(os.getpid()) - before < 64 * 2**20


def test_a_key_repeated_in_one_version_only_is_just_rows(client, editor):
    dataset = create_dataset(client, editor.headers, "repeats")
    put(client, editor.headers, dataset, b"id,v\n1,a\n2,b\n")
    put(client, editor.headers, dataset, b"id,v\n1,a\n3,c\n3,d\n")
    body = diff(client, editor.headers, dataset, **{"from": 1, "to": 2, "key": "id"}).get_json()
    assert body["rows"] == {"added": 2, "removed": 1, "changed": 0, "unchanged": 1}
