"""Pipelines and runs through HTTP: CRUD, lists, 404s, 409s, the permission matrix."""

import pytest

from datahub.pipelines import worker
from tests.pipelines.helpers import (
    PIPELINES,
    create_pipeline,
    get_run,
    output_rows,
    run_now,
    source,
    start,
)


def test_create_get_list_patch_delete(client, actors):
    editor, viewer = actors["editor"], actors["viewer"].headers
    dataset = source(client, editor.headers)
    response = client.post(
        PIPELINES,
        json={
            "name": " Oslo only ",
            "description": "d",
            "source_dataset_id": dataset["id"],
            "steps": [{"op": "limit", "count": 1}],
            "output_dataset_name": " oslo ",
        },
        headers=editor.headers,
    )
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"] == f"/api/v1/pipelines/{body['id']}"
    assert list(body) == [
        "id",
        "name",
        "description",
        "owner_id",
        "visibility",
        "source_dataset_id",
        "source_version",
        "steps",
        "output_dataset_name",
        "output_format",
        "trigger",
        "next_run_at",
        "trigger_disabled_reason",
        "created_at",
        "updated_at",
        "capabilities",
    ]
    assert (body["name"], body["output_dataset_name"], body["owner_id"]) == (
        "Oslo only",
        "oslo",
        editor.id,
    )
    assert body["capabilities"] == {"write": True, "manage": True}
    body["capabilities"] = {"write": False, "manage": False}  # as the viewer sees it
    assert client.get(f"{PIPELINES}{body['id']}", headers=viewer).get_json() == body
    other = create_pipeline(client, editor.headers, dataset["id"], name="second")
    other["capabilities"] = body["capabilities"]
    for url in ("/api/v1/pipelines", PIPELINES):
        page = client.get(url, headers=viewer).get_json()
        assert page == {"items": [body, other], "total": 2, "limit": 20, "offset": 0}
    assert client.get(f"{PIPELINES}?q=OSLO", headers=viewer).get_json()["items"] == [body]
    assert client.get(f"{PIPELINES}?owner=me", headers=viewer).get_json()["total"] == 0
    assert client.get(f"{PIPELINES}?owner={editor.id}&limit=1&offset=1", headers=viewer).get_json()[
        "items"
    ] == [other]
    assert (
        client.get(f"{PIPELINES}?source_dataset_id={dataset['id']}", headers=viewer).get_json()[
            "total"
        ]
        == 2
    )
    response = client.get(f"{PIPELINES}?source_dataset_id={2**31}", headers=viewer)
    assert (
        response.get_json()["detail"][0]["msg"]
        == "ensure this value is less than or equal to 2147483647"
    )

    response = client.patch(
        f"{PIPELINES}{body['id']}", json={"name": "renamed"}, headers=editor.headers
    )
    assert response.status_code == 200 and response.get_json()["name"] == "renamed"
    assert client.delete(f"{PIPELINES}{body['id']}", headers=editor.headers).status_code == 204
    assert client.get(f"{PIPELINES}{body['id']}", headers=viewer).get_json() == {
        "detail": "Pipeline not found"
    }


def test_names_unique_case_insensitively(client, actors):
    editor, other = actors["editor"].headers, actors["other_editor"].headers
    dataset = source(client, editor)
    first = create_pipeline(client, editor, dataset["id"], name="Daily")
    body = {"name": "DAILY", "source_dataset_id": dataset["id"], "output_dataset_name": "x"}
    response = client.post(PIPELINES, json=body, headers=other)
    assert (response.status_code, response.get_json()) == (409, {"detail": "Name already exists"})
    second = create_pipeline(client, editor, dataset["id"], name="Weekly")
    response = client.patch(f"{PIPELINES}{second['id']}", json={"name": "daily"}, headers=editor)
    assert (response.status_code, response.get_json()) == (409, {"detail": "Name already exists"})
    assert (
        client.patch(
            f"{PIPELINES}{first['id']}", json={"name": "DAILY"}, headers=editor
        ).status_code
        == 200
    )


def test_not_found_messages(client, actors):
    admin = actors["admin"].headers
    dataset = source(client, admin)
    body = {"name": "p", "source_dataset_id": 999999, "output_dataset_name": "x"}
    response = client.post(PIPELINES, json=body, headers=admin)
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    pipeline = create_pipeline(client, admin, dataset["id"])
    response = client.patch(
        f"{PIPELINES}{pipeline['id']}", json={"source_dataset_id": 2**40}, headers=admin
    )
    assert (response.status_code, response.get_json()) == (404, {"detail": "Dataset not found"})
    missing = [
        ("get", f"{PIPELINES}999"),
        ("patch", f"{PIPELINES}999"),
        ("delete", f"{PIPELINES}999"),
        ("get", f"{PIPELINES}999/runs"),
        ("post", f"{PIPELINES}999/runs"),
        ("get", f"{PIPELINES}999/runs/1"),
        ("post", f"{PIPELINES}999/runs/1/cancel"),
        ("get", f"{PIPELINES}{'9' * 40}"),
    ]  # an integer, just not an id
    for method, url in missing:
        kwargs = {"json": {}} if method == "patch" else {}
        response = getattr(client, method)(url, headers=admin, **kwargs)
        assert (response.status_code, response.get_json()) == (
            404,
            {"detail": "Pipeline not found"},
        ), url
    run = start(client, admin, pipeline["id"])
    other = create_pipeline(client, admin, dataset["id"], name="other")
    for method, url in [
        ("get", f"{PIPELINES}{pipeline['id']}/runs/{run['id'] + 1}"),
        ("get", f"{PIPELINES}{other['id']}/runs/{run['id']}"),
        ("post", f"{PIPELINES}{other['id']}/runs/{run['id']}/cancel"),
    ]:
        response = getattr(client, method)(url, headers=admin)
        assert (response.status_code, response.get_json()) == (404, {"detail": "Run not found"})
    response = client.get(f"{PIPELINES}{pipeline['id']}/runs/abc", headers=admin)
    assert response.status_code == 422
    assert response.get_json() == {
        "detail": [
            {
                "loc": ["path", "run_id"],
                "msg": "value is not a valid integer",
                "type": "type_error.integer",
            }
        ]
    }
    assert client.get("/api/v1/pipelines/x", headers=admin).get_json()["detail"][0]["loc"] == [
        "path",
        "pipeline_id",
    ]
    assert client.get(PIPELINES).get_json() == {"detail": "Not authenticated"}


def test_runs_queue_conflict_list_and_cancel(app, client, actors):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    runs_url = f"{PIPELINES}{pipeline['id']}/runs"
    response = client.post(runs_url, headers=editor)
    assert response.status_code == 201
    queued = response.get_json()
    assert response.headers["Location"] == f"{runs_url}/{queued['id']}"
    assert list(queued) == [
        "id",
        "pipeline_id",
        "status",
        "created_at",
        "started_at",
        "finished_at",
        "rows_in",
        "rows_out",
        "error",
        "output_dataset_id",
        "inputs",
        "output",
        "triggered_by",
        "reused_run_id",
        "timings",
    ]
    assert (queued["status"], queued["started_at"], queued["rows_in"]) == ("queued", None, None)
    assert queued["triggered_by"] == "user"
    response = client.post(runs_url, headers=editor)
    assert (response.status_code, response.get_json()) == (
        409,
        {"detail": "Pipeline is already running"},
    )

    response = client.post(f"{runs_url}/{queued['id']}/cancel", headers=editor)
    cancelled = response.get_json()
    assert response.status_code == 200
    assert (cancelled["status"], cancelled["error"]) == ("cancelled", "cancelled by a user")
    assert cancelled["finished_at"] is not None
    assert worker.run_once(app) is None  # nothing left to execute
    # Cancelling a finished run answers it unchanged.
    assert client.post(f"{runs_url}/{queued['id']}/cancel", headers=editor).get_json() == cancelled

    succeeded = run_now(app, client, editor, pipeline["id"])
    assert succeeded["status"] == "succeeded"
    assert (
        client.post(f"{runs_url}/{succeeded['id']}/cancel", headers=editor).get_json() == succeeded
    )
    third = start(client, editor, pipeline["id"])
    page = client.get(runs_url, headers=actors["viewer"].headers).get_json()
    assert [run["id"] for run in page["items"]] == [third["id"], succeeded["id"], queued["id"]]
    assert page["total"] == 3
    page = client.get(f"{runs_url}/?limit=1&offset=1", headers=editor).get_json()
    assert page == {"items": [succeeded], "total": 3, "limit": 1, "offset": 1}
    assert get_run(client, editor, pipeline["id"], third["id"]) == third


def test_deleting_a_pipeline_deletes_its_runs_not_its_output(app, client, actors):
    editor = actors["editor"].headers
    pipeline = create_pipeline(client, editor, source(client, editor)["id"])
    run = run_now(app, client, editor, pipeline["id"])
    assert client.delete(f"{PIPELINES}{pipeline['id']}", headers=editor).status_code == 204
    assert output_rows(client, editor, run)[0] == ["name", "city", "age"]


# (actor, owns the pipeline?) → may change, delete, run and cancel it?
CHANGERS = [
    ("admin", False, True),
    ("editor", True, True),
    ("other_editor", False, False),
    ("viewer", False, False),
    ("nobody", False, False),
]


@pytest.mark.parametrize("actor, owns, allowed", CHANGERS)
@pytest.mark.parametrize("action", ["patch", "delete", "run", "cancel"])
def test_change_matrix(app, client, actors, actor, owns, allowed, action):
    owner = actors["editor"].headers
    pipeline = create_pipeline(client, owner, source(client, owner)["id"])
    url = f"{PIPELINES}{pipeline['id']}"
    queued = start(client, owner, pipeline["id"]) if action == "cancel" else None
    headers = actors[actor].headers
    response = {
        "patch": lambda: client.patch(url, json={"description": "x"}, headers=headers),
        "delete": lambda: client.delete(url, headers=headers),
        "run": lambda: client.post(f"{url}/runs", headers=headers),
        "cancel": lambda: client.post(
            f"{url}/runs/{queued['id'] if queued else 0}/cancel", headers=headers
        ),
    }[action]()
    if allowed:
        assert (
            response.status_code == {"patch": 200, "delete": 204, "run": 201, "cancel": 200}[action]
        )
        return
    assert (response.status_code, response.get_json()) == (403, {"detail": "Forbidden"})
    assert client.get(url, headers=owner).get_json() == pipeline
    runs = client.get(f"{url}/runs", headers=owner).get_json()["items"]
    assert [run["status"] for run in runs] == (["queued"] if queued else [])


@pytest.mark.parametrize(
    "actor, allowed", [("admin", True), ("editor", True), ("viewer", False), ("nobody", False)]
)
def test_create_and_read_matrix(client, actors, actor, allowed):
    dataset = source(client, actors["admin"].headers)
    body = {"name": f"by {actor}", "source_dataset_id": dataset["id"], "output_dataset_name": "o"}
    response = client.post(PIPELINES, json=body, headers=actors[actor].headers)
    assert response.status_code == (201 if allowed else 403)
    if not allowed:
        assert response.get_json() == {"detail": "Forbidden"}
    read = client.get(PIPELINES, headers=actors[actor].headers)
    assert read.status_code == (403 if actor == "nobody" else 200)


def test_a_user_who_owns_pipelines_cannot_be_deleted(client, actors):
    editor = actors["editor"]
    pipeline = create_pipeline(
        client, editor.headers, source(client, actors["admin"].headers)["id"]
    )
    response = client.delete(f"/api/v1/users/{editor.id}", headers=actors["admin"].headers)
    assert response.get_json() == {
        "detail": "The user owns datasets, collections or "
        "pipelines; delete them or deactivate the user "
        "instead"
    }
    assert client.get(f"{PIPELINES}{pipeline['id']}", headers=editor.headers).status_code == 200
