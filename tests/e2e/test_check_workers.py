"""Write, audit, publish with ``flask --app datahub worker`` as a real process: a worker
killed with SIGKILL while it runs a version's checks leaves the version pending, and
another worker checks it once the first one's hold has run out: never published
unchecked."""

import datetime
import signal
import time

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.datasets.checks.models import VersionAudit
from tests.e2e.test_pipeline_workers import big_source, config_overrides, start_worker  # noqa: F401
from tests.resources import actors, create_dataset, upload  # noqa: F401

pytestmark = pytest.mark.e2e

URL = "/api/v1/datasets/"
# Minutes of DuckDB's time on 200k rows (a self-join no hash join can use).
HEAVY = {
    "name": "pairs",
    "type": "sql",
    "query": "SELECT a.id FROM input a, input b WHERE (a.score * b.score) % 1000003 = 7",
}


def audit_row(app, dataset_id):
    with app.app_context():
        row = db.session.get(VersionAudit, (dataset_id, 1))
        found = (row.claimed_until, row.attempts) if row is not None else None
        db.session.remove()
        return found


def state(client, headers, dataset_id):
    return client.get(f"{URL}{dataset_id}/versions/1", headers=headers).get_json()["state"]


def test_a_worker_killed_mid_check_leaves_the_version_pending(
    app,
    client,
    actors,  # noqa: F811
    big_source,  # noqa: F811
    start_worker,  # noqa: F811
):
    editor = actors["editor"].headers
    content = client.get(f"{URL}{big_source['id']}/file", headers=editor).data
    dataset = create_dataset(client, editor, "checked")
    assert (
        client.put(
            f"{URL}{dataset['id']}/checks", json={"checks": [HEAVY]}, headers=editor
        ).status_code
        == 200
    )
    first = start_worker()
    assert upload(client, editor, dataset["id"], content).status_code == 200
    deadline = time.monotonic() + 30
    while (audit_row(app, dataset["id"]) or (None,))[0] is None:  # until the worker holds it
        assert time.monotonic() < deadline
        time.sleep(0.1)
    time.sleep(1.0)  # DuckDB at work
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    assert state(client, editor, dataset["id"]) == "pending"
    assert client.get(f"{URL}{dataset['id']}", headers=editor).get_json()["current_version"] is None

    # Its hold runs out (moved into the past here, as the time passing would), and another
    # worker checks it: the heavy check past CHECKS_TIMEOUT_SECONDS is an error, so the
    # version is quarantined, not published.
    with app.app_context():
        past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=1)
        db.session.execute(sa.update(VersionAudit).values(claimed_until=past))
        db.session.commit()
        db.session.remove()
    start_worker(CHECKS_TIMEOUT_SECONDS=2)
    deadline = time.monotonic() + 60
    while state(client, editor, dataset["id"]) == "pending":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert state(client, editor, dataset["id"]) == "quarantined", client.get(
        f"{URL}{dataset['id']}/versions/1/checks", headers=editor
    ).get_json()
    [result] = client.get(f"{URL}{dataset['id']}/versions/1/checks", headers=editor).get_json()[
        "results"
    ]
    assert (result["status"], result["message"]) == (
        "error",
        "Checking took longer than CHECKS_TIMEOUT_SECONDS",
    )
    assert audit_row(app, dataset["id"])[1] == 2  # taken twice
