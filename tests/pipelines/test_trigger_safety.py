"""What one pipeline's trigger may not do to others (docs/guides/events.rst, "Triggers"):
a schedule that fails is turned off with a reason and the sweep goes on with the others;
a new version triggers no pipeline whose owner may no longer read it; pipelines that feed
each other are refused when made and, where the caller cannot see the loop, stopped after
one round."""

import logging
from datetime import timedelta

from datahub.app.extensions import db
from datahub.events.webhooks import dispatch
from datahub.pipelines import triggers
from datahub.pipelines.models import Pipeline
from datahub.platform.database import utcnow
from tests.access.conftest import grant
from tests.events.test_outbox import events, types
from tests.pipelines.helpers import PIPELINES, create_pipeline, source
from tests.pipelines.test_triggers import NEW_VERSION, runs, sweep
from tests.resources import actors, upload  # noqa: F401  (actors: a fixture)

NEVER_DUE = "trigger cron: never due (no date matches it, such as February 31)"
NOT_CRON = "trigger cron: not a cron expression (five fields: minute hour day month weekday)"


def store_trigger(app, pipeline_id, trigger):
    """As a row written before today's checks: the trigger as it is, due now."""
    with app.app_context():
        pipeline = db.session.get(Pipeline, pipeline_id)
        pipeline.trigger, pipeline.next_run_at = trigger, utcnow() - timedelta(minutes=1)
        db.session.commit()
        db.session.remove()


def get(client, headers, pipeline_id):
    response = client.get(f"{PIPELINES}{pipeline_id}", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_a_failing_schedule_stops_nothing_else_and_is_turned_off_once(app, client, actors, caplog):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    daily = {"cron": "0 3 * * *"}
    people = source(client, editor)["id"]
    broken = [
        create_pipeline(client, editor, people, trigger=daily, name=n, output=n)
        for n in ("seven fields", "feb 31", "not a dict")
    ]
    store_trigger(app, broken[0]["id"], {"cron": "32 11 28 11 * 39 2026", "timezone": "UTC"})
    store_trigger(app, broken[1]["id"], {"cron": "0 0 31 2 *", "timezone": "UTC"})
    their_data = source(client, other, name="theirs")["id"]
    theirs = create_pipeline(client, other, their_data, trigger=NEW_VERSION, name="theirs")
    scheduled = create_pipeline(client, other, their_data, trigger=daily, name="scheduled")
    store_trigger(app, scheduled["id"], {"cron": "0 3 * * *", "timezone": "UTC"})
    assert upload(client, other, their_data, b"n\r\n1\r\n").status_code == 200
    store_trigger(app, broken[2]["id"], 5)  # not even a dict
    caplog.set_level(logging.INFO, logger="datahub.pipelines.triggers")

    dispatch.run_once(app, also=[triggers.sweep])  # as a worker's dispatcher does
    for _ in range(5):
        assert sweep(app) == []
    assert [run["triggered_by"] for run in runs(client, other, theirs["id"])] == ["new_version"]
    assert [run["triggered_by"] for run in runs(client, other, scheduled["id"])] == ["schedule"]
    reasons = [get(client, editor, p["id"])["trigger_disabled_reason"] for p in broken]
    assert reasons == [NOT_CRON, NEVER_DUE, triggers.FAILED]
    assert [get(client, editor, p["id"])["next_run_at"] for p in broken] == [None] * 3
    assert [runs(client, editor, p["id"]) for p in broken] == [[], [], []]
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(problems) == 3, [r.getMessage() for r in problems]  # once each, not per sweep

    # Changing the trigger turns it on again.
    url = f"{PIPELINES}{broken[1]['id']}"
    changed = client.patch(url, json={"trigger": daily}, headers=editor).get_json()
    assert changed["trigger_disabled_reason"] is None and changed["next_run_at"] is not None
    # Nor does a malformed stored trigger stop anyone's uploads.
    assert upload(client, other, their_data, b"n\r\n2\r\n").status_code == 200


def test_a_schedule_that_is_never_due_is_a_422_on_patch_too(client, actors):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    url = f"{PIPELINES}{pipeline['id']}"
    for cron, message in (("0 0 31 2 *", NEVER_DUE), ("* * * * * *", NOT_CRON)):
        response = client.patch(url, json={"trigger": {"cron": cron}}, headers=editor)
        assert response.status_code == 422, response.get_json()
        assert response.get_json()["detail"] == [
            {"loc": ["body", "trigger"], "msg": message, "type": "value_error.trigger"}
        ]
    assert get(client, editor, pipeline["id"])["trigger"] is None


def _theirs_over(client, actors, dataset):
    other = actors["other_editor"].headers
    return create_pipeline(client, other, dataset["id"], trigger=NEW_VERSION, name="theirs")


def _no_run_and_no_event(app, client, actors, pipeline):
    other = actors["other_editor"].headers
    assert sweep(app) == []
    assert runs(client, other, pipeline["id"]) == []
    assert "datahub.run.queued" not in types(events(client, other))


def test_a_dataset_made_private_triggers_others_pipelines_no_more(app, client, actors):
    editor = actors["editor"].headers
    mine = source(client, editor, name="mine")
    theirs = _theirs_over(client, actors, mine)
    url = f"/api/v1/datasets/{mine['id']}"
    assert client.patch(url, json={"visibility": "private"}, headers=editor).status_code == 200
    assert upload(client, editor, mine["id"], b"n\r\n1\r\n").status_code == 200
    _no_run_and_no_event(app, client, actors, theirs)


def test_a_revoked_grant_triggers_no_more(app, client, actors):
    editor = actors["editor"].headers
    mine = source(client, editor, name="mine")
    url = f"/api/v1/datasets/{mine['id']}"
    assert client.patch(url, json={"visibility": "private"}, headers=editor).status_code == 200
    made = grant(
        client, editor, "datasets", mine["id"], f"user:{actors['other_editor'].id}", "read"
    )
    theirs = _theirs_over(client, actors, mine)
    assert client.delete(f"{url}/grants/{made['id']}", headers=editor).status_code == 204
    assert upload(client, editor, mine["id"], b"n\r\n1\r\n").status_code == 200
    _no_run_and_no_event(app, client, actors, theirs)


def test_access_withdrawn_before_the_sweep_queues_nothing(app, client, actors):
    editor = actors["editor"].headers
    mine = source(client, editor, name="mine")
    theirs = _theirs_over(client, actors, mine)
    assert upload(client, editor, mine["id"], b"n\r\n1\r\n").status_code == 200  # readable
    url = f"/api/v1/datasets/{mine['id']}"
    assert client.patch(url, json={"visibility": "private"}, headers=editor).status_code == 200
    _no_run_and_no_event(app, client, actors, theirs)
