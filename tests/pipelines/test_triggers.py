"""Triggers (docs/guides/events.rst, "Triggers"): a new version of an input queues a run,
versions arriving while one is active queue exactly one more, a pipeline's own output does
not trigger it; a schedule runs each due time once, whatever the number of workers, and a
time missed while no worker ran once. Runs say what started them."""

import threading
from collections import namedtuple
from datetime import datetime, timedelta

import pytest

from datahub.app.extensions import db
from datahub.events.webhooks import dispatch
from datahub.pipelines import triggers, worker
from datahub.pipelines.models import Pipeline, Run
from datahub.platform.database import utcnow
from tests.pipelines.helpers import PIPELINES, create_pipeline, get_run, source, start
from tests.resources import actors, upload  # noqa: F401  (actors: a fixture)

NEW_VERSION = {"on": "new_version"}
Queued = namedtuple("Queued", "id pipeline_id triggered_by")


def runs(client, headers, pipeline_id):
    response = client.get(f"{PIPELINES}{pipeline_id}/runs", headers=headers)
    assert response.status_code == 200
    return response.get_json()["items"]  # newest first


def sweep(app):
    """The runs a worker's sweep queued: (id, pipeline_id, triggered_by) each."""
    with app.app_context():
        queued = [Queued(r.id, r.pipeline_id, r.triggered_by) for r in triggers.sweep()]
        db.session.remove()
    return queued


def test_a_new_version_of_the_source_queues_a_run(app, client, actors):
    editor = actors["editor"].headers
    people = source(client, editor)
    pipeline = create_pipeline(client, editor, people["id"], trigger=NEW_VERSION)
    assert pipeline["trigger"] == NEW_VERSION and pipeline["next_run_at"] is None
    assert sweep(app) == []  # nothing new yet
    assert (
        upload(client, editor, people["id"], b"name,city,age\r\nEve,Oslo,3\r\n").status_code == 200
    )
    [queued] = sweep(app)
    assert worker.run_once(app) == queued.id
    [run] = runs(client, editor, pipeline["id"])
    assert (run["status"], run["triggered_by"]) == ("succeeded", "new_version")
    assert run["inputs"] == [{"dataset_id": people["id"], "version": 2}]
    # Its output's new version does not trigger it again.
    assert sweep(app) == []


def test_versions_arriving_while_a_run_is_active_queue_exactly_one_more(app, client, actors):
    editor = actors["editor"].headers
    people = source(client, editor)
    pipeline = create_pipeline(client, editor, people["id"], trigger=NEW_VERSION)
    first = start(client, editor, pipeline["id"])
    for n in range(3):
        assert upload(client, editor, people["id"], f"n\r\n{n}\r\n".encode()).status_code == 200
    assert sweep(app) == []  # one is queued already: the next waits, no 409
    assert worker.run_once(app) == first["id"]
    [follow_up] = sweep(app)
    assert sweep(app) == []
    assert worker.run_once(app) == follow_up.id
    newest, oldest = runs(client, editor, pipeline["id"])
    assert (oldest["triggered_by"], newest["triggered_by"]) == ("user", "new_version")
    assert newest["inputs"] == [{"dataset_id": people["id"], "version": 4}]


def test_a_joined_dataset_triggers_too_and_others_do_not(app, client, actors):
    editor = actors["editor"].headers
    people = source(client, editor)
    cities = source(client, editor, "city,country\r\nOslo,NO\r\n", name="cities")
    other = source(client, editor, "x\r\n1\r\n", name="other")
    join = {"op": "join", "dataset_id": cities["id"], "on": ["city"], "how": "left"}
    pipeline = create_pipeline(client, editor, people["id"], [join], trigger=NEW_VERSION)
    upload(client, editor, other["id"], b"x\r\n2\r\n")
    assert sweep(app) == []
    upload(client, editor, cities["id"], b"city,country\r\nBergen,NO\r\n")
    [queued] = sweep(app)
    assert queued.pipeline_id == pipeline["id"] and queued.triggered_by == "new_version"


def test_a_schedule_runs_each_due_time_once_across_workers(app, client, actors):
    editor = actors["editor"].headers
    people = source(client, editor)
    every_hour = {"cron": "0 * * * *", "timezone": "Europe/Oslo"}
    pipeline = create_pipeline(client, editor, people["id"], trigger=every_hour)
    assert pipeline["trigger"] == every_hour
    due = datetime.fromisoformat(pipeline["next_run_at"])
    assert (due.minute, due.second) == (0, 0) and utcnow() < due <= utcnow() + timedelta(hours=1)
    assert sweep(app) == []
    with app.app_context():  # as if the service had been down for three due times
        db.session.get(Pipeline, pipeline["id"]).next_run_at = utcnow() - timedelta(hours=3)
        db.session.commit()
    # Eight workers sweep at once: one takes the due time, one run is queued.
    barrier, queued = threading.Barrier(8), []

    def one_worker():
        barrier.wait(10)
        queued.extend(sweep(app))

    threads = [threading.Thread(target=one_worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(queued) == 1 and queued[0].triggered_by == "schedule"
    after = client.get(f"{PIPELINES}{pipeline['id']}", headers=editor).get_json()
    assert datetime.fromisoformat(after["next_run_at"]) > utcnow()  # the next, from now
    assert worker.run_once(app) == queued[0].id
    assert sweep(app) == []  # the three missed times ran once
    run = get_run(client, editor, pipeline["id"], queued[0].id)
    assert (run["status"], run["triggered_by"]) == ("succeeded", "schedule")


def test_the_dispatcher_sweeps(app, client, actors):
    editor = actors["editor"].headers
    people = source(client, editor)
    pipeline = create_pipeline(client, editor, people["id"], trigger=NEW_VERSION)
    upload(client, editor, people["id"], b"n\r\n1\r\n")
    dispatch.run_once(app, also=[triggers.sweep])  # as a worker's dispatcher does
    with app.app_context():
        [run] = db.session.scalars(db.select(Run).where(Run.pipeline_id == pipeline["id"])).all()
        assert run.triggered_by == "new_version"
        db.session.remove()


def test_changing_or_removing_the_trigger(app, client, actors):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    assert pipeline["trigger"] is None and pipeline["next_run_at"] is None
    url = f"{PIPELINES}{pipeline['id']}"
    daily = client.patch(url, json={"trigger": {"cron": "30 2 * * *"}}, headers=editor).get_json()
    assert daily["trigger"] == {"cron": "30 2 * * *", "timezone": "UTC"}
    due = datetime.fromisoformat(daily["next_run_at"])
    assert (due.hour, due.minute, due.tzinfo.utcoffset(due)) == (2, 30, timedelta(0))
    removed = client.patch(url, json={"trigger": None}, headers=editor).get_json()
    assert (removed["trigger"], removed["next_run_at"]) == (None, None)


@pytest.mark.parametrize(
    "trigger, message",
    [
        ({"on": "schedule"}, 'trigger on: must be "new_version"'),
        ({}, 'trigger must be {"on": "new_version"} or {"cron": ..., "timezone": ...}'),
        (
            {"on": "new_version", "cron": "* * * * *"},
            'trigger must be {"on": "new_version"} or {"cron": ..., "timezone": ...}',
        ),
        (
            {"cron": "61 * * * *"},
            "trigger cron: not a cron expression (five fields: minute hour day month weekday)",
        ),
        *(
            (
                {"cron": cron},
                "trigger cron: not a cron expression (five fields: minute hour day month weekday)",
            )
            for cron in ("32 11 28 11 * 39 2026", "* * * * * *", "@daily", "R * * * *")
        ),
        (
            {"cron": "0 0 31 2 *"},
            "trigger cron: never due (no date matches it, such as February 31)",
        ),
        (
            {"cron": "0 0 30,31 2 *", "timezone": "Europe/Oslo"},
            "trigger cron: never due (no date matches it, such as February 31)",
        ),
        (
            {"cron": 5},
            "trigger cron: not a cron expression (five fields: minute hour day month weekday)",
        ),
        (
            {"cron": "0 3 * * *", "timezone": "Mars/Olympus"},
            "trigger timezone: not a time zone name (such as Europe/Oslo or UTC)",
        ),
        (
            {"cron": "0 3 * * *", "timezone": "../../etc/passwd"},
            "trigger timezone: not a time zone name (such as Europe/Oslo or UTC)",
        ),
    ],
)
def test_a_bad_trigger_is_a_422(client, actors, trigger, message):
    editor = actors["editor"].headers
    people = source(client, editor)
    body = {
        "name": "p",
        "source_dataset_id": people["id"],
        "output_dataset_name": "o",
        "trigger": trigger,
    }
    response = client.post(PIPELINES, json=body, headers=editor)
    assert response.status_code == 422, response.get_json()
    assert response.get_json()["detail"] == [
        {"loc": ["body", "trigger"], "msg": message, "type": "value_error.trigger"}
    ]
