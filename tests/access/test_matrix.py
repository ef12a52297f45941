"""Who may do what to a private dataset, pipeline and collection, through HTTP: every kind
of caller (people by their login, and personal access tokens) × every action
(docs/guides/access.rst). What a caller may not read is 404 with the resource's own
message; readable but not allowed is 403 ``Forbidden``, and so is anything but GET and
HEAD with a token of scope ``read``.

One world per kind and caller: its actions run in the order listed, which puts those
whose success changes what a later one sees (visibility, delete) last."""

import pytest

from tests.access.conftest import CSV
from tests.pipelines.helpers import run_now

D404 = (404, {"detail": "Dataset not found"})
P404 = (404, {"detail": "Pipeline not found"})
C404 = (404, {"detail": "Collection not found"})
F403 = (403, {"detail": "Forbidden"})
CALLERS = (
    "owner",
    "admin",
    "read grantee",
    "write grantee",
    "group member",
    "group writer",
    "other viewer",
    "other editor",
    "owner's read token",
    "write grantee's token",
)
# Whose rights a token carries.
PERSON = {"owner's read token": "owner", "write grantee's token": "write grantee"}
READ_ONLY = {"owner's read token"}
READERS = {"owner", "admin", "read grantee", "write grantee", "group member", "group writer"}
WRITERS = {"owner", "admin", "write grantee", "group writer"}
MANAGERS = {"owner", "admin"}


def expected(caller, action, not_found):
    allowed, ok, method, _ = action
    person = PERSON.get(caller, caller)
    if person not in READERS:
        return not_found
    if caller in READ_ONLY and method not in ("get", "head"):
        return F403
    return (ok, None) if person in allowed else F403


def answer(response, ok_status):
    """``(status, body)`` for a refusal; ``(status, None)`` when it succeeded."""
    if response.status_code == ok_status:
        return response.status_code, None
    return response.status_code, response.get_json()


def call(client, world, caller, action):
    _, _, method, request = action
    path, body = request(world)
    return getattr(client, method)(path, headers=world.people[caller].headers, **body)


def dataset(tail=""):
    return lambda w: f"/api/v1/datasets/{w.dataset['id']}{tail}"


def pipeline(tail=""):
    return lambda w: f"/api/v1/pipelines/{w.pipeline['id']}{tail}"


def collection(tail=""):
    return lambda w: f"/api/v1/collections/{w.collection['id']}{tail}"


def act(allowed, ok, method, path, **body):
    """An action: who may, its success status, and the request (path and body)."""
    return allowed, ok, method, lambda w: (path(w), body)


def add_grant(path):
    """Grant read to the other viewer (a principal without one yet)."""

    def request(w):
        principal = f"user:{w.people['other viewer'].id}"
        return path(w) + "/grants", {"json": {"principal": principal, "permission": "read"}}

    return MANAGERS, 201, "post", request


def delete_grant(path, kind):
    return MANAGERS, 204, "delete", lambda w: (f"{path(w)}/grants/{w.grant_ids[kind]}", {})


DATASET_ACTIONS = {
    "get": act(READERS, 200, "get", dataset()),
    "head": act(READERS, 200, "head", dataset()),
    "download": act(READERS, 200, "get", dataset("/file")),
    "preview": act(READERS, 200, "get", dataset("/preview")),
    "versions": act(READERS, 200, "get", dataset("/versions")),
    "lineage": act(READERS, 200, "get", dataset("/lineage")),
    "patch": act(WRITERS, 200, "patch", dataset(), json={"description": "x"}),
    "upload": act(
        WRITERS, 200, "put", dataset("/file"), data=CSV + b"cid,3\n", content_type="text/csv"
    ),
    "restore": act(WRITERS, 201, "post", dataset("/versions/1/restore")),
    "grants": act(MANAGERS, 200, "get", dataset("/grants")),
    "add grant": add_grant(dataset()),
    "delete grant": delete_grant(dataset(), "datasets"),
    "visibility": act(MANAGERS, 200, "patch", dataset(), json={"visibility": "internal"}),
    "delete": act(MANAGERS, 204, "delete", dataset()),
}


PIPELINE_ACTIONS = {
    "get": act(READERS, 200, "get", pipeline()),
    "runs": act(READERS, 200, "get", pipeline("/runs")),
    "run": act(WRITERS, 201, "post", pipeline("/runs")),
    "patch": act(WRITERS, 200, "patch", pipeline(), json={"description": "x"}),
    "grants": act(MANAGERS, 200, "get", pipeline("/grants")),
    "add grant": add_grant(pipeline()),
    "delete grant": delete_grant(pipeline(), "pipelines"),
    "visibility": act(MANAGERS, 200, "patch", pipeline(), json={"visibility": "internal"}),
    "delete": act(MANAGERS, 204, "delete", pipeline()),
}


def members_put(w):
    return f"/api/v1/collections/{w.collection['id']}/datasets/{w.dataset['id']}", {}


COLLECTION_ACTIONS = {
    "get": act(READERS, 200, "get", collection()),
    "patch": act(WRITERS, 200, "patch", collection(), json={"description": "x"}),
    "add member": (WRITERS, 200, "put", members_put),
    "remove member": (WRITERS, 200, "delete", members_put),
    "grants": act(MANAGERS, 200, "get", collection("/grants")),
    "add grant": add_grant(collection()),
    "delete grant": delete_grant(collection(), "collections"),
    "visibility": act(MANAGERS, 200, "patch", collection(), json={"visibility": "internal"}),
    "delete": act(MANAGERS, 204, "delete", collection()),
}


KINDS = {
    "dataset": (DATASET_ACTIONS, D404),
    "pipeline": (PIPELINE_ACTIONS, P404),
    "collection": (COLLECTION_ACTIONS, C404),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("caller", CALLERS)
def test_a_private_resource(client, world, caller, kind):
    actions, not_found = KINDS[kind]
    wrong = []
    for name, action in actions.items():
        response = call(client, world, caller, action)
        want = expected(caller, action, not_found)
        if action[2] == "head":  # no body: the status alone
            got, want = response.status_code, want[0]
        else:
            got = answer(response, action[1])
        if got != want:
            wrong.append(f"{name}: {got} where {want} was expected")
    assert not wrong, f"{caller} × {kind}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("caller", CALLERS)
def test_lists_and_their_totals_show_only_what_the_caller_may_read(client, world, caller):
    headers = world.people[caller].headers
    shown = PERSON.get(caller, caller) in READERS
    for kind, row, extra in (
        ("datasets", world.dataset, ""),
        ("datasets", world.dataset, "?q=sal"),
        ("datasets", world.dataset, "?tag=pay"),
        ("datasets", world.dataset, f"?owner={world.people['owner'].id}"),
        ("pipelines", world.pipeline, ""),
        ("pipelines", world.pipeline, f"?source_dataset_id={world.dataset['id']}"),
        ("collections", world.collection, ""),
        ("collections", world.collection, "?q=payroll"),
    ):
        page = client.get(f"/api/v1/{kind}/{extra}", headers=headers).get_json()
        ids = [item["id"] for item in page["items"]]
        assert (row["id"] in ids) == shown, (kind, extra)
        assert page["total"] == len(ids), (kind, extra)


def test_a_run_started_by_a_write_grantee_reads_with_the_owners_rights(app, client, world):
    """The write grantee runs the owner's pipeline: it succeeds (the owner reads the
    source) and its new output is private (a private input)."""
    grantee = world.people["write grantee"]
    run = run_now(app, client, grantee.headers, world.pipeline["id"])
    assert run["status"] == "succeeded", run
    output = client.get(
        f"/api/v1/datasets/{run['output_dataset_id']}", headers=world.people["owner"].headers
    ).get_json()
    assert output["visibility"] == "private"
    assert output["owner_id"] == world.people["owner"].id
    # The grantee was granted the pipeline and its source, not its output.
    outsider = client.get(f"/api/v1/datasets/{run['output_dataset_id']}", headers=grantee.headers)
    assert answer(outsider, 200) == D404
