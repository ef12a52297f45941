"""Who may do what to a private dataset and a private pipeline, through HTTP: every kind
of caller × every action (docs/guides/access.rst). What a caller may not read is 404 with
the resource's own message; readable but not allowed is 403 ``Forbidden``."""

import pytest

from tests.access.conftest import CSV
from tests.pipelines.helpers import run_now

D404 = (404, {"detail": "Dataset not found"})
P404 = (404, {"detail": "Pipeline not found"})
F403 = (403, {"detail": "Forbidden"})
CALLERS = (
    "owner",
    "admin",
    "read grantee",
    "write grantee",
    "group member",
    "other viewer",
    "other editor",
)
READERS = {"owner", "admin", "read grantee", "write grantee", "group member"}
WRITERS = {"owner", "admin", "write grantee"}
MANAGERS = {"owner", "admin"}


def expected(caller, allowed, ok, not_found=D404):
    if caller in allowed:
        return ok
    return F403 if caller in READERS else not_found


def answer(response, ok_status):
    """``(status, body)`` for a refusal; ``(status, None)`` when it succeeded."""
    if response.status_code == ok_status:
        return response.status_code, None
    return response.status_code, response.get_json()


ACTIONS = {
    "get": (READERS, 200, lambda c, w, h: c.get(f"/api/v1/datasets/{w.dataset['id']}", headers=h)),
    "download": (
        READERS,
        200,
        lambda c, w, h: c.get(f"/api/v1/datasets/{w.dataset['id']}/file", headers=h),
    ),
    "preview": (
        READERS,
        200,
        lambda c, w, h: c.get(f"/api/v1/datasets/{w.dataset['id']}/preview", headers=h),
    ),
    "versions": (
        READERS,
        200,
        lambda c, w, h: c.get(f"/api/v1/datasets/{w.dataset['id']}/versions", headers=h),
    ),
    "lineage": (
        READERS,
        200,
        lambda c, w, h: c.get(f"/api/v1/datasets/{w.dataset['id']}/lineage", headers=h),
    ),
    "patch": (
        WRITERS,
        200,
        lambda c, w, h: c.patch(
            f"/api/v1/datasets/{w.dataset['id']}", json={"description": "x"}, headers=h
        ),
    ),
    "upload": (
        WRITERS,
        200,
        lambda c, w, h: c.put(
            f"/api/v1/datasets/{w.dataset['id']}/file",
            data=CSV + b"cid,3\n",
            headers=h,
            content_type="text/csv",
        ),
    ),
    "restore": (
        WRITERS,
        201,
        lambda c, w, h: c.post(f"/api/v1/datasets/{w.dataset['id']}/versions/1/restore", headers=h),
    ),
    "visibility": (
        MANAGERS,
        200,
        lambda c, w, h: c.patch(
            f"/api/v1/datasets/{w.dataset['id']}", json={"visibility": "internal"}, headers=h
        ),
    ),
    "delete": (
        MANAGERS,
        204,
        lambda c, w, h: c.delete(f"/api/v1/datasets/{w.dataset['id']}", headers=h),
    ),
    "grants": (
        MANAGERS,
        200,
        lambda c, w, h: c.get(f"/api/v1/datasets/{w.dataset['id']}/grants", headers=h),
    ),
}


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("caller", CALLERS)
def test_a_private_dataset(client, world, caller, action):
    allowed, ok, call = ACTIONS[action]
    response = call(client, world, world.people[caller].headers)
    assert answer(response, ok) == expected(caller, allowed, (ok, None))


@pytest.mark.parametrize("caller", CALLERS)
def test_lists_and_their_totals_show_only_what_the_caller_may_read(client, world, caller):
    headers = world.people[caller].headers
    shown = caller in READERS
    for kind, row, extra in (
        ("datasets", world.dataset, ""),
        ("datasets", world.dataset, "?q=sal"),
        ("datasets", world.dataset, f"?owner={world.people['owner'].id}"),
        ("pipelines", world.pipeline, ""),
        ("pipelines", world.pipeline, f"?source_dataset_id={world.dataset['id']}"),
    ):
        page = client.get(f"/api/v1/{kind}/{extra}", headers=headers).get_json()
        ids = [item["id"] for item in page["items"]]
        assert (row["id"] in ids) == shown, (kind, extra)
        assert page["total"] == len(ids), (kind, extra)


PIPELINE_ACTIONS = {
    "get": (
        READERS,
        200,
        lambda c, w, h: c.get(f"/api/v1/pipelines/{w.pipeline['id']}", headers=h),
    ),
    "runs": (
        READERS,
        200,
        lambda c, w, h: c.get(f"/api/v1/pipelines/{w.pipeline['id']}/runs", headers=h),
    ),
    "run": (
        WRITERS,
        201,
        lambda c, w, h: c.post(f"/api/v1/pipelines/{w.pipeline['id']}/runs", headers=h),
    ),
    "patch": (
        WRITERS,
        200,
        lambda c, w, h: c.patch(
            f"/api/v1/pipelines/{w.pipeline['id']}", json={"description": "x"}, headers=h
        ),
    ),
    "delete": (
        MANAGERS,
        204,
        lambda c, w, h: c.delete(f"/api/v1/pipelines/{w.pipeline['id']}", headers=h),
    ),
    "grants": (
        MANAGERS,
        200,
        lambda c, w, h: c.get(f"/api/v1/pipelines/{w.pipeline['id']}/grants", headers=h),
    ),
}


@pytest.mark.parametrize("action", PIPELINE_ACTIONS)
@pytest.mark.parametrize("caller", CALLERS)
def test_a_private_pipeline(client, world, caller, action):
    allowed, ok, call = PIPELINE_ACTIONS[action]
    response = call(client, world, world.people[caller].headers)
    assert answer(response, ok) == expected(caller, allowed, (ok, None), not_found=P404)


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
