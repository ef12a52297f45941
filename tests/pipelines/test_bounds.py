"""Bounds on pipelines: pathological headers, fields, lines and step lists fail fast with
a clear error or run in bounded time; a cancel or PIPELINE_MAX_RUN_SECONDS stops a long
step within seconds, and the worker goes on to the next run."""
import threading
import time

import pytest

from datahub.pipelines import engine, worker
from tests.pipelines.helpers import (
    PIPELINES,
    create_pipeline,
    get_run,
    output_rows,
    run_now,
    source,
    start,
    wait_for,
)
from tests.resources import validation_error

WIDE = 1_000_000
KEYS = 300  # the 100 steps stay under MAX_JSON_BODY_BYTES
# 100 renames of 300 columns each, at the end of a 1,000,000-column header: planning was
# header width x keys per step (about 6 minutes here); it is now linear.
RENAMES = [{"op": "rename", "mapping": {
    (f"c{WIDE - 1 - j}" if step == 0 else f"c{WIDE - 1 - j}_{step - 1}"): f"c{WIDE - 1 - j}_{step}"
    for j in range(KEYS)}} for step in range(100)]


def wide_text():
    return ",".join(f"c{i}" for i in range(WIDE)) + "\r\n" + "x," * (WIDE - 1) + "y\r\n"


def run_in_thread(app, seconds):
    """Execute one queued run in a worker thread; fail if it takes over ``seconds``."""
    done = []
    thread = threading.Thread(target=lambda: done.append(worker.Worker(app).run_once()),
                              daemon=True)
    began = time.monotonic()
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the run was still going after {seconds} s"
    return done[0], time.monotonic() - began


@pytest.mark.parametrize("settings, error", [
    ({}, "line 1 of the source is longer than 4194304 characters (PIPELINE_MAX_LINE_SIZE)"),
    ({"PIPELINE_MAX_LINE_SIZE": 16 * 2**20},
     "the source file has 1000000 columns; at most 10000 are allowed (PIPELINE_MAX_COLUMNS)"),
    ({"PIPELINE_MAX_LINE_SIZE": 16 * 2**20, "PIPELINE_MAX_COLUMNS": WIDE}, None),
])
def test_million_column_header_with_100_renames(app, client, actors, settings, error):
    app.config.update(settings)
    editor = actors["editor"].headers
    dataset = source(client, editor, wide_text(), name="wide")
    pipeline = create_pipeline(client, editor, dataset["id"], RENAMES)
    run = start(client, editor, pipeline["id"])
    assert run_in_thread(app, 60)[0] == run["id"]
    run = get_run(client, editor, pipeline["id"], run["id"])
    if error:
        assert (run["status"], run["error"]) == ("failed", error)
        return
    assert run["status"] == "succeeded", run
    header, row = output_rows(client, editor, run)
    assert header[:2] == ["c0", "c1"] and header[-1] == f"c{WIDE - 1}_99"
    assert header[WIDE - KEYS] == f"c{WIDE - KEYS}_99"
    assert header[WIDE - KEYS - 1] == f"c{WIDE - KEYS - 1}"
    assert (len(header), row[-1]) == (WIDE, "y")


def test_too_many_steps_is_a_422_at_create_and_patch(app, client, actors):
    editor = actors["editor"].headers
    dataset = source(client, editor)
    body = {"name": "p", "source_dataset_id": dataset["id"], "output_dataset_name": "o",
            "steps": [{"op": "limit", "count": 1}] * 101}
    response = client.post(PIPELINES, json=body, headers=editor)
    assert response.status_code == 422
    assert response.get_json() == {"detail": [validation_error(
        ["body", "steps"], "ensure this value has at most 100 items",
        "value_error.list.max_items")]}

    app.config["PIPELINE_MAX_STEPS"] = 3
    response = client.post(PIPELINES, json={**body, "steps": body["steps"][:4]}, headers=editor)
    assert response.status_code == 422
    assert response.get_json()["detail"] == [validation_error(
        ["body", "steps"], "ensure this value has at most 3 items", "value_error.list.max_items")]
    pipeline = create_pipeline(client, editor, dataset["id"], body["steps"][:3])
    response = client.patch(f"{PIPELINES}{pipeline['id']}", json={"steps": body["steps"][:4]},
                            headers=editor)
    assert response.status_code == 422
    assert response.get_json()["detail"][0]["loc"] == ["body", "steps"]

    # A pipeline stored before the limit was lowered fails its run, clearly.
    app.config["PIPELINE_MAX_STEPS"] = 2
    run = run_now(app, client, editor, pipeline["id"])
    assert (run["status"], run["error"]) == (
        "failed", "the pipeline has 3 steps; at most 2 are allowed (PIPELINE_MAX_STEPS)")


@pytest.mark.parametrize("settings, text, error", [
    ({"PIPELINE_MAX_COLUMNS": 3}, "a,b,c,d\r\n1,2,3,4\r\n",
     "the source file has 4 columns; at most 3 are allowed (PIPELINE_MAX_COLUMNS)"),
    ({"PIPELINE_MAX_FIELD_SIZE": 10}, "a,b\r\n1,2\r\n1,12345678901\r\n",
     "line 3 of the source has a field longer than 10 characters (PIPELINE_MAX_FIELD_SIZE)"),
    ({"PIPELINE_MAX_FIELD_SIZE": 10}, 'a,b\r\n1,"12345\r\n678901"\r\n',
     "line 3 of the source has a field longer than 10 characters (PIPELINE_MAX_FIELD_SIZE)"),
    ({"PIPELINE_MAX_LINE_SIZE": 20}, "a,b\r\n" + "1," + "x" * 18 + "\r\n" + "1," + "x" * 19,
     "line 3 of the source is longer than 20 characters (PIPELINE_MAX_LINE_SIZE)"),
    ({"PIPELINE_MAX_LINE_SIZE": 20, "PIPELINE_MAX_FIELD_SIZE": 40},
     'a,b\r\n1,"' + "x" * 15 + "\r\n" + "x" * 15 + '"\r\n', None),
])
def test_source_bounds_fail_the_run_clearly(app, client, actors, settings, text, error):
    app.config.update(settings)
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor, text)["id"])
    run = run_now(app, client, editor, pipeline["id"])
    if error:
        assert (run["status"], run["error"]) == ("failed", error)
    else:
        assert run["status"] == "succeeded", run
        assert output_rows(client, editor, run)[1] == ["1", "x" * 15 + "\r\n" + "x" * 15]


def test_errors_quote_at_most_20_column_names(app, client, actors):
    editor = actors["editor"].headers
    text = ",".join(f"c{i}" for i in range(500)) + "\r\n"
    pipeline = create_pipeline(client, editor, source(client, editor, text)["id"],
                               [{"op": "rename", "mapping": {"c1": "c0"}}])
    run = run_now(app, client, editor, pipeline["id"])
    names = ", ".join(f"c{i}" for i in range(20)).replace("c1,", "c0,", 1)
    assert run["error"] == ("step 0 (rename): the result has duplicate column names: "
                            f"{names}, ... (500 columns)")


def rows_of(header, rows, steps, **kwargs):
    header, out = engine.apply_steps(header, iter(rows), steps, 100, **kwargs)
    return [header] + list(out)


def test_rename_is_simultaneous_and_refuses_clashes():
    swap = [{"op": "rename", "mapping": {"a": "b", "b": "a", "c": "c"}}]
    assert rows_of(["a", "b", "c"], [["1", "2", "3"]], swap) == [["b", "a", "c"],
                                                                  ["1", "2", "3"]]
    for mapping in ({"a": "b", "b": "b"}, {"a": "c"}, {"a": "x", "b": "x"}):
        with pytest.raises(engine.PipelineError, match="duplicate column names"):
            rows_of(["a", "b", "c"], [], [{"op": "rename", "mapping": mapping}])
    chain = [{"op": "rename", "mapping": {"a": "x"}}, {"op": "rename", "mapping": {"b": "a"}},
             {"op": "select", "columns": ["a", "x"]}]
    assert rows_of(["a", "b"], [["1", "2"]], chain) == [["a", "x"], ["2", "1"]]
    with pytest.raises(engine.PipelineError, match="'zz' does not exist"):
        rows_of(["a"], [], [{"op": "rename", "mapping": {"zz": "zz"}}])
    with pytest.raises(engine.PipelineError,
                       match=r"^step 0 \(select\): column 'a' is selected more than once$"):
        rows_of(["a", "b"], [], [{"op": "select", "columns": ["a", "b", "a"]}])


def test_sort_holds_at_most_memory_cells(monkeypatch, tmp_path):
    written = []
    original = engine.Spiller.write
    monkeypatch.setattr(engine.Spiller, "write",
                        lambda self, rows: written.append(1) or original(self, rows))
    rows = [[str(i % 7), str(i), "x"] for i in range(100)]
    out = rows_of(["k", "i", "x"], rows, [{"op": "sort", "columns": ["k"]}],
                  temp_dir=str(tmp_path), memory_cells=30)
    assert out[1:] == sorted(rows, key=lambda row: int(row[0]))
    assert len(written) == 10  # 10 rows of 3 cells per sorted run


# A sort on 1000 columns of 8000 rows: seconds of key computation, which the old engine
# did inside one list.sort call, beyond the reach of a cancel.
HEAVY_COLUMNS, HEAVY_ROWS = 1000, 8000
HEAVY = [{"op": "sort", "columns": [f"c{i}" for i in range(HEAVY_COLUMNS)]}]


def heavy_source(client, headers):
    line = ",".join(["1"] * (HEAVY_COLUMNS - 1)) + ",{}\r\n"
    text = ",".join(f"c{i}" for i in range(HEAVY_COLUMNS)) + "\r\n" + "".join(
        line.format(HEAVY_ROWS - i) for i in range(HEAVY_ROWS))
    return source(client, headers, text, name="heavy")


def test_cancel_in_a_long_step_frees_the_worker_thread_within_seconds(app, client, actors):
    app.config.update(PIPELINE_POLL_SECONDS=0.05, PIPELINE_HEARTBEAT_SECONDS=0.2)
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, heavy_source(client, editor)["id"], HEAVY)
    probe = create_pipeline(client, editor, source(client, editor)["id"], name="probe",
                            output="probe out")
    worker.ensure_embedded_worker(app)
    try:
        heavy = start(client, editor, pipeline["id"])
        wait_for(client, editor, pipeline["id"], heavy["id"], {"running"}, 30)
        time.sleep(0.5)  # into the run: it takes several seconds, its sort most of them
        response = client.post(f"{PIPELINES}{pipeline['id']}/runs/{heavy['id']}/cancel",
                               headers=editor)
        cancelled_at = time.monotonic()
        assert response.get_json()["status"] == "cancelled"
        # The one worker thread takes the next run once it has let go of the cancelled one.
        after = start(client, editor, probe["id"])
        after = wait_for(client, editor, probe["id"], after["id"], {"succeeded", "failed"}, 60)
        assert after["status"] == "succeeded"
        assert time.monotonic() - cancelled_at < 5
    finally:
        worker.stop_embedded_worker(app)
    heavy = get_run(client, editor, pipeline["id"], heavy["id"])
    assert (heavy["status"], heavy["error"], heavy["output_dataset_id"]) == \
        ("cancelled", "cancelled by a user", None)


def test_a_run_over_max_run_seconds_fails_and_the_next_one_runs(app, client, actors):
    app.config["PIPELINE_MAX_RUN_SECONDS"] = 1
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, heavy_source(client, editor)["id"], HEAVY)
    run = start(client, editor, pipeline["id"])
    assert run_in_thread(app, 30)[0] == run["id"]
    run = get_run(client, editor, pipeline["id"], run["id"])
    assert (run["status"], run["error"], run["output_dataset_id"]) == (
        "failed", "the run took longer than 1 seconds (PIPELINE_MAX_RUN_SECONDS) and was "
                  "stopped", None)
    light = create_pipeline(client, editor, source(client, editor)["id"], name="light",
                            output="light out")
    assert run_now(app, client, editor, light["id"])["status"] == "succeeded"
