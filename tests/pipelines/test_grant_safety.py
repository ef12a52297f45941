"""A ``write`` grant on a pipeline is not a way into its owner's data: what the pipeline
reads or writes (source, pinned version, steps, output name, format) is changed only by
who may read every input of it as it will be and write the dataset its output name names
(404 ``Dataset not found`` for what the caller may not read, 403 ``Forbidden`` for what
it reads but may not write); and a run publishes only what its owner may still write."""

import sqlalchemy as sa

from datahub.app.extensions import db
from datahub.identity.models import User
from datahub.pipelines import execute, publish, worker
from tests.access.conftest import grant
from tests.pipelines.helpers import PIPELINES, create_pipeline, get_run, run_now, source, start
from tests.resources import upload

DATASETS = "/api/v1/datasets/"
NOT_FOUND = {"detail": "Dataset not found"}
FORBIDDEN = {"detail": "Forbidden"}


def private(client, headers, name, text="name,n\r\nann,1\r\n"):
    dataset = source(client, headers, text, name=name)
    response = client.patch(
        f"{DATASETS}{dataset['id']}", json={"visibility": "private"}, headers=headers
    )
    assert response.status_code == 200, response.get_json()
    return dataset


def granted(client, owner, kind, row, actor, permission):
    grant(client, owner, kind, row["id"], f"user:{actor.id}", permission)


def patch(client, headers, pipeline, body):
    response = client.patch(f"{PIPELINES}{pipeline['id']}", json=body, headers=headers)
    return response.status_code, response.get_json()


def current_version(client, headers, dataset):
    return client.get(f"{DATASETS}{dataset['id']}", headers=headers).get_json()["current_version"]


def test_a_write_grantee_cannot_aim_the_output_at_the_owners_other_datasets(app, client, actors):
    owner, grantee = actors["editor"], actors["other_editor"]
    src = private(client, owner.headers, "src")
    granted(client, owner.headers, "datasets", src, grantee, "read")
    ledger = private(client, owner.headers, "ledger", "name,n\r\nsecret,9\r\n")
    notes = source(client, owner.headers, name="notes")  # internal: the grantee reads it
    pipeline = create_pipeline(client, owner.headers, src["id"], visibility="private")
    granted(client, owner.headers, "pipelines", pipeline, grantee, "write")

    assert patch(client, grantee.headers, pipeline, {"output_dataset_name": "Ledger"}) == (
        404,
        NOT_FOUND,
    )
    assert patch(client, grantee.headers, pipeline, {"output_dataset_name": "notes"}) == (
        403,
        FORBIDDEN,
    )
    assert client.get(f"{PIPELINES}{pipeline['id']}", headers=owner.headers).get_json()[
        "output_dataset_name"
    ] == ("pipe output")
    run = run_now(app, client, grantee.headers, pipeline["id"])
    assert run["status"] == "succeeded", run
    assert run["output_dataset_id"] not in (ledger["id"], notes["id"])
    assert current_version(client, owner.headers, ledger) == 1
    assert current_version(client, owner.headers, notes) == 1
    # A dataset the grantee may write (and a new name) may be the output.
    granted(client, owner.headers, "datasets", notes, grantee, "write")
    assert patch(client, grantee.headers, pipeline, {"output_dataset_name": "notes"})[0] == 200
    assert patch(client, grantee.headers, pipeline, {"output_dataset_name": "new one"})[0] == 200


def test_a_write_grantee_who_cannot_read_the_source_changes_no_step(app, client, actors):
    owner, grantee = actors["editor"], actors["other_editor"]
    src = private(client, owner.headers, "src", "secret\r\nSECRET-7f3a9\r\n")
    pipeline = create_pipeline(client, owner.headers, src["id"], visibility="internal")
    granted(client, owner.headers, "pipelines", pipeline, grantee, "write")
    cast = [{"op": "cast", "column": "secret", "type": "integer"}]
    for body in (
        {"steps": cast},
        {"steps": [{"op": "sql", "query": "SELECT error(secret) FROM input"}]},
        {"output_format": "jsonl"},
        {"source_version": 1},
        {"output_dataset_name": "elsewhere"},
    ):
        assert patch(client, grantee.headers, pipeline, body) == (404, NOT_FOUND), body
    # What the pipeline does not read or write stays the grantee's to change.
    assert patch(client, grantee.headers, pipeline, {"description": "d"})[0] == 200
    assert (
        client.get(f"{PIPELINES}{pipeline['id']}", headers=owner.headers).get_json()["steps"] == []
    )


def test_every_input_as_it_will_be_is_checked_kept_joins_too(app, client, actors):
    owner, grantee = actors["editor"], actors["other_editor"]
    src, other = source(client, owner.headers, name="src"), source(client, owner.headers, name="o")
    hidden = private(client, owner.headers, "hidden")
    join = [{"op": "join", "dataset_id": hidden["id"], "on": ["name"]}]
    pipeline = create_pipeline(client, owner.headers, src["id"], join, visibility="internal")
    granted(client, owner.headers, "pipelines", pipeline, grantee, "write")
    # A new source, the hidden join kept: 404; a new join of it: the step's 422.
    assert patch(client, grantee.headers, pipeline, {"source_dataset_id": other["id"]}) == (
        404,
        NOT_FOUND,
    )
    status, body = patch(client, grantee.headers, pipeline, {"steps": join})
    assert (status, body["detail"][0]["loc"]) == (422, ["body", "steps", 0, "dataset_id"])
    # Dropping the join: every input is readable now.
    assert patch(client, grantee.headers, pipeline, {"steps": []})[0] == 200


def test_the_owner_cannot_aim_the_output_at_a_dataset_it_only_reads(app, client, actors):
    owner, other = actors["editor"], actors["other_editor"]
    theirs = source(client, other.headers, name="theirs")
    pipeline = create_pipeline(client, owner.headers, source(client, owner.headers)["id"])
    assert patch(client, owner.headers, pipeline, {"output_dataset_name": "theirs"}) == (
        403,
        FORBIDDEN,
    )
    assert current_version(client, other.headers, theirs) == 1


def test_a_run_publishes_only_what_its_owner_may_still_write(app, client, actors):
    """The owner loses the editor role while its run works: the run fails at publish and
    the output dataset keeps its version."""
    owner = actors["editor"]
    src = source(client, owner.headers)
    pipeline = create_pipeline(client, owner.headers, src["id"])
    first = run_now(app, client, owner.headers, pipeline["id"])
    assert first["status"] == "succeeded", first
    assert upload(client, owner.headers, src["id"], b"name\r\nnew\r\n").status_code == 200
    run = start(client, owner.headers, pipeline["id"])
    with app.app_context():
        assert worker.claim("test-worker") == run["id"]

        def check():  # the worker's heartbeat check: the owner is demoted meanwhile
            db.session.execute(sa.update(User).where(User.id == owner.id).values(roles=["viewer"]))
            db.session.commit()

        execute.execute_run(app, run["id"], "test-worker", check)
        db.session.remove()
    admin = actors["admin"].headers
    failed = get_run(client, admin, pipeline["id"], run["id"])
    assert (failed["status"], failed["error"]) == ("failed", publish.OWNER_MAY_NOT_WRITE)
    output = client.get(f"{DATASETS}{first['output_dataset_id']}", headers=admin).get_json()
    assert output["current_version"] == 1
