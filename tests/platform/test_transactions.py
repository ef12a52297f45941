"""How a request's transaction ends (``END_READS_WITH_COMMIT``, datahub.platform.database):
on PostgreSQL one that only read ends with COMMIT, so psycopg keeps the statements it
prepared; one that wrote and was not committed is still rolled back. SQLite: unchanged."""

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.models import Dataset
from tests.resources import actors, create_dataset  # noqa: F401  (actors: a fixture)

READS = 8  # more than psycopg's prepare_threshold (5) on one connection


def ends(app):
    """Counts of the engine's COMMITs and ROLLBACKs, as a dict updated in place."""
    counts = {"commit": 0, "rollback": 0}
    with app.app_context():
        engine = db.engine
    for name in counts:
        sa.event.listen(
            engine, name, lambda _conn, name=name: counts.update({name: counts[name] + 1})
        )
    return counts


def prepared_statements(app):
    with app.app_context():
        with db.engine.connect() as connection:  # the pool's one connection (one thread)
            return connection.exec_driver_sql(
                "SELECT count(*) FROM pg_prepared_statements"
            ).scalar()


def postgres(app):
    return app.config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql")


def read_datasets(app, client, actors):
    """How READS requests that only read ended: the engine's COMMITs and ROLLBACKs."""
    editor = actors["editor"].headers
    create_dataset(client, editor, "read me")
    counts = ends(app)
    for _ in range(READS):
        assert client.get("/api/v1/datasets/", headers=editor).status_code == 200
    return counts


def test_requests_that_only_read_end_with_commit_and_keep_prepared_statements(app, client, actors):
    counts = read_datasets(app, client, actors)
    if postgres(app):
        assert counts == {"commit": READS, "rollback": 0}
        assert prepared_statements(app) > 0
    else:  # SQLite: as before, the session's close rolls back
        assert counts == {"commit": 0, "rollback": READS}


@pytest.mark.parametrize("config_overrides", [{"END_READS_WITH_COMMIT": False}])
def test_off_every_request_ends_with_rollback(app, client, actors):
    assert read_datasets(app, client, actors) == {"commit": 0, "rollback": READS}
    if postgres(app):
        assert prepared_statements(app) == 0


def test_a_transaction_that_wrote_is_rolled_back_still(app, client, actors):
    """Written and flushed (or written with a statement of its own) but not committed:
    what the context leaves is rolled back, whatever came before it in the transaction."""
    dataset = create_dataset(client, actors["editor"].headers, "kept")
    with app.app_context():
        db.session.get(Dataset, dataset["id"]).description = "flushed"
        db.session.flush()
        db.session.scalars(sa.select(Dataset.id)).all()  # reads after the write
    with app.app_context():
        db.session.execute(
            sa.update(Dataset).where(Dataset.id == dataset["id"]).values(description="updated")
        )
    with app.app_context():
        db.session.scalars(sa.select(Dataset.id)).all()
        db.session.get(Dataset, dataset["id"]).description = "pending"  # not flushed
    with app.app_context():
        assert db.session.get(Dataset, dataset["id"]).description == dataset["description"]


def test_what_a_context_read_stays_readable_after_it(app, client, actors):
    """Ending with COMMIT expires nothing, as the session's close did not: a row loaded in
    a context (as the commands and the event streams keep them) is read after it."""
    dataset = create_dataset(client, actors["editor"].headers, "loaded")
    with app.app_context():
        row = db.session.get(Dataset, dataset["id"])
    assert (row.id, row.name) == (dataset["id"], "loaded")


def test_a_request_refused_after_a_write_commits_nothing(app, client, actors, monkeypatch):
    """A 4xx answered after a statement wrote (flushed, not committed): the request's
    transaction is rolled back, not ended with COMMIT."""
    from datahub.datasets import services
    from datahub.platform.errors import NameTaken

    editor = actors["editor"].headers
    kept = create_dataset(client, editor, "kept", description="as it was")

    def write_then_refuse(owner, values):
        db.session.get(Dataset, kept["id"]).description = "written"
        db.session.flush()
        raise NameTaken()

    monkeypatch.setattr(services, "create_dataset", write_then_refuse)
    response = client.post("/api/v1/datasets/", json={"name": "new"}, headers=editor)
    assert (response.status_code, response.get_json()) == (409, {"detail": "Name already exists"})
    monkeypatch.undo()
    again = client.get(f"/api/v1/datasets/{kept['id']}", headers=editor).get_json()
    assert again["description"] == "as it was"


def test_events_recorded_without_their_change_are_never_written(app, client, actors):
    """Only reads, but an event waits for the next commit (datahub.events.outbox): the
    context ends with the rollback, and the event goes with it."""
    from datahub.datasets.event_data import describe_dataset
    from datahub.events import outbox

    admin = actors["admin"].headers
    dataset = create_dataset(client, actors["editor"].headers, "told of")
    before = client.get("/api/v1/events", headers=admin).get_json()["next_after"]
    with app.app_context():
        outbox.record(
            "datahub.dataset.updated", db.session.get(Dataset, dataset["id"]), describe_dataset
        )
    page = client.get("/api/v1/events", query_string={"after": before}, headers=admin)
    assert page.get_json()["items"] == []
