"""Bounds on pipelines: pathological headers, lines and step lists fail fast with a clear
error or run in bounded time; a cancel or PIPELINE_TIMEOUT_SECONDS interrupts a long
query within seconds, and the worker goes on to the next run."""

import os
import threading
import time

import pytest

from datahub.pipelines import worker
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
from tests.resources import validation_error
from tests.small_disk import mounted_tmpfs, unmount

WIDE = 1_000_000
KEYS = 300  # the 100 steps stay under MAX_JSON_BODY_BYTES
# 100 renames of 300 columns each: each step's SQL names only its own columns (DuckDB's
# ``* RENAME``), so compiling stays linear in the steps, not width x steps.
RENAMES_WIDTH = 2000
RENAMES = [
    {
        "op": "rename",
        "mapping": {
            (
                f"c{RENAMES_WIDTH - 1 - j}" if step == 0 else f"c{RENAMES_WIDTH - 1 - j}_{step - 1}"
            ): f"c{RENAMES_WIDTH - 1 - j}_{step}"
            for j in range(KEYS)
        },
    }
    for step in range(100)
]


def wide_text(width):
    return ",".join(f"c{i}" for i in range(width)) + "\r\n" + "x," * (width - 1) + "y\r\n"


def run_in_thread(app, seconds):
    """Execute one queued run in a worker thread; fail if it takes over ``seconds``."""
    done = []
    thread = threading.Thread(
        target=lambda: done.append(worker.Worker(app).run_once()), daemon=True
    )
    began = time.monotonic()
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the run was still going after {seconds} s"
    return done[0], time.monotonic() - began


@pytest.mark.parametrize(
    "settings, error",
    [
        (
            {},
            "the source file cannot be read as a table: line 1 is longer than 4194304 bytes "
            "(PIPELINE_MAX_LINE_SIZE)",
        ),
        (
            {"PIPELINE_MAX_LINE_SIZE": 16 * 2**20},
            "the source file cannot be read as a table: the file has 1000000 columns; at most "
            "10000 are allowed (PIPELINE_MAX_COLUMNS)",
        ),
    ],
)
def test_million_column_header_fails_fast(app, client, actors, settings, error):
    app.config.update(settings)
    editor = actors["editor"].headers
    dataset = source(client, editor, wide_text(WIDE), name="wide")
    pipeline = create_pipeline(client, editor, dataset["id"], RENAMES)
    run = start(client, editor, pipeline["id"])
    assert run_in_thread(app, 60)[0] == run["id"]
    run = get_run(client, editor, pipeline["id"], run["id"])
    assert (run["status"], run["error"]) == ("failed", error)


def test_100_renames_of_a_wide_header(app, client, actors):
    editor = actors["editor"].headers
    dataset = source(client, editor, wide_text(RENAMES_WIDTH), name="wide")
    pipeline = create_pipeline(client, editor, dataset["id"], RENAMES)
    run = start(client, editor, pipeline["id"])
    assert run_in_thread(app, 120)[0] == run["id"]
    run = get_run(client, editor, pipeline["id"], run["id"])
    assert run["status"] == "succeeded", run
    header, row = output_rows(client, editor, run)
    last = RENAMES_WIDTH - 1
    assert header[:2] == ["c0", "c1"] and header[-1] == f"c{last}_99"
    assert header[RENAMES_WIDTH - KEYS] == f"c{RENAMES_WIDTH - KEYS}_99"
    assert header[RENAMES_WIDTH - KEYS - 1] == f"c{RENAMES_WIDTH - KEYS - 1}"
    assert (len(header), row[-1]) == (RENAMES_WIDTH, "y")


def test_too_many_steps_is_a_422_at_create_and_patch(app, client, actors):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    body = {
        "name": "p",
        "source_dataset_id": dataset["id"],
        "output_dataset_name": "o",
        "steps": [{"op": "limit", "count": 1}] * 101,
    }
    response = client.post(PIPELINES, json=body, headers=editor)
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            validation_error(
                ["body", "steps"],
                "ensure this value has at most 100 items",
                "value_error.list.max_items",
            )
        ]
    }

    app.config["PIPELINE_MAX_STEPS"] = 3
    response = client.post(PIPELINES, json={**body, "steps": body["steps"][:4]}, headers=editor)
    assert response.status_code == 422
    assert response.get_json()["detail"] == [
        validation_error(
            ["body", "steps"], "ensure this value has at most 3 items", "value_error.list.max_items"
        )
    ]
    pipeline = create_pipeline(client, editor, dataset["id"], body["steps"][:3])
    response = client.patch(
        f"{PIPELINES}{pipeline['id']}", json={"steps": body["steps"][:4]}, headers=editor
    )
    assert response.status_code == 422
    assert response.get_json()["detail"][0]["loc"] == ["body", "steps"]

    # A pipeline stored before the limit was lowered fails its run, clearly.
    app.config["PIPELINE_MAX_STEPS"] = 2
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == (
        "failed",
        "the pipeline has 3 steps; at most 2 are allowed (PIPELINE_MAX_STEPS)",
    )


@pytest.mark.parametrize(
    "settings, text, error",
    [
        (
            {"PIPELINE_MAX_COLUMNS": 3},
            "a,b,c,d\r\n1,2,3,4\r\n",
            "the source file cannot be read as a table: the file has 4 columns; at most 3 are "
            "allowed (PIPELINE_MAX_COLUMNS)",
        ),
        ({"PIPELINE_MAX_COLUMNS": 3}, "a,b\r\n1,2\r\n", None),
        (
            {"PIPELINE_MAX_LINE_SIZE": 20},
            "a,b\r\n" + "1," + "x" * 18 + "\r\n" + "1," + "x" * 40,
            "the source file: Invalid Input Error: CSV Error on Line",
        ),
        (
            {"PIPELINE_MAX_LINE_SIZE": 64},
            'a,b\r\n1,"' + "x" * 15 + "\r\n" + "x" * 15 + '"\r\n',
            None,
        ),
    ],
)
def test_source_bounds_fail_the_run_clearly(app, client, actors, settings, text, error):
    app.config.update(settings)
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor, text)["id"])
    run = run_now(app, client, editor, pipeline["id"])
    if error:
        assert run["status"] == "failed"
        assert run["error"].startswith(error), run["error"]
        assert "/" not in run["error"]  # no server path in the message
    else:
        assert run["status"] == "succeeded", run
        assert output_rows(client, editor, run)[1][0] == "1"


def test_a_step_whose_result_is_too_wide_fails(app, client, actors):
    app.config["PIPELINE_MAX_COLUMNS"] = 3
    editor = actors["editor"].headers
    steps = [{"op": "sql", "query": "SELECT *, 1 AS extra FROM input"}]
    pipeline = create_pipeline(client, editor, source(client, editor)["id"], steps)
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == (
        "failed",
        "step 0 (sql): the result has 4 columns; at most 3 are allowed (PIPELINE_MAX_COLUMNS)",
    )


def test_errors_quote_at_most_20_column_names(app, client, actors):
    editor = actors["editor"].headers
    text = ",".join(f"c{i}" for i in range(500)) + "\r\n"
    pipeline = create_pipeline(
        client,
        editor,
        source(client, editor, text)["id"],
        [{"op": "rename", "mapping": {"c1": "c0"}}],
    )
    run = run_now(app, client, editor, pipeline["id"])
    names = ", ".join(f"c{i}" for i in range(20)).replace("c1,", "c0,", 1)
    assert run["error"] == (
        f"step 0 (rename): the result has duplicate column names: {names}, ... (500 columns)"
    )


@pytest.mark.parametrize(
    "mapping, expected",
    [
        ({"a": "b", "b": "a", "c": "c"}, [["b", "a", "c"], ["1", "2", "3"]]),
        ({"a": "b", "b": "b"}, "step 0 (rename): the result has duplicate column names: b, b, c"),
        ({"a": "c"}, "step 0 (rename): the result has duplicate column names: c, b, c"),
        ({"a": "x", "b": "x"}, "step 0 (rename): the result has duplicate column names: x, x, c"),
        ({"zz": "zz"}, "step 0 (rename): column 'zz' does not exist; the columns are: a, b, c"),
    ],
)
def test_rename_is_simultaneous_and_refuses_clashes(app, client, actors, mapping, expected):
    editor = actors["editor"].headers
    dataset = source(client, editor, "a,b,c\r\n1,2,3\r\n", name="abc")
    pipeline = create_pipeline(
        client, editor, dataset["id"], [{"op": "rename", "mapping": mapping}]
    )
    run = run_now(app, client, editor, pipeline["id"])
    if isinstance(expected, str):
        assert (run["status"], run["error"]) == ("failed", expected)
    else:
        assert output_rows(client, editor, run) == expected


def test_select_twice_is_refused(app, client, actors):
    editor = actors["editor"].headers
    pipeline = create_pipeline(
        client,
        editor,
        source(client, editor)["id"],
        [{"op": "select", "columns": ["name", "age", "name"]}],
    )
    run = run_now(app, client, editor, pipeline["id"])
    assert run["error"] == "step 0 (select): column 'name' is selected more than once"


def test_cancel_interrupts_the_query_within_two_seconds(app, client, actors):
    app.config.update(PIPELINE_POLL_SECONDS=0.05)
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, slow_source(client, editor)["id"], SLOW)
    probe = create_pipeline(
        client, editor, source(client, editor)["id"], name="probe", output="probe out"
    )
    with background_worker(app):
        slow = start(client, editor, pipeline["id"])
        wait_for(client, editor, pipeline["id"], slow["id"], {"running"}, 30)
        time.sleep(0.5)  # into the query, which would take minutes
        response = client.post(
            f"{PIPELINES}{pipeline['id']}/runs/{slow['id']}/cancel", headers=editor
        )
        cancelled_at = time.monotonic()
        assert response.get_json()["status"] == "cancelled"
        # The one worker thread takes the next run once it has let go of the cancelled one.
        after = start(client, editor, probe["id"])
        after = wait_for(client, editor, probe["id"], after["id"], {"succeeded", "failed"}, 30)
        assert after["status"] == "succeeded"
        assert time.monotonic() - cancelled_at < 2
    slow = get_run(client, editor, pipeline["id"], slow["id"])
    assert (slow["status"], slow["error"], slow["output_dataset_id"]) == (
        "cancelled",
        "cancelled by a user",
        None,
    )


def test_a_run_over_the_timeout_fails_and_the_next_one_runs(app, client, actors):
    app.config["PIPELINE_TIMEOUT_SECONDS"] = 1
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, slow_source(client, editor)["id"], SLOW)
    run = start(client, editor, pipeline["id"])
    assert run_in_thread(app, 10)[1] < 3
    run = get_run(client, editor, pipeline["id"], run["id"])
    assert (run["status"], run["error"], run["output_dataset_id"]) == (
        "failed",
        "the run took longer than 1 seconds (PIPELINE_TIMEOUT_SECONDS) and was stopped",
        None,
    )
    light = create_pipeline(
        client, editor, source(client, editor)["id"], name="light", output="light out"
    )
    assert run_now(app, client, editor, light["id"])["status"] == "succeeded"


def test_an_output_the_storage_has_no_room_for_fails_the_run_and_keeps_the_old_one(
    app, client, actors, tmp_path
):
    small = mounted_tmpfs(tmp_path / "small", "size=256k")
    try:
        app.config["STORAGE_PATH"] = str(small)  # before the app's first use of storage
        editor = actors["editor"].headers
        text = "n\n" + "".join(f"{i}\n" for i in range(400))
        pipeline = create_pipeline(
            client, editor, source(client, editor, text)["id"], [{"op": "limit", "count": 1}]
        )
        first = run_now(app, client, editor, pipeline["id"])
        assert first["status"] == "succeeded", first
        # 160,000 rows: about 1.4 MB of CSV, on a 256 KiB file system.
        assert (
            client.patch(
                f"{PIPELINES}{pipeline['id']}",
                headers=editor,
                json={
                    "steps": [{"op": "sql", "query": "SELECT a.n, b.n AS m FROM input a, input b"}]
                },
            ).status_code
            == 200
        )
        files_before = sorted(os.listdir(small))
        run = run_now(app, client, editor, pipeline["id"])
        assert (run["status"], run["error"]) == ("failed", "the storage has no room for the output")
        assert sorted(os.listdir(small)) == files_before  # nothing partial left
        assert output_rows(client, editor, first) == [["n"], ["0"]]  # the old output stays
    finally:
        unmount(small)
