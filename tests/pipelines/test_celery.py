"""Sending runs to the broker in-process, against the real Redis (DB 5, emptied first):
one task per created run, a dead broker still answers 201, and the sweep's re-sends back
off. Workers as processes: tests/e2e/test_celery_worker.py."""

import logging
from datetime import timedelta

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.pipelines.models import Run
from datahub.pipelines.tasks import QUEUE, redispatch
from datahub.platform.database import utcnow
from tests.pipelines.helpers import (  # noqa: F401  (broker: a fixture)
    BROKER,
    broker,
    create_pipeline,
    get_run,
    source,
    start,
)
from tests.workers import free_port


@pytest.fixture
def config_overrides():
    return {
        "CELERY_BROKER_URL": BROKER,
        "PIPELINE_EMBEDDED_WORKER": True,
        "PIPELINE_REDISPATCH_SECONDS": 30,
    }


def test_a_broker_turns_the_embedded_worker_off(app):
    assert app.config["PIPELINE_EMBEDDED_WORKER"] is False
    assert "celery" in app.extensions


def test_each_created_run_sends_one_task(client, actors, broker):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    start(client, editor, pipeline["id"])
    assert (
        client.post(f"/api/v1/pipelines/{pipeline['id']}/runs", headers=editor).status_code == 409
    )
    assert broker.llen(QUEUE) == 1


@pytest.mark.parametrize(
    "config_overrides", [{"CELERY_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0"}]
)
def test_a_dead_broker_still_answers_201_and_leaves_the_run_queued(client, actors, caplog):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    with caplog.at_level(logging.WARNING, logger="datahub.pipelines.tasks"):
        run = start(client, editor, pipeline["id"])
    assert run["status"] == "queued"
    assert get_run(client, editor, pipeline["id"], run["id"])["status"] == "queued"
    assert f"run {run['id']}: could not send it to the broker" in caplog.text


def test_redispatch_resends_only_overdue_runs_once_with_backoff(app, client, actors, broker):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    run_id = start(client, editor, pipeline["id"])["id"]
    broker.delete(QUEUE)

    def age(created, sent=None):
        now = utcnow()
        db.session.execute(
            sa.update(Run)
            .where(Run.id == run_id)
            .values(
                created_at=now - timedelta(seconds=created),
                heartbeat_at=None if sent is None else now - timedelta(seconds=sent),
            )
        )
        db.session.commit()

    with app.app_context():
        assert redispatch(app) == 0  # just created: its task is presumably on its way
        age(100)
        assert redispatch(app) == 1
        assert redispatch(app) == 0  # sent just now
        age(100, sent=40)  # last sent 60 s after creation: the next send waits 60 s
        assert redispatch(app) == 0
        age(130, sent=70)
        assert redispatch(app) == 1
        age(10_000, sent=301)  # never more than 10 × 30 s apart
        assert redispatch(app) == 1
        db.session.execute(sa.update(Run).where(Run.id == run_id).values(status="running"))
        db.session.commit()
        age(100)
        assert redispatch(app) == 0  # only queued runs
    assert broker.llen(QUEUE) == 3


@pytest.mark.parametrize(
    "config_overrides", [{"CELERY_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0"}]
)
def test_a_resend_the_broker_refuses_is_due_again_at_the_next_sweep(app, client, actors, caplog):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    run_id = start(client, editor, pipeline["id"])["id"]
    with app.app_context():
        sent_at = utcnow() - timedelta(seconds=100)
        db.session.execute(
            sa.update(Run).where(Run.id == run_id).values(created_at=sent_at, heartbeat_at=sent_at)
        )
        db.session.commit()
        with caplog.at_level(logging.WARNING, logger="datahub.pipelines.tasks"):
            assert redispatch(app) == 0
        assert f"run {run_id}: could not re-send it" in caplog.text
        # Left as it was (not marked sent): the next sweep tries again, without a backoff.
        assert db.session.get(Run, run_id).heartbeat_at.replace(tzinfo=None) == sent_at.replace(
            tzinfo=None
        )
