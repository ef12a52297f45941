"""No one user's run can hurt the service: a run's query executes in a process of its own,
killed past its memory, at its timeout or on cancel (its memory back at once), its output
bounded; runs are taken fairly by owner and re-authorised when they start."""

import os
import time

import pytest
import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.pipelines import worker
from datahub.pipelines.models import Run
from datahub.platform import isolation
from datahub.platform.isolation.child import NICENESS
from tests.pipelines.helpers import (
    PIPELINES,
    SLOW,
    background_worker,
    create_pipeline,
    get_run,
    output_rows,
    run_now,
    slow_source,
    source,
    start,
    wait_for,
)

BOMB = "SELECT len(generate_series(1, 60000000)) AS n FROM input"


def resident_mib():
    return isolation.resident_bytes(os.getpid()) / 2**20


def test_a_memory_bomb_fails_as_out_of_memory_and_leaves_this_process_alone(app, client, actors):
    """DuckDB's memory_limit does not bound a 60-million-item list (about 3.8 GB): the
    run's process is killed at the limit plus the margin, far below that."""
    app.config.update(PIPELINE_MEMORY_LIMIT="64MB")
    editor = actors["editor"].headers
    pipeline = create_pipeline(
        client, editor, source(client, editor)["id"], [{"op": "sql", "query": BOMB}]
    )
    before = resident_mib()
    began = time.monotonic()
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == (
        "failed",
        "Out of memory (PIPELINE_MEMORY_LIMIT is 64MB)",
    )
    assert run["output_dataset_id"] is None
    assert time.monotonic() - began < 20
    assert resident_mib() - before < 50  # nothing of it ran here
    assert isolation.running_jobs() == set()
    light = create_pipeline(
        client, editor, source(client, editor, name="light")["id"], name="light", output="light out"
    )
    assert run_now(app, client, editor, light["id"])["status"] == "succeeded"


def test_a_cancelled_run_s_process_is_gone_within_seconds(app, client, actors):
    app.config.update(PIPELINE_POLL_SECONDS=0.05)
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, slow_source(client, editor)["id"], SLOW)
    with background_worker(app):
        run = start(client, editor, pipeline["id"])
        wait_for(client, editor, pipeline["id"], run["id"], {"running"}, 30)
        deadline = time.monotonic() + 10
        while not isolation.running_jobs() and time.monotonic() < deadline:
            time.sleep(0.02)
        (pid,) = isolation.running_jobs()
        while niceness(pid) != NICENESS and time.monotonic() < deadline:  # once it has
            time.sleep(0.02)  # read its job: below the web workers
        assert niceness(pid) == NICENESS
        assert (
            client.post(
                f"{PIPELINES}{pipeline['id']}/runs/{run['id']}/cancel", headers=editor
            ).status_code
            == 200
        )
        cancelled = time.monotonic()
        while pid_alive(pid) and time.monotonic() - cancelled < 5:
            time.sleep(0.02)
        assert not pid_alive(pid)
        assert time.monotonic() - cancelled < 2
    assert get_run(client, editor, pipeline["id"], run["id"])["status"] == "cancelled"


def niceness(pid):
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[16])


def pid_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_an_output_over_its_bound_fails_and_the_previous_output_stays(app, client, actors):
    editor = actors["editor"].headers
    text = "n\n" + "".join(f"{i}\n" for i in range(300))
    pipeline = create_pipeline(
        client, editor, source(client, editor, text)["id"], [{"op": "limit", "count": 1}]
    )
    first = run_now(app, client, editor, pipeline["id"])
    assert first["status"] == "succeeded"
    app.config["PIPELINE_MAX_OUTPUT_BYTES"] = 10_000
    assert (
        client.patch(
            f"{PIPELINES}{pipeline['id']}",
            headers=editor,
            json={"steps": [{"op": "sql", "query": "SELECT a.n, b.n AS m FROM input a, input b"}]},
        ).status_code
        == 200
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == (
        "failed",
        "Output too large (PIPELINE_MAX_OUTPUT_BYTES is 10000 bytes)",
    )
    assert output_rows(client, editor, first) == [["n"], ["0"]]


def test_the_output_bound_defaults_to_max_content_length(app, client, actors):
    app.config["MAX_CONTENT_LENGTH"] = 5_000
    editor = actors["editor"].headers
    text = "n\n" + "".join(f"{i}\n" for i in range(300))
    pipeline = create_pipeline(
        client,
        editor,
        source(client, editor, text)["id"],
        [{"op": "sql", "query": "SELECT a.n, b.n AS m FROM input a, input b"}],
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert run["error"] == "Output too large (PIPELINE_MAX_OUTPUT_BYTES is 5000 bytes)"


@pytest.mark.parametrize(
    "change",
    [
        {"is_active": False},
        {"roles": ["viewer"]},
    ],
)
def test_a_run_is_reauthorised_when_it_starts(app, client, actors, change):
    editor, admin = actors["editor"], actors["admin"].headers
    pipeline = create_pipeline(client, editor.headers, source(client, editor.headers)["id"])
    run = start(client, editor.headers, pipeline["id"])
    response = client.patch(f"/api/v1/users/{editor.id}", json=change, headers=admin)
    assert response.status_code == 200, response.get_json()
    assert worker.run_once(app) == run["id"]
    run = get_run(client, admin, pipeline["id"], run["id"])
    assert (run["status"], run["error"], run["output_dataset_id"]) == (
        "failed",
        "Owner may no longer run this pipeline",
        None,
    )
    names = [
        d["name"]
        for d in client.get("/api/v1/datasets/?limit=100", headers=admin).get_json()["items"]
    ]
    assert "pipe output" not in names


def claim_order(app):
    order = []
    while (run_id := worker.run_once(app)) is not None:
        order.append(run_id)
    return order


def test_runs_are_taken_round_robin_by_owner(app, client, actors):
    """One editor's queue of three delays another's run by at most one run."""
    busy, other = actors["editor"].headers, actors["other_editor"].headers
    data = source(client, busy)["id"]
    queued = [
        start(
            client, busy, create_pipeline(client, busy, data, name=f"p{i}", output=f"o{i}")["id"]
        )["id"]
        for i in range(3)
    ]
    theirs = start(
        client,
        other,
        create_pipeline(
            client, other, source(client, other, name="theirs")["id"], name="q", output="q out"
        )["id"],
    )["id"]
    assert claim_order(app) == [queued[0], theirs, queued[1], queued[2]]


def test_an_owner_with_a_run_running_waits_behind_one_without(app, client, actors):
    busy, other = actors["editor"].headers, actors["other_editor"].headers
    data = source(client, busy)["id"]
    first = start(
        client, busy, create_pipeline(client, busy, data, name="a", output="a out")["id"]
    )["id"]
    second = start(
        client, busy, create_pipeline(client, busy, data, name="b", output="b out")["id"]
    )["id"]
    theirs = start(
        client,
        other,
        create_pipeline(
            client, other, source(client, other, name="theirs")["id"], name="q", output="q out"
        )["id"],
    )["id"]
    with app.app_context():
        assert worker.claim("slot-1") == first  # the oldest run: a tie otherwise
        assert worker.fair_candidates() == [theirs, second]
        db.session.execute(sa.update(Run).where(Run.id == first).values(status="queued"))
        db.session.commit()
        db.session.remove()
