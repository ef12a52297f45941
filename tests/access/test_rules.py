"""The access rules beyond the matrix: defaults, grants' own answers and audit lines,
collections' members, lineage's hidden nodes, runs and derived data
(docs/guides/access.rst)."""

import json
import logging

import pytest

from tests.access.conftest import CSV, grant, make_group
from tests.pipelines.helpers import create_pipeline, run_now
from tests.resources import create_collection, create_dataset, upload, validation_error

DATASETS = "/api/v1/datasets/"


def audit_events(caplog, name):
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "datahub.audit"]
    return [line for line in lines if line["event"] == name]


def test_internal_is_the_default_and_every_reader_reads_it(client, actors):
    editor, viewer = actors["editor"], actors["viewer"]
    dataset = create_dataset(client, editor.headers, "open")
    assert dataset["visibility"] == "internal"
    assert client.get(f"{DATASETS}{dataset['id']}", headers=viewer.headers).status_code == 200
    refused = client.patch(f"{DATASETS}{dataset['id']}", json={"name": "x"}, headers=viewer.headers)
    assert (refused.status_code, refused.get_json()) == (403, {"detail": "Forbidden"})


@pytest.mark.parametrize("config_overrides", [{"DEFAULT_VISIBILITY": "private"}])
def test_default_visibility_private(client, actors, config_overrides):
    editor, viewer = actors["editor"], actors["viewer"]
    dataset = create_dataset(client, editor.headers, "closed")
    assert dataset["visibility"] == "private"
    response = client.get(f"{DATASETS}{dataset['id']}", headers=viewer.headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    shown = create_dataset(client, editor.headers, "shown", visibility="internal")
    assert client.get(f"{DATASETS}{shown['id']}", headers=viewer.headers).status_code == 200


def test_a_viewer_granted_write_still_only_reads(client, actors):
    """A role is a ceiling: grants never make a viewer an editor."""
    editor, viewer = actors["editor"], actors["viewer"]
    dataset = create_dataset(client, editor.headers, "d", visibility="private")
    grant(client, editor.headers, "datasets", dataset["id"], f"user:{viewer.id}", "write")
    assert client.get(f"{DATASETS}{dataset['id']}", headers=viewer.headers).status_code == 200
    response = client.patch(
        f"{DATASETS}{dataset['id']}", json={"name": "y"}, headers=viewer.headers
    )
    assert response.status_code == 403


def post_grant(client, url, headers, principal, permission="read"):
    return client.post(
        url, json={"principal": principal, "permission": permission}, headers=headers
    )


def test_grant_answers(client, actors, caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    editor, viewer = actors["editor"], actors["viewer"]
    dataset = create_dataset(client, editor.headers, "d", visibility="private")
    url = f"{DATASETS}{dataset['id']}/grants"
    made = client.post(
        url, json={"principal": f"user:{viewer.id}", "permission": "read"}, headers=editor.headers
    )
    assert made.status_code == 201
    body = made.get_json()
    assert list(body) == ["id", "principal", "permission", "created_at"]
    assert made.headers["Location"] == f"{url}/{body['id']}"
    again = post_grant(client, url, editor.headers, f"user:{viewer.id}", "write")
    assert (again.status_code, again.get_json()) == (409, {"detail": "Grant already exists"})
    unknown = post_grant(client, url, editor.headers, "user:00000000-0000-4000-8000-000000000000")
    assert unknown.status_code == 422
    assert unknown.get_json()["detail"] == [
        validation_error(
            ["body", "principal"], "No such user or group", "value_error.principal_not_found"
        )
    ]
    for bad in (
        {"principal": "bob", "permission": "read"},
        {"principal": "group:1", "permission": "own"},
    ):
        assert client.post(url, json=bad, headers=editor.headers).status_code == 422
    page = client.get(url, headers=editor.headers).get_json()
    assert (page["total"], [g["principal"] for g in page["items"]]) == (1, [f"user:{viewer.id}"])
    assert client.get(f"{DATASETS}{dataset['id']}", headers=viewer.headers).status_code == 200
    gone = client.delete(f"{url}/{body['id']}", headers=editor.headers)
    assert gone.status_code == 204
    # Revoked: the very next request is refused.
    response = client.get(f"{DATASETS}{dataset['id']}", headers=viewer.headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    missing = client.delete(f"{url}/{body['id']}", headers=editor.headers)
    assert (missing.status_code, missing.get_json()) == (404, {"detail": "Grant not found"})
    created, deleted = audit_events(caplog, "grant_created"), audit_events(caplog, "grant_deleted")
    assert [(e["resource"], e["principal"], e["permission"]) for e in created] == [
        (f"datasets/{dataset['id']}", f"user:{viewer.id}", "read")
    ]
    assert len(deleted) == 1 and deleted[0]["user_id"] == editor.id


def test_an_owner_shares_by_email_and_the_grant_keeps_the_id(client, actors, caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    editor, viewer = actors["editor"], actors["viewer"]
    dataset = create_dataset(client, editor.headers, "d", visibility="private")
    url = f"{DATASETS}{dataset['id']}/grants"
    email = client.get("/api/v1/auth/me", headers=viewer.headers).get_json()["email"]
    made = post_grant(client, url, editor.headers, f"user:{email.upper()}")
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["principal"] == f"user:{viewer.id}"
    assert audit_events(caplog, "grant_created")[-1]["principal"] == f"user:{viewer.id}"
    assert client.get(f"{DATASETS}{dataset['id']}", headers=viewer.headers).status_code == 200
    again = post_grant(client, url, editor.headers, f"user:{viewer.id}", "write")
    assert (again.status_code, again.get_json()) == (409, {"detail": "Grant already exists"})
    unknown = post_grant(client, url, editor.headers, "user:no-such-person@example.com")
    assert unknown.status_code == 422
    assert unknown.get_json()["detail"][0]["type"] == "value_error.principal_not_found"


def test_a_grant_id_of_another_resource_is_not_found(client, actors):
    editor, viewer = actors["editor"], actors["viewer"]
    one, two = (create_dataset(client, editor.headers, name) for name in ("one", "two"))
    made = grant(client, editor.headers, "datasets", one["id"], f"user:{viewer.id}", "read")
    response = client.delete(f"{DATASETS}{two['id']}/grants/{made['id']}", headers=editor.headers)
    assert response.status_code == 404


def test_visibility_changes_are_the_owners_and_audited(client, actors, caplog):
    caplog.set_level(logging.INFO, logger="datahub.audit")
    editor, other = actors["editor"], actors["other_editor"]
    dataset = create_dataset(client, editor.headers, "d")
    grant(client, editor.headers, "datasets", dataset["id"], f"user:{other.id}", "write")
    url = f"{DATASETS}{dataset['id']}"
    refused = client.patch(url, json={"visibility": "private"}, headers=other.headers)
    assert refused.status_code == 403
    assert (
        client.patch(url, json={"visibility": "private"}, headers=editor.headers).status_code == 200
    )
    bad = client.patch(url, json={"visibility": "public"}, headers=editor.headers)
    assert bad.status_code == 422
    (event,) = audit_events(caplog, "visibility_changed")
    assert (event["resource"], event["visibility"], event["previous"]) == (
        f"datasets/{dataset['id']}",
        "private",
        "internal",
    )


def test_collections_show_only_readable_members_and_keep_the_others(client, actors):
    editor, admin, viewer = actors["editor"], actors["admin"], actors["viewer"]
    shown = create_dataset(client, editor.headers, "shown")
    hidden = create_dataset(client, editor.headers, "hidden", visibility="private")
    collection = create_collection(
        client, admin.headers, "mixed", dataset_ids=[shown["id"], hidden["id"]]
    )
    url = f"/api/v1/collections/{collection['id']}"
    assert client.get(url, headers=viewer.headers).get_json()["dataset_ids"] == [shown["id"]]
    assert client.get(url, headers=admin.headers).get_json()["dataset_ids"] == [
        shown["id"],
        hidden["id"],
    ]
    # A writer who cannot see a member replaces the list: the hidden member stays.
    grant(
        client,
        admin.headers,
        "collections",
        collection["id"],
        f"user:{actors['other_editor'].id}",
        "write",
    )
    other = actors["other_editor"]
    changed = client.patch(url, json={"dataset_ids": []}, headers=other.headers)
    assert changed.status_code == 200 and changed.get_json()["dataset_ids"] == []
    assert client.get(url, headers=admin.headers).get_json()["dataset_ids"] == [hidden["id"]]
    # A dataset one may not read cannot be added (as if it did not exist).
    response = client.put(f"{url}/datasets/{hidden['id']}", headers=other.headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    private = create_collection(client, editor.headers, "closed", visibility="private")
    response = client.get(f"/api/v1/collections/{private['id']}", headers=viewer.headers)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Collection not found"})


def test_a_pipeline_cannot_name_a_dataset_its_author_may_not_read(client, actors):
    editor, other = actors["editor"], actors["other_editor"]
    hidden = create_dataset(client, editor.headers, "hidden", visibility="private")
    response = client.post(
        "/api/v1/pipelines/",
        json={"name": "p", "source_dataset_id": hidden["id"], "output_dataset_name": "o"},
        headers=other.headers,
    )
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})


def test_derived_data_and_hidden_lineage(app, client, actors, caplog):
    """A private source makes a private output; the owner widens it (audited); a viewer
    then sees the output's lineage with the source as a hidden node."""
    caplog.set_level(logging.INFO, logger="datahub.audit")
    editor, viewer = actors["editor"], actors["viewer"]
    source = create_dataset(client, editor.headers, "secret", visibility="private")
    assert upload(client, editor.headers, source["id"], CSV).status_code == 200
    pipeline = create_pipeline(client, editor.headers, source["id"], output="summary")
    run = run_now(app, client, editor.headers, pipeline["id"])
    assert run["status"] == "succeeded", run
    output_url = f"{DATASETS}{run['output_dataset_id']}"
    assert client.get(output_url, headers=editor.headers).get_json()["visibility"] == "private"
    assert client.get(output_url, headers=viewer.headers).status_code == 404
    widened = client.patch(output_url, json={"visibility": "internal"}, headers=editor.headers)
    assert widened.status_code == 200
    assert audit_events(caplog, "visibility_changed")[-1]["resource"] == (
        f"datasets/{run['output_dataset_id']}"
    )
    graph = client.get(f"{output_url}/lineage", headers=viewer.headers).get_json()
    assert graph["nodes"] == [
        {"id": "hidden:1", "type": "hidden"},  # the source: nodes are in dataset id order
        {
            "id": f"dataset:{run['output_dataset_id']}@1",
            "type": "version",
            "dataset_id": run["output_dataset_id"],
            "version": 1,
            "name": "summary",
        },
        {
            "id": f"run:{run['id']}",
            "type": "run",
            "run_id": run["id"],
            "pipeline_id": pipeline["id"],
        },
    ]
    assert {(e["from"], e["to"]) for e in graph["edges"]} == {
        ("hidden:1", f"run:{run['id']}"),
        (f"run:{run['id']}", f"dataset:{run['output_dataset_id']}@1"),
    }
    full = client.get(f"{output_url}/lineage", headers=editor.headers).get_json()
    assert f"dataset:{source['id']}@1" in {node["id"] for node in full["nodes"]}


def widened_output(app, client, owner, source_name="secret"):
    """A private source, a pipeline over it, one run, its output widened by the owner:
    ``(source, pipeline, output url)``."""
    source = create_dataset(client, owner.headers, source_name, visibility="private")
    assert upload(client, owner.headers, source["id"], CSV).status_code == 200
    pipeline = create_pipeline(client, owner.headers, source["id"], output="published")
    run = run_now(app, client, owner.headers, pipeline["id"])
    assert run["status"] == "succeeded", run
    output_url = f"{DATASETS}{run['output_dataset_id']}"
    widened = client.patch(output_url, json={"visibility": "internal"}, headers=owner.headers)
    assert widened.status_code == 200
    return source, pipeline, output_url


def test_a_widened_output_takes_the_next_runs_of_its_pipeline(app, client, actors):
    editor = actors["editor"]
    source, pipeline, output_url = widened_output(app, client, editor)
    assert upload(client, editor.headers, source["id"], CSV + b"cy,3\n").status_code == 200
    run = run_now(app, client, editor.headers, pipeline["id"])
    assert run["status"] == "succeeded", run
    output = client.get(output_url, headers=editor.headers).get_json()
    assert (output["visibility"], output["current_version"]) == ("internal", 2)


def test_private_data_never_flows_into_an_internal_dataset_it_was_not_made_from(
    app, client, actors
):
    """A pipeline over private data pointed at the owner's internal dataset, or at another
    private source: a write grantee is refused (it may not read the source, nor write the
    output), and the owner's own change gives runs that fail, the internal dataset keeping its versions
    (derived data is never wider than its sources)."""
    editor, grantee = actors["editor"], actors["other_editor"]
    source, pipeline, output_url = widened_output(app, client, editor)
    public = create_dataset(client, editor.headers, "public notes")
    assert upload(client, editor.headers, public["id"], CSV).status_code == 200
    other_secret = create_dataset(client, editor.headers, "other secret", visibility="private")
    assert upload(client, editor.headers, other_secret["id"], CSV + b"x,9\n").status_code == 200
    grant(client, editor.headers, "pipelines", pipeline["id"], f"user:{grantee.id}", "write")
    grant(client, editor.headers, "datasets", other_secret["id"], f"user:{grantee.id}", "read")
    refused = (
        "is internal and this run reads private data it was not made from; make the output "
        "dataset private, or choose another output_dataset_name"
    )
    for change, internal_url, status in [
        # The grantee may not read the kept source: 404; it reads "published": 403.
        ({"output_dataset_name": "public notes"}, f"{DATASETS}{public['id']}", 404),
        (
            {"output_dataset_name": "published", "source_dataset_id": other_secret["id"]},
            output_url,
            403,
        ),
    ]:
        before = client.get(internal_url, headers=editor.headers).get_json()["current_version"]
        url = f"/api/v1/pipelines/{pipeline['id']}"
        assert client.patch(url, json=change, headers=grantee.headers).status_code == status
        assert client.patch(url, json=change, headers=editor.headers).status_code == 200
        run = run_now(app, client, grantee.headers, pipeline["id"])
        assert run["status"] == "failed" and refused in run["error"], run
        after = client.get(internal_url, headers=editor.headers).get_json()
        assert (after["visibility"], after["current_version"]) == ("internal", before)


def test_a_run_reads_with_its_owners_rights_when_it_starts(app, client, actors):
    """The pipeline's owner loses the right to read its source: the run fails as if the
    source were gone (nothing about it is told)."""
    editor, other = actors["editor"], actors["other_editor"]
    source = create_dataset(client, editor.headers, "shared")
    assert upload(client, editor.headers, source["id"], CSV).status_code == 200
    pipeline = create_pipeline(client, other.headers, source["id"])
    made = client.patch(
        f"{DATASETS}{source['id']}", json={"visibility": "private"}, headers=editor.headers
    )
    assert made.status_code == 200
    run = run_now(app, client, other.headers, pipeline["id"])
    assert (run["status"], run["error"]) == ("failed", "the source dataset no longer exists")


def test_a_group_grant_follows_membership(app, client, actors, make_user):
    editor, viewer = actors["editor"], actors["viewer"]
    dataset = create_dataset(client, editor.headers, "team data", visibility="private")
    group_id = make_group(app, "team", viewer.id)
    grant(client, editor.headers, "datasets", dataset["id"], f"group:{group_id}", "read")
    url = f"{DATASETS}{dataset['id']}"
    assert client.get(url, headers=viewer.headers).status_code == 200
    assert client.get(f"{DATASETS}?limit=5", headers=viewer.headers).get_json()["total"] == 1
    from datahub.app.extensions import db
    from datahub.identity.group_models import GroupMember

    with app.app_context():
        db.session.delete(db.session.get(GroupMember, (group_id, viewer.id)))
        db.session.commit()
    assert client.get(url, headers=viewer.headers).status_code == 404
    assert client.get(DATASETS, headers=viewer.headers).get_json()["total"] == 0
