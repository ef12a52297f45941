"""Write, audit, publish downstream: a run whose output fails its checks fails and keeps
the output quarantined; a quarantined version triggers nothing and feeds no pipeline
until a manager publishes it."""

from datahub.datasets.checks import auditor
from tests.datasets.checks.test_checks import BAD, GOOD, put, results, set_checks, version
from tests.pipelines.helpers import PEOPLE, create_pipeline, run_now, source
from tests.pipelines.test_triggers import NEW_VERSION, runs, sweep
from tests.resources import actors, create_dataset, upload  # noqa: F401

URL = "/api/v1/datasets/"
ROWS_AT_LEAST_10 = [{"name": "enough", "type": "row_count", "min": 10}]


def output_dataset(client, headers, run):
    return client.get(f"{URL}{run['output_dataset_id']}", headers=headers).get_json()


def test_a_run_whose_output_fails_its_checks_fails(app, client, actors):  # noqa: F811
    editor = actors["editor"]
    people = source(client, editor.headers)
    pipeline = create_pipeline(client, editor.headers, people["id"], output="checked output")
    first = run_now(app, client, editor.headers, pipeline["id"])
    assert first["status"] == "succeeded"
    output = output_dataset(client, editor.headers, first)
    assert set_checks(client, editor.headers, output, ROWS_AT_LEAST_10).status_code == 200
    more = PEOPLE + "Eve,Oslo,3\r\n"  # a new input: the run is not a reuse of the first
    assert upload(client, editor.headers, people["id"], more.encode()).status_code == 200
    second = run_now(app, client, editor.headers, pipeline["id"])
    assert (second["status"], second["error"]) == ("failed", "Output failed checks: enough")
    assert second["output"] == {"dataset_id": output["id"], "version": 2}  # to inspect
    assert version(client, editor.headers, output, 2)["state"] == "quarantined"
    [result] = results(client, editor.headers, output, 2)["results"]
    assert result["message"] == "6 rows; at least 10 expected"
    current = client.get(f"{URL}{output['id']}", headers=editor.headers).get_json()
    assert current["current_version"] == 1
    assert (
        set_checks(
            client, editor.headers, output, [{"name": "some", "type": "row_count", "min": 1}]
        ).status_code
        == 200
    )
    assert upload(client, editor.headers, people["id"], PEOPLE.encode()).status_code == 200
    third = run_now(app, client, editor.headers, pipeline["id"])
    assert (third["status"], third["output"]["version"]) == ("succeeded", 3)
    assert version(client, editor.headers, output, 3)["state"] == "published"


def test_a_quarantined_version_triggers_nothing_until_published(app, client, actors):  # noqa: F811
    editor = actors["editor"]
    sales = create_dataset(client, editor.headers, "Sales")
    set_checks(
        client, editor.headers, sales, [{"name": "amounts", "type": "not_null", "column": "amount"}]
    )
    put(client, editor, sales, GOOD)
    auditor.audit_pending(app)
    pipeline = create_pipeline(
        client, editor.headers, sales["id"], output="sales copy", trigger=NEW_VERSION
    )
    assert sweep(app) == []
    put(client, editor, sales, BAD)
    assert sweep(app) == []  # pending: nothing yet
    auditor.audit_pending(app)
    assert sweep(app) == []  # quarantined: nothing
    published = client.post(f"{URL}{sales['id']}/versions/2/publish", headers=editor.headers)
    assert published.status_code == 200
    [queued] = sweep(app)
    assert queued.pipeline_id == pipeline["id"]
    assert runs(client, editor.headers, pipeline["id"])[0]["status"] == "queued"
