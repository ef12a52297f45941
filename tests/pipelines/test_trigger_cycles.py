"""Pipelines triggered by new versions that feed each other (docs/guides/events.rst,
"Triggers"): refused when made, if the caller may read every pipeline of the loop; else
stopped at run time, after one round."""

from datahub.pipelines import worker
from tests.pipelines.helpers import PIPELINES, create_pipeline, run_now, source
from tests.pipelines.test_triggers import NEW_VERSION, runs, sweep
from tests.resources import actors, upload  # noqa: F401  (actors: a fixture)


def cycle_error(field, message):
    return [{"loc": ["body", field], "msg": message, "type": "value_error.trigger_cycle"}]


def through(*ids):
    names = ", ".join(map(str, ids))
    what = f"pipelines {names}" if len(ids) > 1 else f"pipeline {names}"
    return (
        "would make a cycle: the output reaches this pipeline's own inputs through "
        f"{what}, triggered by new versions too"
    )


def test_a_loop_of_the_caller_s_pipelines_is_a_422(app, client, actors):
    editor = actors["editor"].headers
    x = source(client, editor, name="x")
    a = create_pipeline(client, editor, x["id"], name="a", output="y", trigger=NEW_VERSION)
    y = run_now(app, client, editor, a["id"])["output"]["dataset_id"]
    b = create_pipeline(client, editor, y, name="b", output="z", trigger=NEW_VERSION)
    z = run_now(app, client, editor, b["id"])["output"]["dataset_id"]
    body = {"name": "c", "source_dataset_id": z, "output_dataset_name": "x"}

    closing = client.post(PIPELINES, json={**body, "trigger": NEW_VERSION}, headers=editor)
    assert closing.status_code == 422, closing.get_json()
    assert closing.get_json()["detail"] == cycle_error("trigger", through(a["id"], b["id"]))

    c = client.post(PIPELINES, json=body, headers=editor)  # without a trigger: no loop
    assert c.status_code == 201, c.get_json()
    url = f"{PIPELINES}{c.get_json()['id']}"
    patched = client.patch(url, json={"trigger": NEW_VERSION}, headers=editor)
    assert patched.status_code == 422
    assert patched.get_json()["detail"] == cycle_error("trigger", through(a["id"], b["id"]))

    elsewhere = client.patch(
        url, json={"trigger": NEW_VERSION, "output_dataset_name": "w"}, headers=editor
    )
    assert elsewhere.status_code == 200, elsewhere.get_json()
    back = client.patch(url, json={"output_dataset_name": "x"}, headers=editor)
    assert back.get_json()["detail"] == cycle_error(
        "output_dataset_name", through(a["id"], b["id"])
    )
    # A pipeline reading its own output is not refused: its output never triggers it.
    own = client.patch(url, json={"output_dataset_name": "z"}, headers=editor)
    assert own.status_code == 200, own.get_json()


def rounds(app, limit=8):
    """Sweep and run until nothing is queued (at most ``limit`` rounds): the pipeline ids
    of the runs, in order."""
    ran = []
    for _ in range(limit):
        queued = sweep(app)
        if not queued:
            return ran
        for run in queued:
            assert worker.run_once(app) == run.id
            ran.append(run.pipeline_id)
    return ran


def test_a_loop_through_a_pipeline_the_caller_cannot_read_stops_after_one_round(
    app, client, actors
):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    w = source(client, other, name="w")
    y = source(client, editor, name="y")
    hidden = create_pipeline(
        client, other, y["id"], name="b", output="w", trigger=NEW_VERSION, visibility="private"
    )
    # The loop goes through a pipeline the editor may not read: not refused (that would
    # tell of it), stopped when it runs.
    a = create_pipeline(client, editor, w["id"], name="a", output="y", trigger=NEW_VERSION)
    assert upload(client, other, w["id"], b"n\r\n1\r\n").status_code == 200
    assert rounds(app) == [a["id"], hidden["id"]]
    assert sweep(app) == []
    [run_of_a] = runs(client, editor, a["id"])
    [run_of_b] = runs(client, other, hidden["id"])
    assert run_of_a["status"] == run_of_b["status"] == "succeeded"
    assert run_of_b["inputs"] == [run_of_a["output"]]
