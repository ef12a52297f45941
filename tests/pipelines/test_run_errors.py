"""A run's error carries no value from the data: whatever fails on a private source's
values (a cast, a function's invalid input, ``error()``, a CSV row read late), the secret
is in neither the run, its events nor its OpenLineage FAIL event, which every reader of an
internal pipeline sees; the error still says which step failed and how."""

import json

import pytest

from tests.pipelines.helpers import PIPELINES, create_pipeline, run_now, source
from tests.pipelines.lineage.test_openlineage import receiver  # noqa: F401  (a fixture)

SECRET = "SECRET-7f3a9"
TEXT = f'secret,pattern,doc\r\n{SECRET},{SECRET}(,"{{{SECRET}"\r\n'
NOT_SHOWN = "(values from the data are not shown in a run's error)"


@pytest.fixture
def config_overrides(receiver):  # noqa: F811
    return {"OPENLINEAGE_URL": receiver[0], "OPENLINEAGE_NAMESPACE": "test-hub"}


def sql(query):
    return [{"op": "sql", "query": query}]


CASES = [
    (sql("SELECT CAST(secret AS INTEGER) FROM input"), "step 0 (sql): Conversion Error: "),
    (sql("SELECT secret::DATE FROM input"), "step 0 (sql): Conversion Error: "),
    (sql("SELECT error(secret) FROM input"), "the run failed: Invalid Input Error: "),
    (sql("SELECT strptime(secret, '%Y-%m-%d') FROM input"), "the run failed: Invalid Input"),
    (sql("SELECT regexp_matches(secret, pattern) FROM input"), "the run failed: Invalid Input"),
    (sql("SELECT json_extract(doc, '$.a') FROM input"), "the run failed: Invalid Input Error"),
    (sql("SELECT CAST(printf('%s!', secret) AS INTEGER) FROM input"), "step 0 (sql): Conv"),
    (sql("SELECT CAST(doc AS JSON) FROM input"), "step 0 (sql): Conversion Error: "),
    (sql("SELECT make_date(2020, length(secret) * 10, 1) FROM input"), "the run failed: Conv"),
    (
        [{"op": "limit", "count": 5}, {"op": "cast", "column": "secret", "type": "timestamp"}],
        "step 1 (cast): Conversion Error: a value of column 'secret' could not be converted",
    ),
]


def shown(client, viewer, admin, pipeline_id, run, events_after):
    """Everything a run's failure shows: the run as a viewer reads it and its events."""
    again = client.get(f"{PIPELINES}{pipeline_id}/runs/{run['id']}", headers=viewer)
    assert again.status_code == 200
    events = client.get("/api/v1/events", query_string={"after": events_after}, headers=admin)
    assert events.status_code == 200
    return json.dumps([again.get_json(), events.get_json()])


def test_a_failing_run_shows_no_value_of_a_private_source(app, client, actors, receiver):  # noqa: F811
    editor, viewer = actors["editor"].headers, actors["viewer"].headers
    admin = actors["admin"].headers
    secret = source(client, editor, TEXT, name="secrets")
    response = client.patch(
        f"/api/v1/datasets/{secret['id']}", json={"visibility": "private"}, headers=editor
    )
    assert response.status_code == 200, response.get_json()
    assert client.get(f"/api/v1/datasets/{secret['id']}", headers=viewer).status_code == 404
    pipeline = create_pipeline(client, editor, secret["id"], visibility="internal")
    url = f"{PIPELINES}{pipeline['id']}"
    after = client.get("/api/v1/events", headers=admin).get_json()["next_after"]
    for steps, start in CASES:
        response = client.patch(url, json={"steps": steps}, headers=editor)
        assert response.status_code == 200, response.get_json()
        run = run_now(app, client, editor, pipeline["id"])
        assert run["status"] == "failed", (steps, run)
        assert SECRET not in run["error"] and "7f3a9" not in run["error"], (steps, run["error"])
        assert run["error"].startswith(start) and run["error"].endswith(NOT_SHOWN), run["error"]
        assert "7f3a9" not in shown(client, viewer, admin, pipeline["id"], run, after), steps
    lineage = json.dumps(receiver[1]())
    assert lineage.count('"FAIL"') == len(CASES)
    assert "7f3a9" not in lineage


def test_a_csv_row_read_late_shows_no_value(app, client, actors):
    """A CSV value unlike the rows DuckDB sampled for the column's type fails as the file
    is read, with no step at all: the error names the line and the column."""
    editor = actors["editor"].headers
    text = "n,name\r\n" + "1,a\r\n" * 25000 + f"{SECRET},b\r\n"
    pipeline = create_pipeline(client, editor, source(client, editor, text)["id"])
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == (
        "failed",
        "the run failed: Conversion Error: CSV Error on Line: 25002: a value of column 'n' "
        f"could not be converted to BIGINT {NOT_SHOWN}",
    )


def test_errors_about_the_query_itself_stay_as_duckdb_says_them(app, client, actors):
    editor = actors["editor"].headers
    pipeline = create_pipeline(
        client, editor, source(client, editor)["id"], sql("SELECT nope FROM input")
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert run["error"].startswith(
        'step 0 (sql): Binder Error: Referenced column "nope" not found'
    ), run["error"]
