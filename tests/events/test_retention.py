"""Retention (docs/guides/events.rst, "Retention"): the sweep removes events older than
``EVENTS_RETENTION_DAYS``, oldest first by id, in batches of their own transactions."""

from datetime import timedelta

from datahub.app.extensions import db
from datahub.events.models import Event
from datahub.events.retention import prune_events
from datahub.platform.database import utcnow
from tests.events.test_access import sources
from tests.events.test_outbox import events
from tests.resources import actors, create_dataset  # noqa: F401  (actors: a fixture)


def created(client, headers, *names):
    return [f"/api/v1/datasets/{create_dataset(client, headers, name)['id']}" for name in names]


def age(app, paths, days):
    """Give the events about ``paths`` a time ``days`` days ago."""
    with app.app_context():
        for event in db.session.scalars(db.select(Event).where(Event.source.in_(paths))):
            event.time = utcnow() - timedelta(days=days)
        db.session.commit()


def test_old_events_are_removed_by_the_sweep(app, client, actors):
    from datahub.pipelines.worker import Worker

    editor = actors["editor"].headers
    old, new = created(client, editor, "old", "new")
    age(app, [old], 365 * 20)
    app.config.update(EVENTS_RETENTION_DAYS=30, VERSIONS_PRUNE_SECONDS=0)
    Worker(app).run_once()
    assert sources(events(client, editor)) == [new]


def test_the_sweep_goes_on_batch_after_batch(app, client, actors):
    editor = actors["editor"].headers
    paths = created(client, editor, *"abcdefg")
    age(app, paths[:5], 31)
    with app.app_context():
        assert prune_events(30, batch=2) == 5
        assert prune_events(30, batch=2) == 0
    assert sources(events(client, editor)) == paths[5:]


def test_an_event_not_old_enough_holds_back_the_removal_of_later_ones(app, client, actors):
    editor = actors["editor"].headers
    first, kept, later = created(client, editor, "first", "kept", "later")
    age(app, [first, later], 31)  # "later": as if its host's clock had been a month behind
    with app.app_context():
        assert prune_events(30) == 1
    assert sources(events(client, editor)) == [kept, later]  # kept, never removed early
    age(app, [kept], 31)
    with app.app_context():
        assert prune_events(30) == 2
    assert sources(events(client, editor)) == []
